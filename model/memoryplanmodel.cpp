#include "memoryplanmodel.h"

#include "program/programexport.h"
#include "qtstrings.h"

namespace etscope {

MemoryPlanModel::MemoryPlanModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void MemoryPlanModel::setPlan(std::shared_ptr<const Program> program, const ProgramMethod *method)
{
    beginResetModel();
    m_program = std::move(program);
    m_method = m_program ? method : nullptr;
    m_plan = m_method ? analyzeMemoryPlan(*m_method) : MemoryPlan {};
    m_shapes.clear();
    m_producers.clear();
    for (const PlannedTensor &t : m_plan.tensors) {
        m_shapes.push_back(toQString(describeValue(m_method->value(std::size_t(t.value)))));
        m_producers.push_back(toQString(producerLabel(*m_method, t)));
    }
    endResetModel();
}

int MemoryPlanModel::rowOfValue(int value) const
{
    const PlannedTensor *t = m_plan.tensorOfValue(value);
    return t ? int(t - m_plan.tensors.data()) : -1;
}

int MemoryPlanModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_plan.tensors.size());
}

int MemoryPlanModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MemoryPlanModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const std::size_t row = std::size_t(index.row());
    const PlannedTensor &t = m_plan.tensors[row];
    if (role == TensorIndexRole)
        return int(row);
    if (role == FirstInstructionRole)
        return t.first;
    if (role == Qt::TextAlignmentRole)
        return index.column() == Shape || index.column() == Producer || index.column() == Sharing
            ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
            : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (Column(index.column())) {
    case Value:
        return role == SortRole ? QVariant(t.value) : QVariant(QStringLiteral("%") + QString::number(t.value));
    case Shape:
        return m_shapes[row];
    case Arena:
        return t.arena;
    case Offset:
        return qulonglong(t.offset);
    case Bytes:
        return qulonglong(t.nbytes);
    case First:
        return t.first;
    case Last:
        return t.last;
    case Producer:
        return m_producers[row];
    case Sharing:
        return t.sharesMemory ? tr("shares") : t.couldShare ? tr("could share") : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant MemoryPlanModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    static const char *names[]
        = { "value", "dtype[shape]", "arena", "offset", "bytes", "first", "last", "made by", "memory" };
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

} // namespace etscope
