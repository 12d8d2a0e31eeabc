#pragma once

#include "exportactions.h"
#include "panel.h"
#include "sessioncontroller.h"

#include "messagebar.h"

#include <QLabel>
#include <QMainWindow>
#include <QStatusBar>

class QDockWidget;
class QMenu;

namespace etscope {

class CompareDocks;
class DetailsPanel;
class EventTableView;
class GapDocks;
class GraphDock;
class MemoryPanel;
class HistogramWidget;
class MessageBar;
class ModuleRollupView;
class TimeControls;
class TimelineWidget;
class TopEventsChart;

// The window (after hotspot's MainWindow): menus, toolbar, docks, settings and the message bar.
// Opening lives in SessionController, the table in EventTableView, analysis docks in Panels.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    struct Options {
        bool interactive = true; // errors also pop up a dialog
        bool persistSettings = true; // read/write QSettings (off for --screenshot)
    };
    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    SessionController *controller() const { return m_controller; }
    EventSelection *selection() const { return m_selection; }
    EventTableView *table() const { return m_table; }
    TimeControls *timeControls() const { return m_time; }
    GapDocks *gapDocks() const { return m_gap; }
    CompareDocks *compareDocks() const { return m_compare; }
    GraphDock *graphDock() const { return m_graph; }
    MemoryPanel *memoryPanel() const { return m_memory; }
    // Opens the .pte programs among `paths` (sniffed by content) in the Memory panel, where they
    // pair with the ETDump; returns the other paths, for the session controller.
    QStringList openPrograms(const QStringList &paths);
    DetailsPanel *detailsPanel() const { return m_details; }
    HistogramWidget *histogram() const { return m_histogram; }
    TopEventsChart *topEventsChart() const { return m_topChart; }
    TimelineWidget *timeline() const { return m_timeline; }
    ModuleRollupView *moduleRollup() const { return m_modules; }
    QMenu *helpMenu() const { return m_helpMenu; }
    MessageBar *messageBar() const { return m_messageBar; }

    QString lastError() const { return m_lastError; } // the error in the message bar, if any
    QString messageText() const { return m_messageBar->text(); }
    QString statusText() const
    {
        return m_messageBar->isVisible() ? m_messageBar->text() : statusBar()->currentMessage();
    }
    QString summaryText() const { return m_summary->text(); } // "etdump.etdp · 2 blocks · 1 run …"
    // Puts docks and toolbars back where a fresh install has them.
    void resetLayout();
    // Renders a chart ("histogram", "top-events", "timeline") itself at `size` to PNG or SVG.
    bool exportChart(const QString &name, const QString &path, QSize size, QString *error = nullptr);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createCentral();
    void createDocks();
    void createActions();
    void addPanel(Panel *panel);
    void placeDock(const Panel::Dock &dock);
    void restoreSettings();
    void saveSettings();
    void showMessage(MessageKind kind, const QString &text, int timeoutMs = 0);
    void hideMessage();
    void showSession(const std::shared_ptr<const Session> &session);
    void showCurrentEvent(int blockIndex, int eventIndex);
    void updateRecentMenu();
    ExportFeedback exportFeedback();
    void exportChartInteractive(const QString &name);

    Options m_options;
    SessionController *m_controller;
    EventSelection *m_selection;
    QByteArray m_defaultState; // saveState() right after the window's own docks were created
    QByteArray m_restoredState; // the saved layout restored at start (empty: none)
    QString m_lastError;

    EventTableView *m_table = nullptr;
    TimeControls *m_time = nullptr;
    MessageBar *m_messageBar = nullptr;
    QLabel *m_summary = nullptr;
    QMenu *m_fileMenu = nullptr;
    QAction *m_afterRecent = nullptr; // File-menu actions of panels go before this
    QMenu *m_recentMenu = nullptr;
    QMenu *m_panelsMenu = nullptr;
    QMenu *m_analysisMenu = nullptr;
    QMenu *m_helpMenu = nullptr;

    DetailsPanel *m_details = nullptr;
    HistogramWidget *m_histogram = nullptr;
    TopEventsChart *m_topChart = nullptr;
    TimelineWidget *m_timeline = nullptr;
    ModuleRollupView *m_modules = nullptr;
    GapDocks *m_gap = nullptr;
    CompareDocks *m_compare = nullptr;
    GraphDock *m_graph = nullptr;
    MemoryPanel *m_memory = nullptr;
};

} // namespace etscope
