#include "delegatetriageview.h"
#include "qtstrings.h"

#include "treeviewutil.h"

#include "analysis/noise.h"
#include "etrecord/etrecord.h"
#include "etrecord/exportedprogram.h"
#include "etrecord/linker.h"
#include "graph/programgraph.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace etscope::gapui {

namespace {
enum Col { Backend, Instruction, Replaced, Latency, Gap, Source, ColCount };
constexpr int kBlockRole = Qt::UserRole + 1, kEventRole = Qt::UserRole + 2;

// The graph nodes the session's events were linked against (the linker's choice: the
// reference graph asked for, else the Edge program of the method), by the name the Inspector
// gives them ("aten_addmm_default_").
std::unordered_map<std::string, const GraphNode *> linkedNodes(const Session &session)
{
    std::unordered_map<std::string, const GraphNode *> out;
    if (!session.etrecord)
        return out;
    const ETRecordProgram *graph = session.inputs.link.referenceGraph.empty()
        ? session.etrecord->edgeProgram(session.inputs.link.method)
        : session.etrecord->program(session.inputs.link.referenceGraph);
    if (!graph || !graph->program)
        return out;
    for (const GraphNode &n : graph->program->nodes)
        out.emplace(n.inspectorName(), &n);
    return out;
}

// "addmm · handle 3 · aten_addmm_default": the operator first (what the user wrote), its
// debug handle, then the node's name (what the Inspector's tables print).
QString readableOp(const std::string &nodeName, const GraphNode *node)
{
    QString raw = toQString(nodeName);
    if (raw.endsWith(QLatin1Char('_')))
        raw.chop(1);
    if (!node)
        return raw;
    QString text = toQString(opTypeOperatorName(node->opName));
    if (node->debugHandle)
        text += QObject::tr(" · handle %1").arg(*node->debugHandle);
    return text + QStringLiteral(" · ") + raw;
}
} // namespace

DelegateTriageView::DelegateTriageView(QWidget *parent)
    : QWidget(parent)
    , m_tree(new QTreeWidget(this))
{
    auto *lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(m_tree);
    m_tree->setRootIsDecorated(false);
    m_tree->setAlternatingRowColors(true);
    m_tree->setColumnCount(ColCount);
    m_tree->setHeaderLabels(
        { tr("Backend"), tr("Instr"), tr("Replaced ops"), tr("Latency (avg)"), tr("Worst gap"), tr("Source") });
    // Every header readable ("Rep", "Latenc" before): columns fit their header and contents,
    // and the view scrolls horizontally when the dock is narrower.
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(true);
    TreeViewUtil::addCopyAndColumnActions(m_tree, Backend, Backend);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (item)
            Q_EMIT eventSelected(item->data(0, kBlockRole).toInt(), item->data(0, kEventRole).toInt());
    });
}

void DelegateTriageView::setData(const Session &session, const analysis::GapTable &table)
{
    m_tree->clear();
    std::vector<const analysis::GapRow *> rows;
    for (const auto &r : table.rows)
        if (r.delegated)
            rows.push_back(&r);
    const auto nodes = linkedNodes(session);
    const auto dir = table.direction;
    std::stable_sort(rows.begin(), rows.end(), [dir](const analysis::GapRow *a, const analysis::GapRow *b) {
        return analysis::badness(dir, a->worst(dir)) > analysis::badness(dir, b->worst(dir));
    });
    m_tree->setHeaderLabels({ tr("Backend"), tr("Instr"), tr("Replaced ops"), tr("Latency (avg)"),
        tr("Worst gap (%1)").arg(QString::fromLatin1(analysis::metricName(table.metric))), tr("Source") });
    for (const auto *r : rows) {
        auto *item = new QTreeWidgetItem(m_tree);
        item->setText(Backend, r->backend.empty() ? tr("(unknown)") : toQString(r->backend));
        item->setText(Instruction, QString::number(r->instructionId));
        // Replaced ops: the graph nodes the delegate call was linked to (ETRecord), else the
        // reference-side ops it was matched with.
        QStringList ops, tips;
        for (const auto &n : r->stackTraces) {
            const auto found = nodes.find(n.nodeName);
            const GraphNode *node = found == nodes.end() ? nullptr : found->second;
            ops << readableOp(n.nodeName, node);
            tips << (node ? tr("%1 (%2), debug handle %3, node %4")
                                .arg(toQString(opTypeOperatorName(node->opName)), toQString(node->target),
                                    node->debugHandle ? QString::number(*node->debugHandle) : tr("none"),
                                    toQString(n.nodeName))
                          : toQString(n.nodeName));
        }
        if (ops.isEmpty())
            for (const auto &o : r->referenceOps)
                tips << (ops << toQString(o)).back();
        item->setText(Replaced, ops.join(QStringLiteral(", ")));
        item->setToolTip(Replaced, tips.join(QLatin1Char('\n')));
        const Event *ev = nullptr;
        if (r->blockIndex >= 0 && r->blockIndex < int(session.blocks.size())
            && r->eventIndex < int(session.blocks[std::size_t(r->blockIndex)].events.size()))
            ev = &session.blocks[std::size_t(r->blockIndex)].events[std::size_t(r->eventIndex)];
        if (ev && ev->perfData)
            item->setText(Latency,
                QStringLiteral("%1 %2")
                    .arg(ev->perfData->avg, 0, 'g', 5)
                    .arg(toQString(
                        std::string(timeScaleName(session.blocks[std::size_t(r->blockIndex)].targetTimeScale)))));
        const double w = r->worst(dir);
        item->setText(Gap, std::isnan(w) ? QStringLiteral("–") : QString::number(w, 'g', 6));
        item->setData(Gap, Qt::UserRole, w);
        for (const auto &n : r->stackTraces)
            if (n.stackTrace) {
                // The user's frame (not torch's): "model.py:42" in the cell, the whole trace in
                // the tooltip.
                const std::string loc = userSourceLocation(*n.stackTrace);
                item->setText(
                    Source, loc.empty() ? toQString(*n.stackTrace).section(QLatin1Char('\n'), 0, 0) : toQString(loc));
                item->setToolTip(Source, toQString(*n.stackTrace));
                break;
            }
        // The colour of every gap view (analysis::gapSeverity): warm above the threshold.
        const double ex = r->excess(table.metric, dir);
        const graph::Rgb fill = graph::gapSeverityColor(analysis::gapSeverity(ex, r->flagged));
        if (!std::isnan(w)) {
            item->setBackground(Gap, QColor(fill.r, fill.g, fill.b));
            item->setForeground(Gap, QColor(fill.r, fill.g, fill.b).lightnessF() > 0.55 ? Qt::black : Qt::white);
            item->setToolTip(Gap, r->flagged ? tr("above the threshold") : tr("within the noise level"));
        }
        if (r->flagged)
            for (int c = 0; c < ColCount; ++c)
                if (c != Gap)
                    item->setForeground(c, QColor(200, 30, 30));
        item->setData(0, kBlockRole, r->blockIndex);
        item->setData(0, kEventRole, r->eventIndex);
    }
    for (int c = 0; c < ColCount; ++c)
        m_tree->resizeColumnToContents(c);
}

} // namespace etscope::gapui
