#pragma once

#include "session/scope.h"
#include "session/session.h"
#include "timelinelayout.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QSpinBox;
class QLabel;

namespace etscope {

class TimelineCanvas;

// One run of one block as nested bars on a time axis: wheel zooms around the cursor, drag pans,
// hovering shows the event, clicking selects it.
class TimelineWidget : public QWidget
{
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget *parent = nullptr);

    void setSession(std::shared_ptr<const Session> session);
    // Keeps the run shown while `scoped` holds it, else shows the scope's first run.
    void showScope(const ScopedBlocks &scoped);
    // Shows the block of the event (keeping the run) and highlights the event.
    void highlightEvent(int blockIndex, int eventIndex);
    const TimelineLayout &layout(); // lays out first if the timeline was hidden
    int currentBlock() const { return m_block; }
    QWidget *canvas() const;
    int currentRun() const;
    // Runs picked elsewhere (a histogram bar), as runs of the block shown: shows the first, names
    // them all in the info line after `what` ("histogram bar 1 – 2 ms").
    void showRuns(const QList<int> &runs, const QString &what);
    QList<int> markedRuns() const { return m_markedRuns; }
    QString infoText();
    bool layoutPending() const { return m_stale; } // hidden since its session or run changed

Q_SIGNALS:
    void eventClicked(int blockIndex, int eventIndex);

private:
    friend class TimelineCanvas; // lays out on its first paint
    void rebuild();
    void layOut(); // of the current block and run, now
    void layOutIfStale();

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const HostClockOffsets> m_host; // backend events placed on the host's clock
    int m_block = -1;
    QComboBox *m_blockBox = nullptr;
    QSpinBox *m_runBox = nullptr;
    QLabel *m_info = nullptr;
    QList<int> m_markedRuns;
    QString m_markedWhat;
    TimelineCanvas *m_canvas = nullptr;
    bool m_stale = false; // a layout is owed since the timeline was hidden
};

} // namespace etscope
