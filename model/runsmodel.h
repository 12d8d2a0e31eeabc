#pragma once

#include "analysis/runs.h"

#include <QAbstractTableModel>

#include <memory>

namespace etscope {

// Runs over time as a table, one row per executed run in file order (analysis/runs.h): the
// method it was attributed to, its phase, when it started (from the first run's start), how long
// its Method::execute took, the tokens it processed and why it is left out of the steady figures.
// Only adapts the core's report; sorting goes through SortRole (numbers, never formatted text).
class RunsTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        RunColumn,
        MethodColumn,
        PhaseColumn,
        StartColumn,
        DurationColumn,
        TokensColumn,
        NoteColumn,
        NUM_COLUMNS
    };
    Q_ENUM(Columns)

    explicit RunsTableModel(QObject *parent = nullptr);

    void setReport(std::shared_ptr<const RunsReport> report);
    const RunsReport *report() const { return m_report.get(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const RunsReport> m_report;
    std::int64_t m_firstStartNs = 0;
};

} // namespace etscope
