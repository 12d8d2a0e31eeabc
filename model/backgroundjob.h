#pragma once

#include <QFuture>
#include <QList>
#include <QObject>
#include <QPromise>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>

namespace etscope {

// One background job at a time for its owner (after hotspot's JobTracker): the work runs on the
// thread pool, reports progress 0–1000 and polls for cancellation; starting a new job cancels
// the running one, and the result of a superseded or cancelled job is dropped by id, so `done`
// only ever sees the newest job's result, on the owner's thread.
class BackgroundJob : public QObject
{
    Q_OBJECT
public:
    // What the work sees of its job.
    class Control
    {
    public:
        Control(QPromise<void> &promise, const std::atomic<bool> &cancelled)
            : m_promise(promise)
            , m_cancelled(cancelled)
        { }
        bool isCancelled() const { return m_cancelled.load(); }
        // For core functions that poll a flag themselves.
        const std::atomic<bool> *cancelFlag() const { return &m_cancelled; }
        // Reports progress (0–1000) and returns false once the job was cancelled: the shape of
        // the core's progress callbacks.
        bool setProgress(int permille, const QString &stage = {});

    private:
        QPromise<void> &m_promise;
        const std::atomic<bool> &m_cancelled;
    };

    explicit BackgroundJob(QObject *parent = nullptr);
    ~BackgroundJob() override; // cancels and waits for every job still running

    // Runs `work(Control &) -> R` in the background and then `done(R)` on this object's thread,
    // unless a newer start() or cancel() came first. Returns the job's id.
    template <typename Work, typename Done> quint64 start(Work work, Done done)
    {
        using R = std::invoke_result_t<Work &, Control &>;
        auto result = std::make_shared<std::optional<R>>();
        return startErased([work = std::move(work), result](Control &c) mutable { result->emplace(work(c)); },
            [done = std::move(done), result]() mutable {
                if (*result)
                    done(std::move(**result));
            });
    }

    // Cancels the running job; its result is dropped. Returns false when nothing was running.
    bool cancel();
    bool isRunning() const { return m_current != 0; }
    quint64 currentId() const { return m_current; }
    // Blocks until every job of this owner has returned (results still arrive through `done`
    // only for the current one).
    void waitForFinished();

Q_SIGNALS:
    // Progress of the current job.
    void progress(int permille, const QString &stage);

private:
    quint64 startErased(std::function<void(Control &)> work, std::function<void()> done);

    quint64 m_nextId = 0;
    quint64 m_current = 0; // 0: nothing running (or it was cancelled)
    std::shared_ptr<std::atomic<bool>> m_cancelled; // of the current job
    QList<QPair<quint64, QFuture<void>>> m_running; // every job not yet returned, superseded ones too
};

} // namespace etscope
