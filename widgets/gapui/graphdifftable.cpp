#include "graphdifftable.h"

#include "analysis/noise.h"
#include "common/numberformat.h"
#include "evalgap/graphdiff.h"
#include "graph/programgraph.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

namespace etscope::gapui {

GraphDiffTable::GraphDiffTable(QWidget *parent)
    : QWidget(parent)
    , m_table(new QTreeWidget)
    , m_unaligned(new QLabel)
{
    m_table->setRootIsDecorated(false);
    m_table->setAlternatingRowColors(true);
    m_table->setHeaderLabels(
        { tr("layer"), tr("A node"), tr("B node"), tr("aligned by"), tr("gap"), tr("noise level"), tr("flagged") });
    m_table->header()->setStretchLastSection(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table, 1);
    m_unaligned->setWordWrap(true);
    m_unaligned->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_unaligned);
    connect(m_table, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            Q_EMIT currentLayerChanged(item->data(0, Qt::UserRole).toInt());
    });
}

void GraphDiffTable::clear()
{
    m_table->clear();
    m_unaligned->clear();
}

void GraphDiffTable::setDiff(const evalgap::GraphDiff &d)
{
    m_table->clear();
    const int parting = d.firstParting();
    for (std::size_t i = 0; i < d.rows.size(); ++i) {
        const evalgap::GraphDiffRow &r = d.rows[i];
        auto *item = new QTreeWidgetItem(m_table,
            { QString::number(i + 1), toQString(r.aName) + QStringLiteral(" (") + toQString(r.aOp) + QLatin1Char(')'),
                toQString(r.bName) + QStringLiteral(" (") + toQString(r.bOp) + QLatin1Char(')'),
                QString::fromLatin1(evalgap::alignedByName(r.by)),
                r.error.empty() ? formatGap(r.worst(d.direction)) : toQString(r.error),
                formatGap(r.worstNoise(d.direction)), r.flagged ? tr("yes") : QString() });
        item->setData(0, Qt::UserRole, int(i));
        item->setToolTip(4, r.error.empty() ? toQString(fullPrecisionText(r.worst(d.direction))) : toQString(r.error));
        // The gap views' colour scale: cool up to the noise level, warm above it.
        const double excess = r.excess(d.metric, d.direction);
        if (!std::isnan(excess)) {
            const graph::Rgb c = graph::gapSeverityColor(analysis::gapSeverity(excess, r.flagged));
            item->setBackground(4, QColor(c.r, c.g, c.b));
        }
        if (int(i) == parting)
            for (int col = 0; col < m_table->columnCount(); ++col) {
                QFont f = item->font(col);
                f.setBold(true);
                item->setFont(col, f);
            }
    }
    for (int col = 0; col < m_table->columnCount(); ++col)
        m_table->resizeColumnToContents(col);
    QStringList lines;
    auto list = [](const std::vector<evalgap::UnalignedNode> &nodes) {
        QStringList names;
        for (const auto &n : nodes)
            names << toQString(n.name);
        return names.join(QStringLiteral(", "));
    };
    if (!d.unalignedA.empty())
        lines << tr("Only in A (not aligned, never paired by guess): %1").arg(list(d.unalignedA));
    if (!d.unalignedB.empty())
        lines << tr("Only in B: %1").arg(list(d.unalignedB));
    for (const std::string &w : d.warnings)
        lines << toQString(w);
    m_unaligned->setText(lines.join(QLatin1Char('\n')));
    m_unaligned->setVisible(!lines.isEmpty());
    if (parting >= 0)
        m_table->scrollToItem(m_table->topLevelItem(parting));
}

bool GraphDiffTable::selectLayer(int row)
{
    for (int i = 0; i < m_table->topLevelItemCount(); ++i)
        if (QTreeWidgetItem *item = m_table->topLevelItem(i); item->data(0, Qt::UserRole).toInt() == row) {
            const bool already = m_table->currentItem() == item;
            m_table->setCurrentItem(item);
            m_table->scrollToItem(item);
            return already;
        }
    return false;
}

} // namespace etscope::gapui
