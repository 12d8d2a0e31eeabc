#include "decompositionmodel.h"

#include "analysis/comparator.h"
#include "common/numberformat.h"
#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <cmath>

namespace etscope {

namespace {
const evalgap::ErrorPart &partOf(const evalgap::OpDecomposition &op, int column)
{
    return column == DecompositionModel::QuantColumn ? op.quant
        : column == DecompositionModel::KernelColumn ? op.kernel
                                                     : op.total;
}

} // namespace

DecompositionModel::DecompositionModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void DecompositionModel::setDecomposition(std::shared_ptr<const evalgap::Decomposition> d)
{
    beginResetModel();
    m_d = std::move(d);
    endResetModel();
}

int DecompositionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_d ? 0 : int(m_d->ops.size());
}

int DecompositionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : NUM_COLUMNS;
}

QVariant DecompositionModel::data(const QModelIndex &index, int role) const
{
    if (!m_d || !index.isValid() || index.row() >= int(m_d->ops.size()) || index.column() >= NUM_COLUMNS)
        return {};
    const evalgap::OpDecomposition &op = m_d->ops[std::size_t(index.row())];
    const int col = index.column();
    switch (role) {
    case BlockIndexRole:
        return op.blockIndex;
    case EventIndexRole:
        return op.eventIndex;
    case Qt::TextAlignmentRole:
        if (col == QuantColumn || col == KernelColumn || col == TotalColumn || col == QuantShareColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        break;
    }
    if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole)
        return {};
    switch (col) {
    case OpColumn:
        if (role == Qt::ToolTipRole) {
            QStringList nodes;
            for (const std::string &n : op.referenceOps)
                nodes << toQString(n);
            return tr("graph nodes: %1").arg(nodes.join(QStringLiteral(", ")));
        }
        return role == SortRole ? QVariant(index.row()) : QVariant(toQString(op.label()));
    case QuantColumn:
    case KernelColumn:
    case TotalColumn: {
        const evalgap::ErrorPart &p = partOf(op, col);
        if (!p.valid)
            return role == SortRole ? QVariant(-1.0) : QVariant();
        if (role == SortRole)
            return p.excess;
        if (role == Qt::ToolTipRole)
            return tr("%1 %2 (noise level %3, SNR %4 dB)%5")
                .arg(QString::fromLatin1(analysis::metricName(m_d->metric)), toQString(fullPrecisionText(p.gap)),
                    formatGap(p.noise), formatGap(p.snrDb), p.flagged ? tr(", above the noise level") : QString());
        return QString(formatGap(p.gap) + (p.flagged ? QStringLiteral(" ▲") : QString()));
    }
    case DominantColumn:
        return QString::fromLatin1(evalgap::dominantName(op.dominant));
    case QuantShareColumn: {
        const double q = evalgap::errorSplit(op, m_d->metric).quant;
        if (role == SortRole)
            return std::isnan(q) ? -1.0 : q;
        if (role == Qt::ToolTipRole)
            return tr(
                "Share of the error power (10^(−SNR/10)) that quantization introduces; the kernels hold the rest");
        return std::isnan(q) ? QString() : QStringLiteral("%1 %").arg(q * 100, 0, 'f', 0);
    }
    case NoteColumn:
        return toQString(op.note);
    default:
        return {};
    }
}

QVariant DecompositionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= NUM_COLUMNS)
        return {};
    const QString metric = m_d ? QString::fromLatin1(analysis::metricName(m_d->metric)) : QStringLiteral("MSE");
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case QuantColumn:
            return tr("Quantization error: the float twin (every quantize→dequantize pair passed through) against "
                      "the fake-quantized graph, both run by etscope");
        case KernelColumn:
            return tr("Kernel error: the fake-quantized graph against the runtime's output");
        case TotalColumn:
            return tr("Total error: the float twin against the runtime's output");
        case DominantColumn:
            return tr("The larger part above the noise level; noise when neither is");
        default:
            return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case OpColumn:
        return tr("op");
    case QuantColumn:
        return tr("quantization (%1)").arg(metric);
    case KernelColumn:
        return tr("kernel (%1)").arg(metric);
    case TotalColumn:
        return tr("total (%1)").arg(metric);
    case DominantColumn:
        return tr("dominant");
    case QuantShareColumn:
        return tr("quantization share");
    case NoteColumn:
        return tr("note");
    default:
        return {};
    }
}

} // namespace etscope
