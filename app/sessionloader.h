#pragma once

#include "session/session.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <memory>

namespace etscope {

// Outcome of one load, default-constructible so it can travel through QFuture.
struct LoadOutcome {
    std::shared_ptr<const Session> session;
    QString error; // one line naming the file; empty on success
    bool cancelled = false;
};

// Loads sessions on the thread pool. Each load gets an id; a newer load cancels and supersedes
// older ones, whose results are dropped when they arrive.
class SessionLoader : public QObject
{
    Q_OBJECT
public:
    explicit SessionLoader(QObject *parent = nullptr);
    ~SessionLoader() override;

    quint64 load(const SessionInputs &inputs);
    void cancel();
    bool isLoading() const { return m_watcher != nullptr; }

    // Same work on the calling thread (for --screenshot and tests that need no event loop).
    static LoadOutcome loadNow(const SessionInputs &inputs, const ProgressFn &progress = {});

Q_SIGNALS:
    void progress(quint64 id, int permille, const QString &stage);
    void finished(quint64 id, const etscope::LoadOutcome &outcome);

private:
    quint64 m_nextId = 0;
    quint64 m_currentId = 0;
    QFutureWatcher<LoadOutcome> *m_watcher = nullptr;
};

} // namespace etscope

Q_DECLARE_METATYPE(etscope::LoadOutcome)
