#pragma once

#include "evalgap/decompose.h"

#include <QAbstractTableModel>

#include <memory>

namespace etscope {

// The error decomposition of a quantized model (evalgap/decompose.h) as a table, one row per
// runtime op in execution order: the three error columns in the chosen metric, which part
// dominates, the share of the error power that is quantization's, the note. Only adapts: every
// figure and rule comes from core.
class DecompositionModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Columns {
        OpColumn,
        QuantColumn,
        KernelColumn,
        TotalColumn,
        DominantColumn,
        QuantShareColumn,
        NoteColumn,
        NUM_COLUMNS
    };
    Q_ENUM(Columns)

    explicit DecompositionModel(QObject *parent = nullptr);

    void setDecomposition(std::shared_ptr<const evalgap::Decomposition> d);
    const evalgap::Decomposition *decomposition() const { return m_d.get(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const evalgap::Decomposition> m_d;
};

} // namespace etscope
