#pragma once

#include "session/session.h"

#include <QWidget>

#include <memory>
#include <vector>

class QChart;
class QChartView;
class QLabel;
class QSpinBox;

namespace etscope {

// Overview: the N events with the largest average latency across the session, as horizontal
// bars. Framework events and OPERATOR_CALL wrappers are left out: they contain the kernels and
// would only repeat them. Clicking a bar selects that event.
class TopEventsChart : public QWidget
{
    Q_OBJECT
public:
    explicit TopEventsChart(QWidget *parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    void setTopN(int n);
    QChart *chart() const { return m_chart; }
    QWidget *chartView() const;
    int barCount() const { return int(m_entries.size()); } // the top N chosen
    // Bars drawn: the slowest of the top N, as many as the height shows with a readable name
    // each; the value axis always stays in view.
    int visibleBarCount() const { return m_shown; }
    QString caption() const;

Q_SIGNALS:
    void eventClicked(int blockIndex, int eventIndex);

protected:
    void showEvent(QShowEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    int barsThatFit() const;
    void rebuild();
    void draw();

    struct Entry {
        int block;
        int event;
        double avg;
    };
    std::shared_ptr<const Session> m_session;
    std::vector<Entry> m_entries;
    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QSpinBox *m_topN = nullptr;
    QLabel *m_caption = nullptr;
    int m_shown = 0;
};

} // namespace etscope
