#pragma once

#include <QStyledItemDelegate>

namespace etscope {

// Paints a faint bar behind a duration cell, proportional to RelativeCostRole, so the hot
// rows stand out while scrolling (like hotspot's cost delegate).
class CostBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace etscope
