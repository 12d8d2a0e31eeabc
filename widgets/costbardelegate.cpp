#include "costbardelegate.h"

#include "modelroles.h"

#include <QPainter>

namespace etscope {

void CostBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const double fraction = index.data(RelativeCostRole).toDouble();
    if (fraction > 0 && !(option.state & QStyle::State_Selected)) {
        QRectF bar = QRectF(option.rect).adjusted(1, 2, -1, -2);
        bar.setWidth(bar.width() * fraction);
        painter->fillRect(bar, QColor(0xe0, 0x8a, 0x1e, 70));
    }
    QStyledItemDelegate::paint(painter, option, index);
}

} // namespace etscope
