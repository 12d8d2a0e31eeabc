#include "sessionloader.h"

#include "qtstrings.h"

#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace etscope {

SessionLoader::SessionLoader(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<LoadOutcome>();
}

SessionLoader::~SessionLoader()
{
    if (m_watcher) {
        m_watcher->cancel();
        m_watcher->waitForFinished();
    }
}

LoadOutcome SessionLoader::loadNow(const SessionInputs &inputs, const ProgressFn &progress)
{
    LoadOutcome out;
    auto result = loadSession(inputs, progress);
    if (result) {
        out.session = result.value();
    } else if (result.error().code == ErrorCode::InvalidArgument && result.error().reason == "cancelled") {
        out.cancelled = true;
    } else {
        out.error = toQString(result.error().message());
    }
    return out;
}

quint64 SessionLoader::load(const SessionInputs &inputs)
{
    cancel();
    const quint64 id = ++m_nextId;
    m_currentId = id;
    auto *watcher = new QFutureWatcher<LoadOutcome>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, id, watcher](int value) {
        if (id == m_currentId)
            Q_EMIT progress(id, value, watcher->progressText());
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, id, watcher] {
        watcher->deleteLater();
        if (m_watcher == watcher)
            m_watcher = nullptr;
        // Superseded loads finish silently: the user already asked for something newer.
        if (id != m_currentId)
            return;
        LoadOutcome outcome;
        if (watcher->isCanceled() || watcher->future().resultCount() == 0)
            outcome.cancelled = true;
        else
            outcome = watcher->result();
        Q_EMIT finished(id, outcome);
    });
    watcher->setFuture(QtConcurrent::run([inputs](QPromise<LoadOutcome> &promise) {
        promise.setProgressRange(0, 1000);
        auto outcome = loadNow(inputs, [&promise](int permille, const std::string &stage) {
            promise.setProgressValueAndText(permille, toQString(stage));
            return !promise.isCanceled();
        });
        promise.addResult(std::move(outcome));
    }));
    return id;
}

void SessionLoader::cancel()
{
    if (!m_watcher)
        return;
    m_watcher->cancel();
    // The finished handler sees a stale id and drops the result; report the cancel now.
    const quint64 id = m_currentId;
    m_currentId = 0;
    m_watcher = nullptr;
    LoadOutcome outcome;
    outcome.cancelled = true;
    Q_EMIT finished(id, outcome);
}

} // namespace etscope
