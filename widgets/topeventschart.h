#pragma once

#include "session/session.h"

#include <QWidget>

#include <memory>
#include <vector>

class QChart;
class QChartView;
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
    int barCount() const { return int(m_entries.size()); }

Q_SIGNALS:
    void eventClicked(int blockIndex, int eventIndex);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void updateMinimumHeight();
    void rebuild();

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
};

} // namespace etscope
