#pragma once

#include "session/scope.h"
#include "session/session.h"

#include <QWidget>

#include <memory>
#include <vector>

class QChart;
class QChartView;
class QCheckBox;
class QLabel;
class QSpinBox;

namespace etscope {

// Overview: the N events with the largest average latency over the runs in scope (the whole
// session, or a method and phase), as horizontal bars. Framework events and OPERATOR_CALL
// wrappers are left out: they contain the kernels and would only repeat them. A backend event
// etscope decodes is named by its operator (the raw name one click away, and in its tooltip).
// Clicking a bar selects that event.
class TopEventsChart : public QWidget
{
    Q_OBJECT
public:
    explicit TopEventsChart(QWidget *parent = nullptr);

    void setSession(std::shared_ptr<const Session> session); // the whole recording
    // The runs `scoped` selects of `session` (null: the whole recording), named in the caption.
    void setScoped(std::shared_ptr<const Session> session, std::shared_ptr<const ScopedBlocks> scoped);
    // Names as the runtime logged them instead of the decoded backend operators.
    void setRawNames(bool raw);
    // For tests: the bars' events (session block, event), slowest first, and their averages.
    struct Entry {
        int block; // the session's block
        int event;
        double avg;
        QString label; // the decoded operator, or the event's name
    };
    const std::vector<Entry> &entries() const { return m_entries; }
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

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const ScopedBlocks> m_scoped;
    std::vector<Entry> m_entries;
    QChart *m_chart = nullptr;
    QChartView *m_view = nullptr;
    QSpinBox *m_topN = nullptr;
    QLabel *m_caption = nullptr;
    QCheckBox *m_raw = nullptr;
    int m_shown = 0;
};

} // namespace etscope
