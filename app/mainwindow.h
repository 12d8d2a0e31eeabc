#pragma once

#include "session/session.h"
#include "sessionloader.h"

#include <QMainWindow>
#include <QPointer>

#include <memory>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QFrame;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QTimer;
class QToolButton;
class QTreeView;

namespace etscope {

class DetailsPanel;
class EventFilterProxy;
class EventTreeModel;
class HistogramWidget;
class ModuleRollupView;
class TimelineWidget;
class TopEventsChart;

// "recorded prefix = local folder" lines of the Source Roots setting.
QList<QPair<QString, QString>> parseSourceRoots(const QStringList &lines);

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

    // Sniffs the files by content and loads in the background (see openFilesSync for scripts).
    void openFiles(const QStringList &paths);
    // Loads on the calling thread; returns false and sets `error` (one line) on failure.
    bool openFilesSync(const QStringList &paths, QString *error = nullptr);

    // Extension point for analysis views added by other parts of the app.
    // Docks added after construction become a tab next to Details (RightDockWidgetArea) or the
    // Timeline (anything else) unless the saved layout places them.
    QDockWidget *addAnalysisDock(QWidget *widget, const QString &title, const QString &objectName,
        Qt::DockWidgetArea area = Qt::BottomDockWidgetArea);

    const std::shared_ptr<const Session> &session() const { return m_session; }
    bool isLoading() const;
    QString lastError() const { return m_lastError; }
    QString statusText() const;
    QString pendingDebugBuffer() const { return m_waitingDebugBuffer; }
    // Companions opened before their ETDump, paired with the next ETDump opened.
    QString pendingETRecord() const { return m_waitingETRecord; }
    QString pendingBundledProgram() const { return m_waitingBundledProgram; }
    // A warning in the message bar (not an error: lastError() is unchanged).
    void showWarning(const QString &message);
    // Puts docks and toolbars back where a fresh install has them.
    void resetLayout();
    QComboBox *unitBox() const { return m_unitBox; }
    QComboBox *sourceBox() const { return m_sourceBox; }
    QString messageText() const;
    // Selected rows as the clipboard gets them on Ctrl+C: a header line, then one tab-separated
    // line per row with the visible columns in view order.
    QString selectedRowsAsTsv() const;
    // Every shortcut of the window, "Ctrl+O\tOpen…" per line (Help ▸ Keyboard Shortcuts).
    QString shortcutsText() const;
    QMenu *helpMenu() const { return m_helpMenu; }
    QString summaryText() const; // the status-bar summary ("etdump.etdp · 2 blocks · 1 run …")
    // Recent-file sets, newest first; files of one set joined by '\n'.
    QStringList recentFiles() const { return m_recentFiles; }

    // Writes the table as TSV (.tsv) or CSV (.csv) exactly as `etscope-cli tsv`/`csv`.
    bool exportTable(const QString &path, QString *error = nullptr);
    // Renders a chart ("histogram", "top-events", "timeline") itself at `size` to PNG or SVG.
    bool exportChart(const QString &name, const QString &path, QSize size, QString *error = nullptr);
    // Selects the first event (in file order) with this name; false if none.
    bool selectEventByName(const QString &name);

    EventTreeModel *treeModel() const { return m_model; }
    EventFilterProxy *proxyModel() const { return m_proxy; }
    QTreeView *treeView() const { return m_tree; }
    QLineEdit *filterEdit() const { return m_filter; }
    DetailsPanel *detailsPanel() const { return m_details; }
    HistogramWidget *histogram() const { return m_histogram; }
    TopEventsChart *topEventsChart() const { return m_topChart; }
    TimelineWidget *timeline() const { return m_timeline; }
    ModuleRollupView *moduleRollup() const { return m_modules; }
    QFrame *messageBar() const { return m_messageBar; }
    void setTargetUnit(TimeScale unit);
    // Source unit of the raw ticks; cyclesPerSecond is used when the source is cycles.
    void setSourceUnit(TimeScale source, double cyclesPerSecond = 0);
    TimeConversion timeConversion() const { return currentTimeConversion(); }

public Q_SLOTS:
    void selectEvent(int blockIndex, int eventIndex);

Q_SIGNALS:
    void sessionChanged(std::shared_ptr<const etscope::Session> session);
    void loadFinished(bool ok);
    // Files dropped with Shift held while a recording is open: compare it with them (B).
    void compareRequested(const QStringList &paths);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createUsabilityActions(); // app/usability.cpp: copy, context menus, column chooser, help
    void createCentral();
    void createDocks();
    void restoreSettings();
    void saveSettings();
    void startLoad(const SessionInputs &inputs);
    void onLoadFinished(quint64 id, const LoadOutcome &outcome);
    void setSession(std::shared_ptr<const Session> session);
    SessionInputs composeInputs(const QStringList &paths, bool *ready);
    void showError(const QString &message);
    void showInfo(const QString &message);
    void hideMessage();
    void addRecentFiles(const SessionInputs &inputs);
    void updateRecentMenu();
    void applyFilter();
    void onCurrentChanged(const QModelIndex &current);
    void reloadWithTimeSettings();
    TimeConversion currentTimeConversion() const;
    void exportTableInteractive();
    void exportChartInteractive(QWidget *chart, const QString &name);
    void showAbout();
    void setDefaultColumnWidths();
    void syncTimeControls();
    void updateUnitChoices();

    Options m_options;
    SessionLoader *m_loader = nullptr;
    std::shared_ptr<const Session> m_session;
    SessionInputs m_lastInputs;
    QString m_waitingDebugBuffer;
    QString m_waitingETRecord;
    QString m_waitingBundledProgram;
    QByteArray m_defaultState; // saveState() right after the docks were created
    QByteArray m_restoredState; // the saved layout restored at start (empty: none)
    QString m_lastError;
    QStringList m_recentFiles;

    EventTreeModel *m_model = nullptr;
    EventFilterProxy *m_proxy = nullptr;
    QTreeView *m_tree = nullptr;
    QLineEdit *m_filter = nullptr;
    QToolButton *m_regexButton = nullptr;
    QTimer *m_filterTimer = nullptr;
    QAction *m_delegatedOnly = nullptr;
    QAction *m_hideFramework = nullptr;
    QAction *m_hideOperatorCalls = nullptr;
    QComboBox *m_unitBox = nullptr;
    QComboBox *m_sourceBox = nullptr;
    QDoubleSpinBox *m_cyclesPerSecond = nullptr;
    QAction *m_cyclesAction = nullptr;

    QFrame *m_messageBar = nullptr;
    QLabel *m_messageLabel = nullptr;
    QLabel *m_summary = nullptr;
    QProgressBar *m_progress = nullptr;
    QToolButton *m_cancelButton = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QMenu *m_helpMenu = nullptr;

    DetailsPanel *m_details = nullptr;
    HistogramWidget *m_histogram = nullptr;
    TopEventsChart *m_topChart = nullptr;
    TimelineWidget *m_timeline = nullptr;
    ModuleRollupView *m_modules = nullptr;
    QDockWidget *m_histogramDock = nullptr;
};

} // namespace etscope
