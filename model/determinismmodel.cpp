#include "determinismmodel.h"

#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <QBrush>
#include <QColor>

namespace etscope {

namespace {

QString runList(const std::vector<std::size_t> &runs)
{
    QStringList s;
    for (std::size_t r : runs)
        s << QString::number(r);
    return s.join(QStringLiteral(", "));
}

} // namespace

QString varyingRegionText(const TensorDeterminism &t)
{
    if (!t.region)
        return {};
    const VaryingRegion &g = *t.region;
    return QStringLiteral("rows %1–%2 × cols %3–%4 (%5×%6 of %7×%8, %9 elements)")
        .arg(g.rowBegin)
        .arg(g.rowEnd - 1)
        .arg(g.colBegin)
        .arg(g.colEnd - 1)
        .arg(g.rowEnd - g.rowBegin)
        .arg(g.colEnd - g.colBegin)
        .arg(g.rows)
        .arg(g.cols)
        .arg(g.elements);
}

DeterminismModel::DeterminismModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void DeterminismModel::setReport(std::shared_ptr<const DeterminismReport> report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

int DeterminismModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_report ? 0 : int(m_report->tensors.size());
}

int DeterminismModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QVariant DeterminismModel::data(const QModelIndex &index, int role) const
{
    if (!m_report || !index.isValid() || index.row() >= rowCount() || index.column() >= NUM_COLUMNS)
        return {};
    const TensorDeterminism &t = m_report->tensors[std::size_t(index.row())];
    const int col = index.column();
    if (role == Qt::TextAlignmentRole)
        return col == OperatorColumn || col == ShapeColumn || col == RegionColumn
            ? QVariant()
            : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole)
        return t.varies() ? QVariant(QBrush(QColor(0xc6, 0x28, 0x28))) : QVariant();
    if (role == Qt::ToolTipRole) {
        if (col == RunsDifferColumn && t.varies())
            return tr("runs that differ from the majority (0-based): %1").arg(runList(t.runsDiffer));
        if (col == OperatorColumn && !t.earlierVarying.empty())
            return tr("earlier varying tensors (positions): %1").arg(runList(t.earlierVarying));
        if (col == MaxUlpColumn && t.varies())
            return tr("%1 low mantissa bits differ").arg(t.bits);
        return {};
    }
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    const bool sort = role == SortRole;
    switch (col) {
    case PositionColumn:
        return sort ? QVariant(qulonglong(t.position)) : QVariant(QString::number(t.position));
    case OperatorColumn:
        return t.programOutput ? tr("program output %1").arg(t.occurrence) : toQString(t.name);
    case InstructionColumn:
        return sort ? QVariant(qlonglong(t.instructionId)) : QVariant(QString::number(t.instructionId));
    case ShapeColumn:
        return toQString(describeShape(t.dtype, t.sizes));
    case DistinctColumn:
        return sort ? QVariant(qulonglong(t.distinct)) : QVariant(QString::number(t.distinct));
    case RunsDifferColumn:
        return sort ? QVariant(qulonglong(t.runsDiffer.size())) : QVariant(QString::number(t.runsDiffer.size()));
    case MaxAbsColumn:
        return sort ? QVariant(t.maxAbs) : QVariant(formatSignificant(t.maxAbs, 4));
    case MaxRelColumn:
        return sort ? QVariant(t.maxRel) : QVariant(formatSignificant(t.maxRel, 4));
    case MaxUlpColumn:
        return sort ? QVariant(qulonglong(t.maxUlp)) : QVariant(QString::number(t.maxUlp));
    case RegionColumn:
        return varyingRegionText(t);
    default:
        return {};
    }
}

QVariant DeterminismModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= NUM_COLUMNS)
        return {};
    if (role == Qt::DisplayRole) {
        static const char *const names[] = { QT_TR_NOOP("#"), QT_TR_NOOP("operator"), QT_TR_NOOP("instr"),
            QT_TR_NOOP("shape"), QT_TR_NOOP("distinct"), QT_TR_NOOP("runs differ"), QT_TR_NOOP("max |Δ|"),
            QT_TR_NOOP("max rel"), QT_TR_NOOP("max ULP"), QT_TR_NOOP("varying tile") };
        return tr(names[section]);
    }
    if (role == Qt::ToolTipRole) {
        static const char *const tips[]
            = { QT_TR_NOOP("position in program order (the first run's order of logged tensors)"),
                  QT_TR_NOOP("the operator whose output this is (its profile event), or the program output"),
                  QT_TR_NOOP("instruction id in the method's chain"), QT_TR_NOOP("dtype and sizes"),
                  QT_TR_NOOP("distinct bitwise results over the runs"),
                  QT_TR_NOOP("runs whose result differs from the majority"),
                  QT_TR_NOOP("largest absolute difference from the majority result"),
                  QT_TR_NOOP("largest relative difference |a − b| / |b| (b ≠ 0)"),
                  QT_TR_NOOP("largest distance in units in the last place (floating types)"),
                  QT_TR_NOOP("bounding tile of the differing elements over the tensor's last two dimensions") };
        return tr(tips[section]);
    }
    return {};
}

} // namespace etscope
