#include "sidebysidemodel.h"

#include "modelroles.h"
#include "qtstrings.h"

#include <algorithm>

namespace etscope {

SideBySideModel::SideBySideModel(QObject *parent)
    : QAbstractTableModel(parent)
{ }

void SideBySideModel::setRecordings(QStringList names, std::vector<SideBySideRow> rows)
{
    beginResetModel();
    m_names = std::move(names);
    m_rows = std::move(rows);
    endResetModel();
}

std::vector<SideBySideModel::Group> SideBySideModel::groups() const
{
    std::vector<Group> out;
    auto groupOf = [&](const QString &title, const QString &unit) -> Group & {
        for (Group &g : out)
            if (g.title == title)
                return g;
        out.push_back({ title, unit, {}, {} });
        return out.back();
    };
    for (std::size_t i = 0; i < m_rows.size(); ++i) {
        const SideBySideRow &r = m_rows[i];
        if (std::none_of(r.values.begin(), r.values.end(), [](const auto &v) { return v.has_value(); }))
            continue;
        const QString phase = toQString(r.phase);
        Group *g = nullptr;
        QString category = phase;
        switch (r.kind) {
        case SideBySideKind::Runs:
            g = &groupOf(tr("Runs"), tr("runs"));
            category = tr("all phases");
            break;
        case SideBySideKind::TimeToFirstToken:
            g = &groupOf(tr("Time to first token"), tr("ms"));
            category = tr("time to first token");
            break;
        case SideBySideKind::PhaseRuns:
            g = &groupOf(tr("Runs"), tr("runs"));
            break;
        case SideBySideKind::PhaseMedian:
            g = &groupOf(tr("Median run per phase"), tr("ms"));
            break;
        case SideBySideKind::PhaseTokensPerS:
            g = &groupOf(tr("Tokens/s per phase"), tr("tokens/s"));
            break;
        case SideBySideKind::Coverage:
            g = &groupOf(tr("Coverage: events / Method::execute"), tr("%"));
            category = tr("events explain");
            break;
        case SideBySideKind::Share:
            g = &groupOf(tr("Operator shares of %1").arg(phase), tr("% of the phase's operator time"));
            category = toQString(r.op);
            break;
        }
        g->rows.push_back(int(i));
        g->categories << category;
    }
    return out;
}

int SideBySideModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int SideBySideModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : 1 + int(m_names.size());
}

QVariant SideBySideModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const SideBySideRow &row = m_rows[std::size_t(index.row())];
    if (index.column() == 0)
        return role == Qt::DisplayRole || role == SortRole ? QVariant(toQString(row.label)) : QVariant();
    const std::size_t i = std::size_t(index.column() - 1);
    const std::optional<double> v = i < row.values.size() ? row.values[i] : std::nullopt;
    switch (role) {
    case Qt::DisplayRole:
        return toQString(sideBySideCell(row.kind, v));
    case SortRole:
        return v ? QVariant(*v) : QVariant();
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant SideBySideModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section == 0)
        return tr("figure");
    return section - 1 < m_names.size() ? QVariant(m_names[section - 1]) : QVariant();
}

} // namespace etscope
