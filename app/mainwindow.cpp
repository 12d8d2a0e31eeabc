#include "mainwindow.h"

#include "exportactions.h"

#include "costbardelegate.h"
#include "detailspanel.h"
#include "eventfilterproxy.h"
#include "eventtreemodel.h"
#include "filesniffer.h"
#include "histogramwidget.h"
#include "modelroles.h"
#include "modulerollupview.h"
#include "qtstrings.h"
#include "timelinewidget.h"
#include "topeventschart.h"
#include "widgetexport.h"

#include "etdump/etdumpfile.h"
#include "events/inspectortable.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSaveFile>
#include <QSettings>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

// Resources compiled into a static library must be registered explicitly (outside any namespace).
static void initEtscopeResources()
{
    Q_INIT_RESOURCE(etscope);
}

namespace etscope {

namespace {
constexpr int kMaxRecent = 10;

const TimeScale kUnits[] = { TimeScale::NS, TimeScale::US, TimeScale::MS, TimeScale::S, TimeScale::Cycles };

QIcon themedIcon(const char *theme, const char *resource)
{
    return QIcon::fromTheme(QString::fromLatin1(theme), QIcon(QString::fromLatin1(resource)));
}
} // namespace

MainWindow::MainWindow(QWidget *parent)
    : MainWindow(Options {}, parent)
{ }

MainWindow::MainWindow(const Options &options, QWidget *parent)
    : QMainWindow(parent)
    , m_options(options)
    , m_loader(new SessionLoader(this))
{
    initEtscopeResources();
    setWindowTitle(tr("etscope"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/etscope.svg")));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createCentral();
    createDocks();
    createActions();
    createUsabilityActions();

    connect(m_loader, &SessionLoader::progress, this, [this](quint64, int permille, const QString &stage) {
        m_progress->setValue(permille);
        m_progress->setFormat(stage + QStringLiteral(" %p%"));
    });
    connect(m_loader, &SessionLoader::finished, this, &MainWindow::onLoadFinished);

    resize(1500, 920);
    setDefaultColumnWidths();
    m_defaultState = saveState(); // View ▸ Reset layout goes back to this
    if (m_options.persistSettings)
        restoreSettings();
    updateRecentMenu();
    showInfo(tr("Drop an ETDump (.etdp) here — optionally with its debug buffer, ETRecord or BundledProgram — or use "
                "File ▸ Open."));
}

MainWindow::~MainWindow() = default;

void MainWindow::createCentral()
{
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);

    m_messageBar = new QFrame(central);
    m_messageBar->setFrameShape(QFrame::StyledPanel);
    m_messageLabel = new QLabel(m_messageBar);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QToolButton(m_messageBar);
    close->setAutoRaise(true);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &MainWindow::hideMessage);
    auto *barLayout = new QHBoxLayout(m_messageBar);
    barLayout->setContentsMargins(8, 4, 4, 4);
    barLayout->addWidget(m_messageLabel, 1);
    barLayout->addWidget(close);
    m_messageBar->hide();
    layout->addWidget(m_messageBar);

    auto *filterRow = new QHBoxLayout;
    m_filter = new QLineEdit(central);
    m_filter->setPlaceholderText(tr("Filter events by name, op type or module (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_regexButton = new QToolButton(central);
    m_regexButton->setText(QStringLiteral(".*"));
    m_regexButton->setCheckable(true);
    m_regexButton->setToolTip(tr("Treat the filter as a regular expression"));
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_regexButton);
    layout->addLayout(filterRow);

    m_model = new EventTreeModel(this);
    m_proxy = new EventFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_tree = new QTreeView(central);
    m_tree->setModel(m_proxy);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->header()->setSortIndicator(-1, Qt::AscendingOrder);
    m_tree->setSortingEnabled(true);
    m_tree->header()->setSectionsMovable(true);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_tree->setItemDelegateForColumn(EventTreeModel::AvgColumn, new CostBarDelegate(m_tree));
    layout->addWidget(m_tree, 1);
    setCentralWidget(central);

    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(300);
    connect(m_filterTimer, &QTimer::timeout, this, &MainWindow::applyFilter);
    connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_regexButton, &QToolButton::toggled, this, &MainWindow::applyFilter);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { onCurrentChanged(current); });

    m_summary = new QLabel(this);
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(260);
    m_progress->setTextVisible(true);
    m_progress->hide();
    m_cancelButton = new QToolButton(this);
    m_cancelButton->setText(tr("Cancel"));
    m_cancelButton->hide();
    connect(m_cancelButton, &QToolButton::clicked, m_loader, &SessionLoader::cancel);
    statusBar()->addWidget(m_summary, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancelButton);
}

void MainWindow::createDocks()
{
    m_details = new DetailsPanel(this);
    m_histogram = new HistogramWidget(this);
    m_topChart = new TopEventsChart(this);
    m_timeline = new TimelineWidget(this);

    auto *detailsDock = addAnalysisDock(m_details, tr("Details"), QStringLiteral("DetailsDock"));
    addDockWidget(Qt::RightDockWidgetArea, detailsDock);
    m_histogramDock = addAnalysisDock(m_histogram, tr("Latency histogram"), QStringLiteral("HistogramDock"));
    addDockWidget(Qt::RightDockWidgetArea, m_histogramDock);
    splitDockWidget(detailsDock, m_histogramDock, Qt::Vertical);
    auto *topDock = addAnalysisDock(m_topChart, tr("Top events"), QStringLiteral("TopEventsDock"));
    addDockWidget(Qt::BottomDockWidgetArea, topDock);
    auto *timelineDock = addAnalysisDock(m_timeline, tr("Timeline"), QStringLiteral("TimelineDock"));
    addDockWidget(Qt::BottomDockWidgetArea, timelineDock);
    tabifyDockWidget(timelineDock, topDock);
    m_modules = new ModuleRollupView(this);
    auto *modulesDock = addAnalysisDock(m_modules, tr("Modules"), QStringLiteral("ModulesDock"));
    addDockWidget(Qt::BottomDockWidgetArea, modulesDock);
    tabifyDockWidget(timelineDock, modulesDock);
    timelineDock->raise();
    resizeDocks({ detailsDock, m_histogramDock }, { 440, 360 }, Qt::Vertical);
    resizeDocks({ detailsDock }, { 500 }, Qt::Horizontal);
    resizeDocks({ timelineDock }, { 300 }, Qt::Vertical);

    // Right-click on any chart exports it; the File menu has the same entries.
    const std::pair<QWidget *, QString> charts[] = { { m_histogram, QStringLiteral("histogram") },
        { m_topChart, QStringLiteral("top-events") }, { m_timeline, QStringLiteral("timeline") } };
    for (const auto &[chart, name] : charts) {
        chart->setContextMenuPolicy(Qt::ActionsContextMenu);
        auto *save = new QAction(tr("Save Chart as PNG or SVG…"), chart);
        connect(save, &QAction::triggered, this,
            [this, chart = chart, name = name] { exportChartInteractive(chart, name); });
        chart->addAction(save);
    }
    connect(m_topChart, &TopEventsChart::eventClicked, this, &MainWindow::selectEvent);
    connect(m_timeline, &TimelineWidget::eventClicked, this, &MainWindow::selectEvent);
    // A histogram bar is a set of runs: show them in the timeline (block of the selected event).
    connect(m_histogram, &HistogramWidget::runsSelected, this, [this](const QList<int> &runs, const QString &what) {
        m_timeline->showRuns(runs, what);
        if (auto *dock = qobject_cast<QDockWidget *>(m_timeline->parentWidget())) {
            dock->show();
            dock->raise();
        }
    });
    connect(m_modules, &ModuleRollupView::moduleActivated, this, [this](const QString &path) {
        m_regexButton->setChecked(false);
        m_filter->setText(path);
        applyFilter();
    });
    connect(m_details, &DetailsPanel::frameUnavailable, this,
        [this](const QString &m) { statusBar()->showMessage(m, 8000); });
}

QDockWidget *MainWindow::addAnalysisDock(
    QWidget *widget, const QString &title, const QString &objectName, Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName); // saveState() keys docks by object name
    dock->setWidget(widget);
    dock->setFeatures(
        QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable | QDockWidget::DockWidgetClosable);
    // Small enough for 1500×920 with every panel open, large enough to stay readable.
    widget->setMinimumSize(widget->minimumSize().expandedTo(QSize(240, 140)));
    if (dockWidgetArea(dock) == Qt::NoDockWidgetArea)
        addDockWidget(Qt::BottomDockWidgetArea, dock);
    if (m_viewMenu) {
        // Added after the window restored its layout (docks of other views): put it back where
        // the user left it last time, if the saved state knows it.
        m_viewMenu->addAction(dock->toggleViewAction());
        // restoreDockWidget() also "succeeds" for docks the saved state never saw (Qt 6.4), so
        // look for the dock's name (a QString in the state's big-endian QDataStream) first.
        QByteArray utf16be;
        for (QChar c : objectName)
            utf16be.append(char(c.unicode() >> 8)).append(char(c.unicode() & 0xff));
        if (!(m_restoredState.contains(utf16be) && restoreDockWidget(dock))) {
            // First time: a tab next to Details (right) or the Timeline (bottom), so every panel
            // keeps a usable size at 1500×920 instead of splitting the area ever narrower.
            const QString anchor
                = area == Qt::RightDockWidgetArea ? QStringLiteral("DetailsDock") : QStringLiteral("TimelineDock");
            if (auto *target = findChild<QDockWidget *>(anchor); target && target != dock)
                tabifyDockWidget(target, dock);
        }
    }
    return dock;
}

void MainWindow::createActions()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    auto *open = file->addAction(themedIcon("document-open", ":/icons/open.svg"), tr("&Open…"));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open ETDump and companions"),
            QFileInfo(m_lastInputs.etdump.empty() ? QString() : toQString(m_lastInputs.etdump)).path(),
            tr("ExecuTorch artifacts (*.etdp *.etdump *.bin *.bpte *.zip *.etrecord);;All files (*)"));
        if (!files.isEmpty())
            openFiles(files);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    auto *exportTable = file->addAction(themedIcon("document-save-as", ":/icons/export.svg"), tr("&Export Table…"));
    exportTable->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportTable, &QAction::triggered, this, &MainWindow::exportTableInteractive);
    QMenu *charts = file->addMenu(tr("Export &Chart"));
    connect(charts->addAction(tr("Latency histogram…")), &QAction::triggered, this,
        [this] { exportChartInteractive(m_histogram, QStringLiteral("histogram")); });
    connect(charts->addAction(tr("Top events…")), &QAction::triggered, this,
        [this] { exportChartInteractive(m_topChart, QStringLiteral("top-events")); });
    connect(charts->addAction(tr("Timeline…")), &QAction::triggered, this,
        [this] { exportChartInteractive(m_timeline, QStringLiteral("timeline")); });
    addTraceAndReportExports(
        this, file, [this] { return m_session; }, [this](const QString &e) { showError(e); },
        [this](const QString &m) { statusBar()->showMessage(m, 6000); });
    file->addSeparator();
    auto *quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    auto *focusFilter = view->addAction(tr("&Filter"));
    focusFilter->setShortcut(QKeySequence::Find);
    connect(focusFilter, &QAction::triggered, this, [this] {
        m_filter->setFocus(Qt::ShortcutFocusReason);
        m_filter->selectAll();
    });
    m_delegatedOnly = view->addAction(tr("&Delegated events only"));
    m_hideFramework = view->addAction(tr("Hide &framework events"));
    m_hideOperatorCalls = view->addAction(tr("Hide &OPERATOR_CALL"));
    for (QAction *a : { m_delegatedOnly, m_hideFramework, m_hideOperatorCalls }) {
        a->setCheckable(true);
        connect(a, &QAction::toggled, this, &MainWindow::applyFilter);
    }
    m_delegatedOnly->setToolTip(tr("Show only events logged by a delegate backend"));
    m_hideFramework->setToolTip(tr("Hide Method::init, Program::load_method and Method::execute"));
    m_hideOperatorCalls->setToolTip(tr("Hide OPERATOR_CALL rows (kernel + dispatch), as the Inspector's table does"));
    view->addSeparator();
    connect(view->addAction(tr("E&xpand All")), &QAction::triggered, m_tree, &QTreeView::expandAll);
    connect(view->addAction(tr("&Collapse All")), &QAction::triggered, m_tree, &QTreeView::collapseAll);
    view->addSeparator();
    auto *reset = view->addAction(tr("&Reset Layout"));
    reset->setToolTip(tr("Put every panel back where a fresh start has it"));
    connect(reset, &QAction::triggered, this, &MainWindow::resetLayout);
    m_viewMenu = view->addMenu(tr("&Panels"));
    const auto docks = findChildren<QDockWidget *>();
    for (QDockWidget *d : docks)
        m_viewMenu->addAction(d->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    m_helpMenu = help;
    auto *about = help->addAction(tr("&About etscope"));
    about->setShortcut(QKeySequence::HelpContents);
    connect(about, &QAction::triggered, this, &MainWindow::showAbout);
    connect(help->addAction(tr("About &Qt")), &QAction::triggered, qApp, &QApplication::aboutQt);

    // Toolbar: the things used every minute.
    QToolBar *tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("MainToolBar"));
    tb->setMovable(false);
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addAction(open);
    tb->addAction(exportTable);
    tb->addSeparator();
    tb->addWidget(new QLabel(tr(" Unit "), tb));
    m_unitBox = new QComboBox(tb);
    for (TimeScale t : kUnits)
        m_unitBox->addItem(toQString(timeScaleName(t)), int(t));
    m_unitBox->setCurrentIndex(2); // ms, the Inspector's default
    m_unitBox->setToolTip(tr("Unit of every duration shown (re-derives all statistics)"));
    tb->addWidget(m_unitBox);
    tb->addWidget(new QLabel(tr("  Source "), tb));
    m_sourceBox = new QComboBox(tb);
    m_sourceBox->addItem(tr("ns timestamps"), int(TimeScale::NS));
    m_sourceBox->addItem(tr("cycles"), int(TimeScale::Cycles));
    m_sourceBox->setToolTip(tr("Unit of the raw timestamps in the ETDump (ETDumps carry no unit)"));
    tb->addWidget(m_sourceBox);
    m_cyclesPerSecond = new QDoubleSpinBox(tb);
    m_cyclesPerSecond->setRange(0.001, 100000);
    m_cyclesPerSecond->setDecimals(3);
    m_cyclesPerSecond->setValue(1000);
    m_cyclesPerSecond->setSuffix(tr(" MHz"));
    m_cyclesPerSecond->setToolTip(tr("Clock rate used to turn cycles into time"));
    m_cyclesAction = tb->addWidget(m_cyclesPerSecond);
    m_cyclesAction->setVisible(false);
    tb->addSeparator();
    tb->addAction(m_delegatedOnly);
    tb->addAction(m_hideFramework);
    tb->addAction(m_hideOperatorCalls);
    m_delegatedOnly->setText(tr("Delegated only"));
    m_hideFramework->setText(tr("Hide framework"));
    m_hideOperatorCalls->setText(tr("Hide OPERATOR_CALL"));

    connect(m_unitBox, &QComboBox::currentIndexChanged, this, &MainWindow::reloadWithTimeSettings);
    connect(m_sourceBox, &QComboBox::currentIndexChanged, this, [this] {
        const bool cycles = m_sourceBox->currentData().toInt() == int(TimeScale::Cycles);
        if (!cycles && m_unitBox->currentData().toInt() == int(TimeScale::Cycles)) {
            // Back to ns: cycles is no longer a possible target; one reload for both changes.
            const QSignalBlocker block(m_unitBox);
            m_unitBox->setCurrentIndex(m_unitBox->findData(int(TimeScale::MS)));
        }
        reloadWithTimeSettings();
    });
    updateUnitChoices();
    connect(m_cyclesPerSecond, &QDoubleSpinBox::editingFinished, this, &MainWindow::reloadWithTimeSettings);
}

void MainWindow::resetLayout()
{
    const auto docks = findChildren<QDockWidget *>();
    for (QDockWidget *d : docks)
        d->setFloating(false);
    restoreState(m_defaultState);
    resize(1500, 920);
    setDefaultColumnWidths();
}

void MainWindow::setDefaultColumnWidths()
{
    QHeaderView *h = m_tree->header();
    h->resizeSection(EventTreeModel::NameColumn, 300);
    for (int c = EventTreeModel::P10Column; c <= EventTreeModel::MaxColumn; ++c)
        h->resizeSection(c, 84);
    h->resizeSection(EventTreeModel::OpTypesColumn, 200);
    h->resizeSection(EventTreeModel::DelegatedColumn, 72);
    h->resizeSection(EventTreeModel::BackendColumn, 110);
    h->resizeSection(EventTreeModel::DebugHandlesColumn, 100);
    h->resizeSection(EventTreeModel::ModuleColumn, 160);
    h->resizeSection(EventTreeModel::InstructionColumn, 56);
    h->resizeSection(EventTreeModel::RunsColumn, 52);
}

TimeConversion MainWindow::currentTimeConversion() const
{
    TimeConversion t;
    t.target = TimeScale(m_unitBox->currentData().toInt());
    t.source = TimeScale(m_sourceBox->currentData().toInt());
    if (t.source == TimeScale::Cycles)
        t.cyclesPerSecond = m_cyclesPerSecond->value() * 1e6;
    return t;
}

void MainWindow::setTargetUnit(TimeScale unit)
{
    const int i = m_unitBox->findData(int(unit));
    if (i >= 0)
        m_unitBox->setCurrentIndex(i);
}

void MainWindow::setSourceUnit(TimeScale source, double cyclesPerSecond)
{
    {
        // One reload for both changes.
        const QSignalBlocker blockRate(m_cyclesPerSecond);
        if (cyclesPerSecond > 0)
            m_cyclesPerSecond->setValue(cyclesPerSecond / 1e6);
    }
    const int i = m_sourceBox->findData(int(source));
    if (i >= 0 && i != m_sourceBox->currentIndex())
        m_sourceBox->setCurrentIndex(i);
    else
        reloadWithTimeSettings();
}

void MainWindow::reloadWithTimeSettings()
{
    updateUnitChoices();
    const TimeConversion time = currentTimeConversion();
    if (auto factor = time.scaleFactor(); !factor) {
        // Not offered in the combo, but reachable through setTargetUnit: refuse and show the
        // unit the numbers really are in.
        showError(tr("Cannot show %1 as %2: %3")
                      .arg(m_sourceBox->currentText(), m_unitBox->currentText(), toQString(factor.error().reason)));
        syncTimeControls();
        return;
    }
    if (m_options.persistSettings) {
        QSettings s;
        s.setValue(QStringLiteral("unit"), m_unitBox->currentText());
    }
    if (!m_session)
        return;
    SessionInputs inputs = m_session->inputs;
    inputs.time = time;
    startLoad(inputs);
}

void MainWindow::updateUnitChoices()
{
    // ns timestamps cannot become cycles without a clock rate: do not offer that target.
    const bool cyclesSource = m_sourceBox->currentData().toInt() == int(TimeScale::Cycles);
    m_cyclesAction->setVisible(cyclesSource);
    if (auto *items = qobject_cast<QStandardItemModel *>(m_unitBox->model())) {
        const int i = m_unitBox->findData(int(TimeScale::Cycles));
        if (QStandardItem *item = items->item(i)) {
            item->setEnabled(cyclesSource);
            item->setToolTip(
                cyclesSource ? QString() : tr("Needs Source = cycles: nanosecond timestamps carry no clock rate"));
        }
    }
}

void MainWindow::syncTimeControls()
{
    // The combos always name what the table shows: the loaded session's conversion.
    if (!m_session) {
        updateUnitChoices();
        return;
    }
    const TimeConversion &t = m_session->inputs.time;
    const QSignalBlocker b1(m_unitBox), b2(m_sourceBox), b3(m_cyclesPerSecond);
    m_unitBox->setCurrentIndex(m_unitBox->findData(int(t.target)));
    m_sourceBox->setCurrentIndex(m_sourceBox->findData(int(t.source)));
    if (t.cyclesPerSecond)
        m_cyclesPerSecond->setValue(*t.cyclesPerSecond / 1e6);
    updateUnitChoices();
}

void MainWindow::restoreSettings()
{
    QSettings s;
    restoreGeometry(s.value(QStringLiteral("geometry")).toByteArray());
    m_restoredState = s.value(QStringLiteral("windowState")).toByteArray();
    if (!restoreState(m_restoredState))
        m_restoredState.clear();
    const QByteArray header = s.value(QStringLiteral("treeHeader")).toByteArray();
    if (!header.isEmpty())
        m_tree->header()->restoreState(header);
    m_recentFiles = s.value(QStringLiteral("recentFiles")).toStringList();
    const QString unit = s.value(QStringLiteral("unit")).toString();
    if (auto t = parseTimeScale(unit.toStdString()); t && *t != TimeScale::Cycles) { // cycles needs a cycles source
        QSignalBlocker block(m_unitBox);
        setTargetUnit(*t);
    }
}

void MainWindow::saveSettings()
{
    if (!m_options.persistSettings)
        return;
    QSettings s;
    s.setValue(QStringLiteral("geometry"), saveGeometry());
    s.setValue(QStringLiteral("windowState"), saveState());
    s.setValue(QStringLiteral("treeHeader"), m_tree->header()->saveState());
    s.setValue(QStringLiteral("recentFiles"), m_recentFiles);
    s.setValue(QStringLiteral("unit"), m_unitBox->currentText());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_loader->cancel();
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    QStringList paths;
    const auto urls = event->mimeData()->urls();
    for (const QUrl &url : urls)
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    if ((event->modifiers() & Qt::ShiftModifier) && m_session) {
        Q_EMIT compareRequested(paths); // Shift-drop: B of a latency A/B
        return;
    }
    openFiles(paths);
}

SessionInputs MainWindow::composeInputs(const QStringList &paths, bool *ready)
{
    *ready = false;
    const ClassifiedFiles files = classifyFiles(paths);
    if (!files.errors.isEmpty())
        showError(files.errors.join(QStringLiteral("; ")));
    if (!files.errors.isEmpty() && files.etdump.isEmpty() && files.debugBuffer.isEmpty() && files.etrecord.isEmpty()
        && files.bundledProgram.isEmpty())
        return {};
    if (!files.ignored.isEmpty())
        statusBar()->showMessage(
            tr("Ignored (another file of the same kind was given): %1").arg(files.ignored.join(QStringLiteral(", "))),
            8000);

    SessionInputs inputs;
    if (!files.etdump.isEmpty()) {
        // Companions opened earlier wait for this ETDump; files given with it take precedence.
        inputs.etdump = files.etdump.toStdString();
        inputs.debugBuffer = (!files.debugBuffer.isEmpty() ? files.debugBuffer : m_waitingDebugBuffer).toStdString();
        inputs.etrecord = (!files.etrecord.isEmpty() ? files.etrecord : m_waitingETRecord).toStdString();
        inputs.bundledProgram
            = (!files.bundledProgram.isEmpty() ? files.bundledProgram : m_waitingBundledProgram).toStdString();
        m_waitingDebugBuffer.clear();
        m_waitingETRecord.clear();
        m_waitingBundledProgram.clear();
    } else if (m_session) {
        // Companions dropped onto an open session are paired with the ETDump it shows (never
        // with one that failed to open).
        inputs = m_session->inputs;
        if (!files.debugBuffer.isEmpty())
            inputs.debugBuffer = files.debugBuffer.toStdString();
        if (!files.etrecord.isEmpty())
            inputs.etrecord = files.etrecord.toStdString();
        if (!files.bundledProgram.isEmpty())
            inputs.bundledProgram = files.bundledProgram.toStdString();
    } else {
        QStringList waiting;
        for (auto [given, slot] : { std::pair { &files.debugBuffer, &m_waitingDebugBuffer },
                 std::pair { &files.etrecord, &m_waitingETRecord },
                 std::pair { &files.bundledProgram, &m_waitingBundledProgram } })
            if (!given->isEmpty())
                *slot = *given;
        for (const QString *w : { &m_waitingDebugBuffer, &m_waitingETRecord, &m_waitingBundledProgram })
            if (!w->isEmpty())
                waiting << QFileInfo(*w).fileName();
        if (!waiting.isEmpty() && files.errors.isEmpty())
            showInfo(tr("%1 waiting for its ETDump — drop or open the matching .etdp.")
                         .arg(waiting.join(QStringLiteral(" + "))));
        return {};
    }
    inputs.time = currentTimeConversion();
    *ready = true;
    return inputs;
}

void MainWindow::openFiles(const QStringList &paths)
{
    bool ready = false;
    const SessionInputs inputs = composeInputs(paths, &ready);
    if (ready)
        startLoad(inputs);
}

bool MainWindow::openFilesSync(const QStringList &paths, QString *error)
{
    bool ready = false;
    const SessionInputs inputs = composeInputs(paths, &ready);
    if (!ready) {
        if (error)
            *error = !m_lastError.isEmpty() ? m_lastError : tr("no ETDump among the given files");
        return false;
    }
    m_loader->cancel();
    const LoadOutcome outcome = SessionLoader::loadNow(inputs);
    if (!outcome.error.isEmpty()) {
        // Nothing of the failed set stays: the window keeps showing (and reloading) its session.
        showError(outcome.error);
        syncTimeControls();
        if (error)
            *error = outcome.error;
        return false;
    }
    setSession(outcome.session);
    return true;
}

bool MainWindow::isLoading() const
{
    return m_loader->isLoading();
}

void MainWindow::startLoad(const SessionInputs &inputs)
{
    m_progress->setValue(0);
    m_progress->setFormat(tr("reading %p%"));
    m_progress->show();
    m_cancelButton->show();
    statusBar()->showMessage(tr("Loading %1…").arg(toQString(inputs.etdump)));
    m_loader->load(inputs);
}

void MainWindow::onLoadFinished(quint64, const LoadOutcome &outcome)
{
    m_progress->hide();
    m_cancelButton->hide();
    if (outcome.cancelled) {
        statusBar()->showMessage(tr("Loading cancelled"), 5000);
        syncTimeControls();
        Q_EMIT loadFinished(false);
        return;
    }
    if (!outcome.error.isEmpty()) {
        showError(outcome.error);
        syncTimeControls();
        Q_EMIT loadFinished(false);
        return;
    }
    statusBar()->clearMessage();
    setSession(outcome.session);
    Q_EMIT loadFinished(true);
}

void MainWindow::setSession(std::shared_ptr<const Session> session)
{
    // Keep the selection across unit changes of the same file.
    int keepBlock = -1, keepEvent = -1;
    if (m_session && session && m_session->inputs.etdump == session->inputs.etdump) {
        const QModelIndex cur = m_proxy->mapToSource(m_tree->currentIndex());
        keepBlock = cur.data(BlockIndexRole).toInt();
        keepEvent = cur.isValid() ? cur.data(EventIndexRole).toInt() : -1;
    }
    m_session = std::move(session);
    if (m_session)
        m_lastInputs = m_session->inputs; // only what loaded: a failed open leaves no trace
    m_lastError.clear();
    hideMessage();
    syncTimeControls();
    m_model->setSession(m_session);
    m_details->clear();
    m_histogram->clear();
    m_topChart->setSession(m_session);
    m_timeline->setSession(m_session);
    m_modules->setSession(m_session);
    if (!m_session)
        return;

    // Runs are executions: the runs of blocks that executed the method (Method::execute). The
    // load-time "Default" block is a run_data entry too, but not a run the user asked for.
    std::size_t events = 0, runs = 0, largestBlockRuns = 0;
    for (const EventBlock &b : m_session->blocks) {
        events += b.events.size();
        largestBlockRuns = std::max(largestBlockRuns, b.runIndices.size());
        if (std::any_of(b.events.begin(), b.events.end(), [](const Event &e) { return e.name == "Method::execute"; }))
            runs += b.runIndices.size();
    }
    if (runs == 0)
        runs = largestBlockRuns;
    // Expanding a million rows costs seconds; only open everything for ordinary sizes.
    if (events <= 20000)
        m_tree->expandAll();
    else
        m_tree->expandToDepth(0);
    // Numbers are never cut: each statistic column is as wide as its widest value.
    for (int c = EventTreeModel::P10Column; c <= EventTreeModel::MaxColumn; ++c) {
        m_tree->resizeColumnToContents(c);
        m_tree->setColumnWidth(c, std::max(84, m_tree->columnWidth(c)));
    }
    const QString name = QFileInfo(toQString(m_session->inputs.etdump)).fileName();
    setWindowTitle(tr("%1 — etscope").arg(name));
    // Counts that say what they count: "1 run", never "1 runs".
    auto count = [](std::size_t n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    QString summary = name + QStringLiteral(" · ") + count(m_session->blocks.size(), tr("1 block"), tr("%1 blocks"))
        + QStringLiteral(" · ") + count(events, tr("1 event"), tr("%1 events")) + QStringLiteral(" · ")
        + count(runs, tr("1 run"), tr("%1 runs"));
    if (m_session->debugBuffer)
        summary += tr(" · debug buffer %1").arg(QFileInfo(toQString(m_session->debugBuffer->path())).fileName());
    if (!m_session->inputs.etrecord.empty())
        summary += tr(" · ETRecord %1").arg(QFileInfo(toQString(m_session->inputs.etrecord)).fileName());
    m_summary->setText(summary);
    if (!m_session->warnings.empty()) {
        QStringList w;
        for (const auto &s : m_session->warnings)
            w << toQString(s);
        // Loud (warning colours): a mismatching ETRecord or debug buffer is the first line.
        showWarning(
            (w.size() == 1 ? tr("1 warning: ") : tr("%1 warnings: ").arg(w.size())) + w.join(QStringLiteral("; ")));
    }
    addRecentFiles(m_session->inputs);
    Q_EMIT sessionChanged(m_session);

    if (keepBlock >= 0 && keepEvent >= 0) {
        selectEvent(keepBlock, keepEvent);
        return;
    }
    // Start on the slowest kernel: what a user opens a profile to find.
    int bestBlock = -1, bestEvent = -1;
    double best = -1;
    for (int b = 0; b < int(m_session->blocks.size()); ++b) {
        const auto &evs = m_session->blocks[b].events;
        for (int e = 0; e < int(evs.size()); ++e)
            if (evs[e].perfData && !evs[e].isFramework() && !evs[e].isOperatorCall() && evs[e].perfData->avg > best) {
                best = evs[e].perfData->avg;
                bestBlock = b;
                bestEvent = e;
            }
    }
    if (bestBlock >= 0)
        selectEvent(bestBlock, bestEvent);
}

void MainWindow::selectEvent(int blockIndex, int eventIndex)
{
    QModelIndex source = m_model->indexForEvent(blockIndex, eventIndex);
    if (!source.isValid())
        return;
    QModelIndex proxyIndex = m_proxy->mapFromSource(source);
    if (!proxyIndex.isValid()) {
        // Filtered out: clear the filters rather than silently selecting nothing.
        m_filter->clear();
        for (QAction *a : { m_delegatedOnly, m_hideFramework, m_hideOperatorCalls })
            a->setChecked(false);
        applyFilter();
        proxyIndex = m_proxy->mapFromSource(source);
    }
    if (proxyIndex.isValid()) {
        m_tree->setCurrentIndex(proxyIndex);
        m_tree->scrollTo(proxyIndex);
    }
    // Also when the tree already had this index current (no currentChanged).
    onCurrentChanged(proxyIndex);
}

bool MainWindow::selectEventByName(const QString &name)
{
    if (!m_session)
        return false;
    const std::string wanted = name.toStdString();
    for (int b = 0; b < int(m_session->blocks.size()); ++b) {
        const auto &evs = m_session->blocks[b].events;
        for (int e = 0; e < int(evs.size()); ++e)
            if (evs[e].name == wanted) {
                selectEvent(b, e);
                return true;
            }
    }
    return false;
}

void MainWindow::onCurrentChanged(const QModelIndex &current)
{
    const QModelIndex source = m_proxy->mapToSource(current);
    const Event *event = m_model->eventAt(source);
    if (!event) {
        // A block row: its summary (runs, allocation events per allocator).
        if (source.isValid())
            m_details->setBlock(m_session, source.data(BlockIndexRole).toInt());
        else
            m_details->clear();
        m_histogram->clear();
        return;
    }
    const int block = source.data(BlockIndexRole).toInt();
    const int index = source.data(EventIndexRole).toInt();
    m_details->setEvent(m_session, block, index);
    const QString unit = m_model->unitName();
    if (event->perfData)
        m_histogram->setValues(toQString(event->name), event->perfData->raw, event->perfData->p10, event->perfData->p50,
            event->perfData->p90, unit);
    else
        m_histogram->setValues(toQString(event->name), {}, 0, 0, 0, unit);
    m_timeline->showRuns({}, {});
    m_timeline->highlightEvent(block, index);
}

void MainWindow::applyFilter()
{
    m_filterTimer->stop();
    // Re-filtering rebuilds the proxy's mapping, which collapses the view: remember what was
    // open and selected (as source indices, which survive) and put it back.
    std::vector<QPersistentModelIndex> expanded;
    std::vector<QModelIndex> stack { QModelIndex() };
    while (!stack.empty()) {
        const QModelIndex parent = stack.back();
        stack.pop_back();
        const int rows = m_proxy->rowCount(parent);
        for (int r = 0; r < rows; ++r) {
            const QModelIndex child = m_proxy->index(r, 0, parent);
            if (m_tree->isExpanded(child)) {
                expanded.emplace_back(m_proxy->mapToSource(child));
                stack.push_back(child);
            }
        }
    }
    const QPersistentModelIndex current(m_proxy->mapToSource(m_tree->currentIndex()));

    m_proxy->setDelegatedOnly(m_delegatedOnly->isChecked());
    m_proxy->setHideFramework(m_hideFramework->isChecked());
    m_proxy->setHideOperatorCalls(m_hideOperatorCalls->isChecked());
    m_proxy->setFilterText(m_filter->text(), m_regexButton->isChecked());
    m_filter->setStyleSheet(
        m_proxy->isFilterValid() ? QString() : QStringLiteral("QLineEdit { background: #fbe3e3; }"));
    m_filter->setToolTip(m_proxy->isFilterValid() ? QString() : tr("Invalid regular expression"));
    if (!m_filter->text().isEmpty() || m_delegatedOnly->isChecked()) {
        m_tree->expandAll();
    } else {
        for (const QPersistentModelIndex &source : expanded)
            if (const QModelIndex p = m_proxy->mapFromSource(source); p.isValid())
                m_tree->expand(p);
    }
    if (const QModelIndex p = m_proxy->mapFromSource(current); p.isValid()) {
        m_tree->selectionModel()->setCurrentIndex(p, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_tree->scrollTo(p);
    }
}

void MainWindow::showWarning(const QString &message)
{
    m_messageBar->setStyleSheet(palette().color(QPalette::Window).lightness() < 128
            ? QStringLiteral("QFrame { background: #4a3b10; border: 1px solid #8a7020; border-radius: 3px; }"
                             " QLabel { border: none; color: #ffe9a8; }")
            : QStringLiteral("QFrame { background: #fff3cd; border: 1px solid #e0c060; border-radius: 3px; }"
                             " QLabel { border: none; color: #5c4400; }"));
    m_messageLabel->setText(message);
    m_messageLabel->setToolTip(message);
    m_messageBar->show();
}

QString MainWindow::messageText() const
{
    return m_messageBar->isHidden() ? QString() : m_messageLabel->text();
}

void MainWindow::showError(const QString &message)
{
    m_lastError = message;
    m_messageBar->setStyleSheet(
        QStringLiteral("QFrame { background: #fbe3e3; border: 1px solid #e0a0a0; border-radius: 3px; }"
                       " QLabel { border: none; color: #6b1010; }"));
    m_messageLabel->setText(message);
    m_messageLabel->setToolTip(message);
    m_messageBar->show();
    // One place for an error: the bar above the table (no dialog, no status-bar copy); it
    // stays until dismissed or until something succeeds.
    statusBar()->clearMessage();
}

void MainWindow::showInfo(const QString &message)
{
    m_messageBar->setStyleSheet(
        QStringLiteral("QFrame { background: #e6f0fb; border: 1px solid #a9c5e8; border-radius: 3px; }"
                       " QLabel { border: none; color: #14365e; }"));
    m_messageLabel->setText(message);
    m_messageLabel->setToolTip(message);
    m_messageBar->show();
}

void MainWindow::hideMessage()
{
    m_messageBar->hide();
    m_lastError.clear();
}

QString MainWindow::statusText() const
{
    return m_messageBar->isVisible() ? m_messageLabel->text() : statusBar()->currentMessage();
}

void MainWindow::addRecentFiles(const SessionInputs &inputs)
{
    // One entry per session: the files are re-sniffed when reopened.
    QStringList group;
    for (const std::string *p : { &inputs.etdump, &inputs.debugBuffer, &inputs.etrecord, &inputs.bundledProgram })
        if (!p->empty())
            group << QFileInfo(toQString(*p)).absoluteFilePath();
    const QString entry = group.join(QLatin1Char('\n'));
    m_recentFiles.removeAll(entry);
    m_recentFiles.prepend(entry);
    while (m_recentFiles.size() > kMaxRecent)
        m_recentFiles.removeLast();
    updateRecentMenu();
    if (m_options.persistSettings)
        QSettings().setValue(QStringLiteral("recentFiles"), m_recentFiles);
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const QString &entry : std::as_const(m_recentFiles)) {
        const QStringList files = entry.split(QLatin1Char('\n'));
        QStringList names;
        for (const QString &f : files)
            names << QFileInfo(f).fileName();
        // Runs are often all called etdump.etdp: name the ETDump's folder too.
        if (!files.isEmpty())
            names.front() = QFileInfo(files.front()).dir().dirName() + QLatin1Char('/') + names.front();
        QAction *a = m_recentMenu->addAction(names.join(QStringLiteral(" + ")));
        a->setToolTip(files.join(QLatin1Char('\n')));
        connect(a, &QAction::triggered, this, [this, files] { openFiles(files); });
    }
    m_recentMenu->setEnabled(!m_recentFiles.isEmpty());
}

bool MainWindow::exportTable(const QString &path, QString *error)
{
    auto fail = [&](const QString &msg) {
        if (error)
            *error = msg;
        return false;
    };
    if (!m_session)
        return fail(path + tr(": nothing to export, no ETDump loaded"));
    const char sep = QFileInfo(path).suffix().compare(QStringLiteral("csv"), Qt::CaseInsensitive) == 0 ? ',' : '\t';
    // What is exported is what the table shows: with a filter on, only the rows it lets through.
    const bool filtered = !m_proxy->filterText().isEmpty() || m_proxy->delegatedOnly() || m_proxy->hideFramework()
        || m_proxy->hideOperatorCalls();
    std::vector<EventBlock> visible;
    if (filtered) {
        for (int b = 0; b < int(m_session->blocks.size()); ++b) {
            EventBlock copy = m_session->blocks[b];
            copy.events.clear();
            for (int e = 0; e < int(m_session->blocks[b].events.size()); ++e)
                if (m_proxy->mapFromSource(m_model->indexForEvent(b, e)).isValid())
                    copy.events.push_back(m_session->blocks[b].events[e]);
            if (!copy.events.empty())
                visible.push_back(std::move(copy));
        }
    }
    const std::string text = formatDelimited(filtered ? visible : m_session->blocks, sep);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(path + QStringLiteral(": ") + file.errorString());
    if (file.write(text.data(), qint64(text.size())) != qint64(text.size()) || !file.commit())
        return fail(path + QStringLiteral(": ") + file.errorString());
    return true;
}

void MainWindow::exportTableInteractive()
{
    if (!m_session) {
        showError(tr("Nothing to export: open an ETDump first"));
        return;
    }
    const QString base = QFileInfo(toQString(m_session->inputs.etdump)).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export table"), base + QStringLiteral(".tsv"),
        tr("Tab-separated, as Inspector.save_data_to_tsv (*.tsv);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (exportTable(path, &error)) {
        if (!m_lastError.isEmpty())
            hideMessage(); // an earlier error is no longer the news
        statusBar()->showMessage(tr("Table written to %1").arg(path), 6000);
    } else
        showError(error);
}

bool MainWindow::exportChart(const QString &name, const QString &path, QSize size, QString *error)
{
    QWidget *chart = nullptr;
    if (name == QLatin1String("histogram"))
        chart = m_histogram->chartView();
    else if (name == QLatin1String("top-events"))
        chart = m_topChart->chartView();
    else if (name == QLatin1String("timeline"))
        chart = m_timeline->canvas();
    const QString e = chart ? exportChartImage(chart, path, size, name) : path + tr(": no chart named %1").arg(name);
    if (error)
        *error = e;
    return e.isEmpty();
}

void MainWindow::exportChartInteractive(QWidget *, const QString &name)
{
    // The chart is drawn again at the size asked for (not grabbed from the screen).
    QSettings settings;
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Export chart"));
    auto *form = new QFormLayout(&dialog);
    auto *width = new QSpinBox(&dialog);
    auto *height = new QSpinBox(&dialog);
    width->setRange(200, 10000);
    height->setRange(150, 10000);
    width->setSuffix(tr(" px"));
    height->setSuffix(tr(" px"));
    width->setValue(
        m_options.persistSettings ? settings.value(QStringLiteral("chartExportWidth"), 1600).toInt() : 1600);
    height->setValue(
        m_options.persistSettings ? settings.value(QStringLiteral("chartExportHeight"), 900).toInt() : 900);
    form->addRow(tr("Width"), width);
    form->addRow(tr("Height"), height);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return;
    if (m_options.persistSettings) {
        settings.setValue(QStringLiteral("chartExportWidth"), width->value());
        settings.setValue(QStringLiteral("chartExportHeight"), height->value());
    }
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export chart"), name + QStringLiteral(".png"), tr("PNG image (*.png);;SVG vector image (*.svg)"));
    if (path.isEmpty())
        return;
    QString error;
    if (exportChart(name, path, QSize(width->value(), height->value()), &error)) {
        if (!m_lastError.isEmpty())
            hideMessage();
        statusBar()->showMessage(tr("Chart written to %1").arg(path), 6000);
    } else
        showError(error);
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About etscope"),
        tr("<h3>etscope %1</h3>"
           "<p>Native inspector for ExecuTorch ETDump, debug buffer, ETRecord and BundledProgram files.</p>"
           "<p>ETDump reader: %2<br/>Qt %3 (built against %4)</p>"
           "<p>Drop files anywhere on the window. Ctrl+O opens, Ctrl+F filters, Ctrl+E exports the table.</p>")
            .arg(QCoreApplication::applicationVersion(), QString::fromUtf8(etdumpSchemaDescription()),
                QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
}

} // namespace etscope
