#include "difftreemodel.h"
#include "numberformat.h"

#include "modelroles.h"
#include "qtstrings.h"

#include <QBrush>
#include <QFont>

#include <cmath>
#include <limits>
#include <map>

namespace etscope {

namespace {

QString fmtNum(double v)
{
    if (std::isnan(v))
        return {};
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("-∞");
    return formatSignificant(v); // positional, as every number of the app ("0.000097", not "9.7e-05")
}

double p50(const DiffSide &s)
{
    return s.perf ? s.perf->p50 : std::nan("");
}

QVariant sortNumber(double v)
{
    // NaN sorts below everything (missing values last in descending order).
    return std::isnan(v) ? QVariant(-std::numeric_limits<double>::infinity()) : QVariant(v);
}

} // namespace

DiffTreeModel::DiffTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
{ }

QColor DiffTreeModel::verdictColor(etscope::Verdict v)
{
    switch (v) {
    case etscope::Verdict::Slower:
        return QColor(0xf4, 0xc7, 0xc3);
    case etscope::Verdict::Faster:
        return QColor(0xc8, 0xe6, 0xc9);
    case etscope::Verdict::OnlyA:
    case etscope::Verdict::OnlyB:
        return QColor(0xe3, 0xe3, 0xf5);
    default:
        return {};
    }
}

void DiffTreeModel::setDiff(std::shared_ptr<const LatencyDiff> diff)
{
    beginResetModel();
    m_diff = std::move(diff);
    m_groups.clear();
    m_where.clear();
    if (m_diff) {
        std::map<std::string, int> byBlock;
        m_where.resize(m_diff->rows.size());
        for (int i = 0; i < int(m_diff->rows.size()); ++i) {
            const std::string &blk = m_diff->rows[size_t(i)].blockName;
            auto [it, inserted] = byBlock.emplace(blk, int(m_groups.size()));
            if (inserted) {
                Group g;
                g.block = toQString(blk);
                for (const BlockTotal &t : m_diff->blockTotals)
                    if (t.blockName == blk)
                        g.total = &t.row;
                m_groups.push_back(std::move(g));
            }
            Group &g = m_groups[size_t(it->second)];
            m_where[size_t(i)] = { it->second, int(g.rows.size()) };
            g.rows.push_back(i);
        }
    }
    endResetModel();
}

QModelIndex DiffTreeModel::indexOfRow(int diffRow) const
{
    if (diffRow < 0 || size_t(diffRow) >= m_where.size())
        return {};
    const auto [g, pos] = m_where[size_t(diffRow)];
    return createIndex(pos, 0, quintptr(g + 1));
}

// Internal id: 0 for groups, group + 1 for rows under that group.
QModelIndex DiffTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (!parent.isValid())
        return size_t(row) < m_groups.size() ? createIndex(row, column, quintptr(0)) : QModelIndex();
    if (parent.internalId() != 0 || parent.column() != 0)
        return {};
    const Group &g = m_groups[size_t(parent.row())];
    return size_t(row) < g.rows.size() ? createIndex(row, column, quintptr(parent.row() + 1)) : QModelIndex();
}

QModelIndex DiffTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int DiffTreeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return int(m_groups[size_t(parent.row())].rows.size());
}

int DiffTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant DiffTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QString u = m_diff ? toQString(timeScaleName(m_diff->unit)) : QStringLiteral("ms");
    switch (section) {
    case Event:
        return tr("Event");
    case Instruction:
        return tr("Instr");
    case A:
        return tr("A p50 (%1)").arg(u);
    case B:
        return tr("B p50 (%1)").arg(u);
    case Delta:
        return tr("Δ p50 (%1)").arg(u);
    case Ratio:
        return tr("Ratio B/A");
    case PValue:
        return tr("p");
    case CI:
        return tr("95% CI of Δ");
    case Verdict:
        return tr("Verdict");
    case Backend:
        return tr("Backend");
    }
    return {};
}

QVariant DiffTreeModel::rowData(const DiffRow &r, int column, int role, bool isGroup, const Group *g) const
{
    const bool both = r.a.perf && r.b.perf;
    if (role == Qt::BackgroundRole) {
        const QColor c = verdictColor(r.verdict);
        return c.isValid() ? QVariant(QBrush(c)) : QVariant();
    }
    if (role == Qt::FontRole && isGroup) {
        QFont f;
        f.setBold(true);
        return f;
    }
    if (role == Qt::ToolTipRole && column == Event && !isGroup) {
        QString tip = toQString(r.a.label.empty() ? r.b.label : r.a.label);
        if (!r.a.label.empty() && !r.b.label.empty() && r.a.label != r.b.label)
            tip = tr("A: %1\nB: %2").arg(toQString(r.a.label), toQString(r.b.label));
        return QString(tip + tr("\npaired by: %1").arg(QString::fromLatin1(pairingName(m_diff->pairing))));
    }
    if (role == Qt::TextAlignmentRole && column != Event && column != Verdict && column != Backend)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == VerdictRole)
        return int(r.verdict);
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Event: {
            if (isGroup)
                return g->total ? tr("%1 — %2").arg(g->block, toQString(g->total ? g->total->eventName : std::string()))
                                : g->block;
            QString name = toQString(r.eventName);
            if (!r.a.events.empty() && !r.b.label.empty() && r.b.label != r.eventName)
                name += QStringLiteral("  ⇄  ") + toQString(r.b.label);
            return name;
        }
        case Instruction:
            return isGroup ? QVariant() : QVariant(r.instructionId);
        case A:
            return fmtNum(p50(r.a));
        case B:
            return fmtNum(p50(r.b));
        case Delta:
            return both ? fmtNum(r.deltaP50) : QString();
        case Ratio:
            return both ? QString::number(r.ratio, 'f', 3) : QString();
        case PValue:
            return r.pValue ? QString::number(*r.pValue, 'g', 2) : QString();
        case CI:
            return r.ci ? QStringLiteral("[%1, %2]").arg(fmtNum(r.ci->low), fmtNum(r.ci->high)) : QString();
        case Verdict:
            return QString(
                QString::fromLatin1(verdictName(r.verdict)) + (r.ratioOnly ? QStringLiteral(" *") : QString()));
        case Backend:
            return toQString(r.backend);
        }
    }
    if (role == SortRole) {
        switch (column) {
        case Event:
            return isGroup ? g->block : toQString(r.eventName);
        case Instruction:
            return r.instructionId;
        case A:
            return sortNumber(p50(r.a));
        case B:
            return sortNumber(p50(r.b));
        case Delta:
            return sortNumber(both ? r.deltaP50 : std::nan(""));
        case Ratio:
            return sortNumber(both ? r.ratio : std::nan(""));
        case PValue:
            return sortNumber(r.pValue ? *r.pValue : std::nan(""));
        case CI:
            return sortNumber(r.ci ? r.ci->low : std::nan(""));
        case Verdict:
            return int(r.verdict);
        case Backend:
            return toQString(r.backend);
        }
    }
    return {};
}

QVariant DiffTreeModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_diff)
        return {};
    if (index.internalId() == 0) {
        const Group &g = m_groups[size_t(index.row())];
        if (role == DiffRowRole)
            return -1;
        if (role == FilterTextRole2)
            return g.block;
        if (!g.total)
            return index.column() == Event && role == Qt::DisplayRole ? QVariant(g.block) : QVariant();
        return rowData(*g.total, index.column(), role, true, &g);
    }
    const Group &g = m_groups[size_t(index.internalId() - 1)];
    const int rowIndex = g.rows[size_t(index.row())];
    const DiffRow &r = m_diff->rows[size_t(rowIndex)];
    if (role == DiffRowRole)
        return rowIndex;
    if (role == FilterTextRole2)
        return toQString(
            r.eventName + ' ' + r.a.label + ' ' + r.b.label + ' ' + r.opType + ' ' + r.backend + ' ' + r.module);
    return rowData(r, index.column(), role, false, &g);
}

DiffFilterProxy::DiffFilterProxy(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    setSortRole(SortRole);
    setRecursiveFilteringEnabled(true);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void DiffFilterProxy::setFilterText(const QString &text)
{
    m_text = text;
    invalidateFilter();
}

void DiffFilterProxy::setChangedOnly(bool on)
{
    m_changedOnly = on;
    invalidateFilter();
}

bool DiffFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex idx = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!sourceParent.isValid())
        return m_text.isEmpty() && !m_changedOnly; // block items: kept when a child matches (recursive)
    if (m_changedOnly) {
        const auto v = etscope::Verdict(idx.data(DiffTreeModel::VerdictRole).toInt());
        if (v == etscope::Verdict::Unchanged || v == etscope::Verdict::NoData)
            return false;
    }
    return m_text.isEmpty()
        || idx.data(DiffTreeModel::FilterTextRole2).toString().contains(m_text, Qt::CaseInsensitive);
}

} // namespace etscope
