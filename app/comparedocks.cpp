#include "comparedocks.h"

#include "compareview.h"
#include "filesniffer.h"
#include "mainwindow.h"
#include "qtstrings.h"
#include "sessionloader.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QtConcurrent>

namespace etscope {

struct CompareDocks::Outcome {
    std::shared_ptr<const Session> a, b;
    std::shared_ptr<const LatencyDiff> diff;
    QString error;
};

CompareDocks::CompareDocks(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_view = new CompareView;
    m_dock = window->addAnalysisDock(m_view, tr("Compare A/B"), QStringLiteral("CompareDock"));
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide(); // shown once there is a comparison

    // File ▸ Compare with…, right after Open Recent.
    QMenu *file = nullptr;
    for (QAction *a : window->menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == tr("File"))
            file = a->menu();
    auto *compare = new QAction(tr("Compare &with…"), this);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    compare->setStatusTip(tr("Compare the latency of the open recording (A) with another one (B)"));
    connect(compare, &QAction::triggered, this, &CompareDocks::chooseFiles);
    if (file) {
        const auto actions = file->actions();
        QAction *before = actions.size() > 2 ? actions[2] : nullptr; // Open…, Open Recent, |here|
        file->insertAction(before, compare);
    } else {
        window->menuBar()->addAction(compare);
    }

    connect(window, &MainWindow::compareRequested, this, &CompareDocks::compareWith);
    connect(window, &MainWindow::sessionChanged, this, &CompareDocks::onSessionChanged);
    connect(window, &MainWindow::loadFinished, this, [this](bool ok) {
        if (!ok && m_loadedB)
            tryDiff(); // A failed: report instead of waiting forever
    });
    connect(m_view, &CompareView::rowSelected, this, [this](int, int blockA, int eventA, int, int) {
        if (blockA >= 0 && m_window->session() == m_view->sessionA())
            m_window->selectEvent(blockA, eventA);
    });
}

void CompareDocks::chooseFiles()
{
    if (!m_window->session() && !m_window->isLoading()) {
        QMessageBox::information(
            m_window, tr("Compare"), tr("Open recording A first (File ▸ Open), then compare it with B."));
        return;
    }
    const QStringList files
        = QFileDialog::getOpenFileNames(m_window, tr("Recording B: ETDump (+ ETRecord, debug buffer)"), QString(),
            tr("ExecuTorch artifacts (*.etdp *.etdump *.bin *.zip *.etrecord);;All files (*)"));
    if (!files.isEmpty())
        compareWith(files);
}

bool CompareDocks::composeB(const QStringList &bFiles, SessionInputs *inputs, QString *error) const
{
    const ClassifiedFiles files = classifyFiles(bFiles);
    if (!files.errors.isEmpty()) {
        *error = files.errors.front();
        return false;
    }
    if (files.etdump.isEmpty()) {
        *error = tr("%1: no ETDump among the files for B").arg(bFiles.join(QStringLiteral(", ")));
        return false;
    }
    inputs->etdump = toStdString(files.etdump);
    inputs->debugBuffer = toStdString(files.debugBuffer);
    inputs->etrecord = toStdString(files.etrecord);
    // Same units as A so that durations compare.
    if (m_window->session())
        inputs->time = m_window->session()->inputs.time;
    else
        inputs->time = m_window->timeConversion();
    return true;
}

CompareDocks::Outcome CompareDocks::compute(std::shared_ptr<const Session> a, const LoadOutcome &b)
{
    Outcome o;
    if (!b.session) {
        o.error = b.cancelled ? tr("cancelled") : b.error;
        return o;
    }
    o.a = std::move(a);
    o.b = b.session;
    o.diff = std::make_shared<const LatencyDiff>(diffLatency(o.a->blocks, o.b->blocks));
    return o;
}

void CompareDocks::compareWith(const QStringList &bFiles)
{
    m_clock.start();
    if (!m_window->session() && !m_window->isLoading()) {
        Q_EMIT comparisonReady(false, tr("open recording A first"));
        return;
    }
    SessionInputs b;
    QString error;
    if (!composeB(bFiles, &b, &error)) {
        if (m_window->isVisible())
            QMessageBox::warning(m_window, tr("Compare"), error);
        Q_EMIT comparisonReady(false, error);
        return;
    }
    // B loads now, in parallel with A when A is still loading; the diff waits for both.
    m_busy = true;
    m_loadedB.reset();
    const quint64 gen = ++m_generation;
    auto *watcher = new QFutureWatcher<LoadOutcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
        watcher->deleteLater();
        if (gen != m_generation)
            return; // superseded
        m_loadedB = std::make_shared<LoadOutcome>(watcher->result());
        tryDiff();
    });
    watcher->setFuture(QtConcurrent::run([b] { return SessionLoader::loadNow(b); }));
}

void CompareDocks::tryDiff()
{
    if (!m_loadedB || m_window->isLoading())
        return;
    if (!m_window->session()) {
        m_busy = false;
        m_loadedB.reset();
        Q_EMIT comparisonReady(false, tr("recording A did not load"));
        return;
    }
    const auto b = std::move(m_loadedB);
    m_loadedB.reset();
    const quint64 gen = m_generation;
    auto *watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
        watcher->deleteLater();
        if (gen != m_generation)
            return;
        m_busy = false;
        show(watcher->result());
    });
    watcher->setFuture(QtConcurrent::run(&CompareDocks::compute, m_window->session(), *b));
}

bool CompareDocks::compareWithSync(const QStringList &bFiles, QString *error)
{
    m_clock.start();
    ++m_generation; // drops a background compare in flight
    QString err;
    SessionInputs b;
    if (!m_window->session())
        err = tr("open recording A first");
    else if (composeB(bFiles, &b, &err)) {
        const Outcome o = compute(m_window->session(), SessionLoader::loadNow(b));
        show(o);
        err = o.error;
    }
    if (error)
        *error = err;
    return err.isEmpty();
}

void CompareDocks::show(const Outcome &o)
{
    if (!o.error.isEmpty()) {
        if (m_window->isVisible() && !QCoreApplication::closingDown()
            && qEnvironmentVariableIsEmpty("ETSCOPE_NO_DIALOGS"))
            m_window->statusBar()->showMessage(o.error, 10000);
        Q_EMIT comparisonReady(false, o.error);
        return;
    }
    m_view->setComparison(o.a, o.b, o.diff);
    m_dock->show();
    m_dock->raise();
    m_lastMs = m_clock.elapsed();
    Q_EMIT comparisonReady(true, {});
}

void CompareDocks::onSessionChanged(std::shared_ptr<const Session> session)
{
    if (m_loadedB) { // B finished first: A just arrived
        tryDiff();
        return;
    }
    if (m_busy)
        return;
    // A different A invalidates the comparison.
    if (m_view->sessionA() && m_view->sessionA() != session) {
        m_view->setComparison(nullptr, nullptr, nullptr);
        m_dock->hide();
    }
}

} // namespace etscope
