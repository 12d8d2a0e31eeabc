#pragma once

#include "analysis/determinism.h"

#include <QAbstractTableModel>

#include <memory>

namespace etscope {

// Determinism over runs as a table (analysis/determinism.h), one row per logged tensor in program
// order: its position, the operator that logged it, the instruction, shape, how many distinct
// results, how many runs differ (their indices in the tooltip), the deviations against the
// majority and the varying tile. Only adapts the core's report; sorting goes through SortRole.
class DeterminismModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        PositionColumn,
        OperatorColumn,
        InstructionColumn,
        ShapeColumn,
        DistinctColumn,
        RunsDifferColumn,
        MaxAbsColumn,
        MaxRelColumn,
        MaxUlpColumn,
        RegionColumn,
        NUM_COLUMNS
    };
    Q_ENUM(Columns)

    explicit DeterminismModel(QObject *parent = nullptr);

    void setReport(std::shared_ptr<const DeterminismReport> report);
    const DeterminismReport *report() const { return m_report.get(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const DeterminismReport> m_report;
};

// "rows 0–31 × cols 32–63 (32×32 of 64×64, 1024 elements)", "" when nothing varies.
QString varyingRegionText(const TensorDeterminism &t);

} // namespace etscope
