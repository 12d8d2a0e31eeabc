#include "historymodel.h"

#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <cmath>

namespace etscope {

HistoryModel::HistoryModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void HistoryModel::setHistories(std::vector<std::shared_ptr<const History>> histories)
{
    beginResetModel();
    m_histories = std::move(histories);
    m_rows.clear();
    for (std::size_t h = 0; h < m_histories.size(); ++h) {
        if (!m_histories[h])
            continue;
        const History &hist = *m_histories[h];
        const std::size_t first = m_rows.size();
        for (std::size_t s = 0; s < hist.series.size(); ++s)
            m_rows.push_back({ h, s, {}, -1 });
        for (std::size_t c = 0; c < hist.changes.size(); ++c) {
            Row &r = m_rows[first + hist.changes[c].series];
            r.changes.push_back(c);
            const auto pct = [&](int k) { return std::abs(hist.changes[r.changes[std::size_t(k)]].changePercent); };
            const int k = int(r.changes.size()) - 1;
            if (r.largest < 0 || pct(k) > pct(r.largest))
                r.largest = k;
        }
    }
    endResetModel();
}

const HistoryModel::Row *HistoryModel::rowAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_rows.size() ? &m_rows[std::size_t(row)] : nullptr;
}

const History *HistoryModel::historyOf(int row) const
{
    const Row *r = rowAt(row);
    return r ? m_histories[r->history].get() : nullptr;
}

const HistorySeries *HistoryModel::seriesOf(int row) const
{
    const Row *r = rowAt(row);
    return r ? &m_histories[r->history]->series[r->series] : nullptr;
}

const HistoryChange *HistoryModel::largestChangeOf(int row) const
{
    const Row *r = rowAt(row);
    if (!r || r->largest < 0)
        return nullptr;
    return &m_histories[r->history]->changes[r->changes[std::size_t(r->largest)]];
}

int HistoryModel::rowOf(std::size_t history, std::size_t series) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].history == history && m_rows[i].series == series)
            return int(i);
    return -1;
}

int HistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QString HistoryModel::changeText(const History &h, const HistoryChange &c)
{
    return QStringLiteral("%1 → %2 (±%3 → ±%4) %5, %6%7 %, at %8, p = %9")
        .arg(formatSignificant(c.before, 4), formatSignificant(c.after, 4), formatSignificant(c.beforeCi, 2),
            formatSignificant(c.afterCi, 2), QString::fromLatin1(timeScaleName(h.unit)),
            c.changePercent >= 0 ? QStringLiteral("+") : QString(), QString::number(c.changePercent, 'f', 1),
            toQString(h.recordings[c.recordingAfter].label), formatSignificant(c.test.pValue, 3));
}

QString HistoryModel::seriesName(const History &h, const HistorySeries &s)
{
    const QString name = toQString(s.name);
    return h.groups.size() > 1 ? QStringLiteral("[program %1] %2").arg(s.group + 1).arg(name) : name;
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    const Row *r = index.isValid() ? rowAt(index.row()) : nullptr;
    if (!r || index.column() >= NUM_COLUMNS)
        return {};
    const History &h = *m_histories[r->history];
    const HistorySeries &s = h.series[r->series];
    const HistoryChange *largest = largestChangeOf(index.row());
    if (role == Qt::TextAlignmentRole)
        return index.column() == RecordingsColumn || index.column() == LatestColumn || index.column() == ChangesColumn
            ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter)
            : QVariant();
    if (role == Qt::ToolTipRole) {
        if (index.column() == LargestColumn && largest)
            return toQString(describeChange(h, *largest));
        if (index.column() == NameColumn)
            return tr("%1 — series by %2, program %3 of %4")
                .arg(seriesName(h, s), QString::fromLatin1(historyByName(h.by)))
                .arg(s.group + 1)
                .arg(h.groups.size());
        return {};
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (index.column()) {
    case NameColumn:
        return seriesName(h, s);
    case RecordingsColumn:
        return sort ? QVariant(qulonglong(s.p50.size())) : QVariant(QString::number(s.p50.size()));
    case LatestColumn:
        if (s.p50.empty())
            return {};
        return sort ? QVariant(s.p50.back()) : QVariant(formatSignificant(s.p50.back(), 4));
    case ChangesColumn:
        return sort ? QVariant(qulonglong(r->changes.size())) : QVariant(QString::number(r->changes.size()));
    case LargestColumn:
        if (!largest)
            return sort ? QVariant(0.0) : QVariant();
        return sort ? QVariant(std::abs(largest->changePercent)) : QVariant(changeText(h, *largest));
    default:
        return {};
    }
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QString unit = m_histories.empty() || !m_histories.front()
        ? QStringLiteral("ms")
        : QString::fromLatin1(timeScaleName(m_histories.front()->unit));
    switch (section) {
    case NameColumn:
        return tr("series");
    case RecordingsColumn:
        return tr("recordings");
    case LatestColumn:
        return tr("latest p50 (%1)").arg(unit);
    case ChangesColumn:
        return tr("changes");
    case LargestColumn:
        return tr("largest change");
    default:
        return {};
    }
}

} // namespace etscope
