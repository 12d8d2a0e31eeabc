#pragma once

#include "analysis/history.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace etscope {

// The series of one or more histories of the same recordings (analysis/history.h: one per
// HistoryBy — operators, Method::execute, the total) as a table, one row per series in the
// order given: its name ("[program 2] …" when the recordings are of several programs), how many
// recordings it has, the newest recording's p50, how many change points it has and the largest
// of them ("before → after (±CI) unit, ±x %, at label, p"). Only adapts; sorting goes through
// SortRole (numbers, never formatted text).
class HistoryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns { NameColumn, RecordingsColumn, LatestColumn, ChangesColumn, LargestColumn, NUM_COLUMNS };
    Q_ENUM(Columns)

    explicit HistoryModel(QObject *parent = nullptr);

    void setHistories(std::vector<std::shared_ptr<const History>> histories);
    const std::vector<std::shared_ptr<const History>> &histories() const { return m_histories; }

    // What a row shows: the history it comes from and its series there.
    struct Row {
        std::size_t history = 0, series = 0;
        std::vector<std::size_t> changes; // into History::changes, by index
        int largest = -1; // into `changes`: the largest |change %| (the first on ties), -1 without
    };
    const Row *rowAt(int row) const;
    const History *historyOf(int row) const;
    const HistorySeries *seriesOf(int row) const;
    const HistoryChange *largestChangeOf(int row) const;
    // The row of a history's series, -1 when absent.
    int rowOf(std::size_t history, std::size_t series) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "0.3655 → 0.3843 (±0.0033 → ±0.0017) ms, +5.1 %, at commit-07-a90e8c1, p = 0.001"
    static QString changeText(const History &h, const HistoryChange &c);
    // "native_call_avg_pool2d.out" or "[program 2] native_call_avg_pool2d.out"
    static QString seriesName(const History &h, const HistorySeries &s);

private:
    std::vector<std::shared_ptr<const History>> m_histories;
    std::vector<Row> m_rows;
};

} // namespace etscope
