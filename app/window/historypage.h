#pragma once

#include "analysis/history.h"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace etscope {

class HistoryChart;
class HistoryModel;

// What the History panel shows of its histories (one per HistoryBy over the same recordings):
// a summary (recordings, programs, change points, the method and its parameters, warnings), the
// series as a table (model/historymodel.h), the chosen series' trend (widgets/history) and its
// change points, each with a link to compare the recordings on either side. It asks for
// recordings to be opened or compared by path; the panel routes that to the session.
class HistoryPage : public QWidget
{
    Q_OBJECT
public:
    explicit HistoryPage(QWidget *parent = nullptr);

    void setHistories(std::vector<std::shared_ptr<const History>> histories);
    void setMessage(const QString &text); // instead of a history: why there is none

    HistoryModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    HistoryChart *chart() const { return m_chart; }
    QString figuresText() const;
    QString changesText() const;
    // Shows the series of model row `row` in the chart.
    void selectRow(int row);
    int selectedRow() const { return m_row; }

Q_SIGNALS:
    void openRequested(const QString &file);
    void compareRequested(const QString &before, const QString &after);

private:
    void showRow(int row);
    void requestCompare(const History &h, std::size_t change);

    HistoryModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_figures;
    QTableView *m_table;
    HistoryChart *m_chart;
    QLabel *m_changes;
    QSplitter *m_split;
    int m_row = -1;
};

} // namespace etscope
