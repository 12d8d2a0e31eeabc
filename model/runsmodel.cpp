#include "runsmodel.h"

#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <algorithm>

namespace etscope {

RunsTableModel::RunsTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void RunsTableModel::setReport(std::shared_ptr<const RunsReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    m_firstStartNs = 0;
    if (m_report && !m_report->runs.empty()) {
        m_firstStartNs = m_report->runs.front().startNs;
        for (const RunRow &r : m_report->runs)
            m_firstStartNs = std::min(m_firstStartNs, r.startNs);
    }
    endResetModel();
}

int RunsTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_report ? 0 : int(m_report->runs.size());
}

int RunsTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QVariant RunsTableModel::data(const QModelIndex &index, int role) const
{
    if (!m_report || !index.isValid() || index.row() >= int(m_report->runs.size()) || index.column() >= NUM_COLUMNS)
        return {};
    const RunRow &r = m_report->runs[std::size_t(index.row())];
    if (role == BlockIndexRole)
        return qulonglong(r.block);
    if (role == Qt::TextAlignmentRole)
        return index.column() == RunColumn || index.column() == StartColumn || index.column() == DurationColumn
                || index.column() == TokensColumn
            ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant();
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case RunColumn:
        return sort ? QVariant(qulonglong(r.index)) : QVariant(QString::number(r.index + 1));
    case MethodColumn:
        if (role == Qt::ToolTipRole && !r.methodNote.empty())
            return toQString(r.methodNote);
        return r.method.empty() ? toQString(r.methodNote) : toQString(r.method);
    case PhaseColumn:
        return toQString(r.phase);
    case StartColumn: {
        const double ms = double(r.startNs - m_firstStartNs) / 1e6;
        return sort ? QVariant(ms) : QVariant(formatSignificant(ms, 6));
    }
    case DurationColumn:
        return sort ? QVariant(r.durationMs) : QVariant(formatSignificant(r.durationMs, 6));
    case TokensColumn:
        if (!r.tokens)
            return sort ? QVariant(-1) : QVariant();
        return sort ? QVariant(qlonglong(*r.tokens)) : QVariant(QString::number(*r.tokens));
    case NoteColumn: {
        QStringList notes;
        if (r.warmup)
            notes << tr("warm-up");
        if (r.outlier)
            notes << tr("outlier");
        return notes.join(QStringLiteral(", "));
    }
    default:
        return {};
    }
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case RunColumn:
        return tr("run");
    case MethodColumn:
        return tr("method");
    case PhaseColumn:
        return tr("phase");
    case StartColumn:
        return tr("start (ms)");
    case DurationColumn:
        return tr("duration (ms)");
    case TokensColumn:
        return tr("tokens");
    case NoteColumn:
        return tr("left out");
    default:
        return {};
    }
}

} // namespace etscope
