#pragma once

#include "eventpanels.h"
#include "exportactions.h"
#include "panel.h"
#include "sessioncontroller.h"

#include "messagebar.h"

#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>

#include <memory>

class QDockWidget;
class QMenu;

namespace etscope {

class ChartExports;
class CompareDocks;
class DockLayout;
class EventDetailsDocks;
class EventTableView;
class GapDocks;
class RunsPanel;
class GraphDock;
class HistoryPanel;
class MessageBar;
class ModulesDock;
class ScopeControls;
class TimeControls;
class TimelineDock;
class TopEventsDock;

// The window (after hotspot's MainWindow): menus, toolbar, docks, settings and the message bar.
// Opening lives in SessionController, the table in EventTableView, analysis docks in Panels.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    struct Options {
        bool persistSettings = true; // read/write QSettings (off for --screenshot)
    };
    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    SessionController *controller() const { return m_controller; }
    EventTableView *table() const { return m_table; }
    TimeControls *timeControls() const { return m_time; }
    GapDocks *gapDocks() const { return m_gap; }
    CompareDocks *compareDocks() const { return m_compare; }
    GraphDock *graphDock() const { return m_graph; }
    HistoryPanel *historyPanel() const { return m_history; } // etscope --history

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createCentral();
    void createPanels();
    void createActions();
    void addPanel(Panel *panel);
    void restoreSettings();
    void saveSettings();
    void showMessage(MessageKind kind, const QString &text, int timeoutMs = 0);
    void hideMessage();
    // Puts docks and toolbars back where a fresh install has them; the window keeps its size.
    void resetLayout();
    void showSession(const std::shared_ptr<const Session> &session);
    void showCoverage(const ScopedBlocks *scoped);
    void updateRecentMenu();
    ExportFeedback exportFeedback();

    Options m_options;
    SessionController *m_controller;
    EventSelection *m_selection;
    std::unique_ptr<DockLayout> m_layout; // fresh-start, saved and reset placement of the docks
    QList<Panel *> m_panels;
    ChartExports *m_charts = nullptr; // a child: found as the window's one chart-export path

    EventTableView *m_table = nullptr;
    TimeControls *m_time = nullptr;
    ScopeControls *m_scope = nullptr;
    MessageBar *m_messageBar = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_coverage = nullptr; // how much of Method::execute the events explain, in scope
    QMenu *m_fileMenu = nullptr;
    QAction *m_afterRecent = nullptr; // File-menu actions of panels go before this
    QMenu *m_recentMenu = nullptr;
    QMenu *m_analysisMenu = nullptr;
    QMenu *m_helpMenu = nullptr;

    EventDetailsDocks *m_details = nullptr;
    TimelineDock *m_timeline = nullptr;
    TopEventsDock *m_topEvents = nullptr;
    ModulesDock *m_modules = nullptr;
    GapDocks *m_gap = nullptr;
    CompareDocks *m_compare = nullptr;
    GraphDock *m_graph = nullptr;
    RunsPanel *m_runs = nullptr;
    HistoryPanel *m_history = nullptr;
};

} // namespace etscope
