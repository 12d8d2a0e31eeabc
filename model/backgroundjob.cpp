#include "backgroundjob.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace etscope {

bool BackgroundJob::Control::setProgress(int permille, const QString &stage)
{
    m_promise.setProgressValueAndText(permille, stage);
    return !isCancelled();
}

BackgroundJob::BackgroundJob(QObject *parent)
    : QObject(parent)
{ }

BackgroundJob::~BackgroundJob()
{
    cancel();
    waitForFinished();
}

quint64 BackgroundJob::startErased(std::function<void(Control &)> work, std::function<void()> done)
{
    cancel();
    const quint64 id = ++m_nextId;
    m_current = id;
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    m_cancelled = cancelled;
    auto *watcher = new QFutureWatcher<void>(this);
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, id, watcher](int value) {
        if (id == m_current)
            Q_EMIT progress(value, watcher->progressText());
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, id, watcher, done = std::move(done)] {
        watcher->deleteLater();
        m_running.removeIf([id](const auto &job) { return job.first == id; });
        // Superseded and cancelled jobs finish silently: the owner already asked for something newer.
        if (id != m_current)
            return;
        m_current = 0;
        m_cancelled.reset();
        done();
    });
    // The job polls its own flag (not QFuture::cancel) so that waitForFinished() really waits.
    const QFuture<void> future = QtConcurrent::run([work = std::move(work), cancelled](QPromise<void> &promise) {
        promise.setProgressRange(0, 1000);
        Control control(promise, *cancelled);
        work(control);
    });
    m_running.append({ id, future });
    watcher->setFuture(future);
    return id;
}

bool BackgroundJob::cancel()
{
    if (!m_current)
        return false;
    if (m_cancelled)
        m_cancelled->store(true);
    m_cancelled.reset();
    m_current = 0;
    return true;
}

void BackgroundJob::waitForFinished()
{
    const auto running = m_running;
    for (auto job : running)
        job.second.waitForFinished();
}

} // namespace etscope
