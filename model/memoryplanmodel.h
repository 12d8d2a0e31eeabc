#pragma once

#include "program/memoryplan.h"

#include <QAbstractTableModel>

#include <memory>

namespace etscope {

// The planned tensors of one method as a table: value, shape, arena, offset, bytes, lifetime,
// the operator that makes it, and whether it shares (or could share) memory.
class MemoryPlanModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Value, Shape, Arena, Offset, Bytes, First, Last, Producer, Sharing, ColumnCount };
    enum Role { TensorIndexRole = Qt::UserRole + 1, FirstInstructionRole, SortRole };

    explicit MemoryPlanModel(QObject *parent = nullptr);

    // Keeps the program alive; method must belong to it. A null program clears the model.
    void setPlan(std::shared_ptr<const Program> program, const ProgramMethod *method);
    const MemoryPlan &plan() const { return m_plan; }
    const ProgramMethod *method() const { return m_method; }
    const Program *program() const { return m_program.get(); }
    // Row of the tensor with this value index, or -1.
    int rowOfValue(int value) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Program> m_program;
    const ProgramMethod *m_method = nullptr;
    MemoryPlan m_plan;
    std::vector<QString> m_shapes, m_producers; // cached per row
};

} // namespace etscope
