#pragma once

#include "analysis/runscompare.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace etscope {

// N recordings side by side (analysis/runscompare.h): one row per figure in the CLI's order
// (runs, time to first token, per phase runs / median / tokens/s, coverage, per-phase operator
// shares), the first column the figure, then one column per recording, named by what tells the
// recordings apart. The cells read as `etscope-cli runs -e A -e B` prints them; SortRole holds the
// number (absent: no value). Only adapts.
class SideBySideModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    explicit SideBySideModel(QObject *parent = nullptr);

    void setRecordings(QStringList names, std::vector<SideBySideRow> rows);
    const std::vector<SideBySideRow> &rows() const { return m_rows; }
    const QStringList &names() const { return m_names; }

    // The rows a grouped bar chart draws together: the same figure over phases ("median run (ms)"
    // per phase) or over operators (the shares of one phase), with its unit; groups without a
    // single value are left out.
    struct Group {
        QString title, unit;
        std::vector<int> rows;
        QStringList categories; // per row: the phase, the operator or the figure
    };
    std::vector<Group> groups() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QStringList m_names;
    std::vector<SideBySideRow> m_rows;
};

} // namespace etscope
