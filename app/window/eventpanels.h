#pragma once

#include "panel.h"
#include "session/scope.h"
#include "session/session.h"

#include <memory>

class QDockWidget;

namespace etscope {

class DetailsPanel;
class HistogramWidget;
class ModuleRollupView;
class TimelineWidget;
class TopEventsChart;

// The panels of one event: Details (properties, stack trace, modules, debug data and what the
// session's program says about its instruction) and the latency histogram of its runs.
class EventDetailsDocks : public Panel
{
    Q_OBJECT
public:
    EventDetailsDocks(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<Chart> charts() const override;
    DetailsPanel *details() const { return m_details; }
    HistogramWidget *histogram() const { return m_histogram; }

Q_SIGNALS:
    // A histogram bar was clicked: its runs (the timeline shows them).
    void runsSelected(const QList<int> &runs, const QString &what);

private:
    void showEvent(int block, int event);

    std::shared_ptr<const Session> m_session;
    std::shared_ptr<const ScopedBlocks> m_scoped;
    int m_block = -1, m_event = -1; // shown
    QList<int> m_valueRuns; // per histogram value: its run of the block (when scoped)
    DetailsPanel *m_details;
    HistogramWidget *m_histogram;
    QDockWidget *m_detailsDock;
    QDockWidget *m_histogramDock;
};

// The run timeline: every event of one run of a block on its lane.
class TimelineDock : public Panel
{
    Q_OBJECT
public:
    TimelineDock(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<Chart> charts() const override;
    TimelineWidget *timeline() const { return m_timeline; }
    // Runs picked elsewhere: brought into view, the first shown.
    void showRuns(const QList<int> &runs, const QString &what);

private:
    TimelineWidget *m_timeline;
    QDockWidget *m_dock;
};

// The events that take the most time.
class TopEventsDock : public Panel
{
    Q_OBJECT
public:
    TopEventsDock(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<Chart> charts() const override;
    TopEventsChart *chart() const { return m_chart; }

private:
    TopEventsChart *m_chart;
    QDockWidget *m_dock;
};

// Latency per nn.Module of the ETRecord, as a tree.
class ModulesDock : public Panel
{
    Q_OBJECT
public:
    ModulesDock(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    ModuleRollupView *view() const { return m_view; }

Q_SIGNALS:
    // A module was activated: the table filters to its events.
    void moduleActivated(const QString &displayPath);

private:
    ModuleRollupView *m_view;
    QDockWidget *m_dock;
};

} // namespace etscope
