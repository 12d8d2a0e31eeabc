#include "sessioncontroller.h"

#include "backgroundjob.h"
#include "etdump/debugbuffer.h"
#include "events/blockstats.h"
#include "filesniffer.h"
#include "qtstrings.h"

#include "common/pathnames.h"

#include <QFileInfo>
#include <QSettings>

#include <tuple>

namespace etscope {

namespace {
constexpr int kMaxRecent = 10;
} // namespace

LoadOutcome LoadOutcome::load(const SessionInputs &inputs, const ProgressFn &progress)
{
    LoadOutcome out;
    auto result = loadSession(inputs, progress);
    if (result)
        out.session = result.value();
    else if (result.error().code == ErrorCode::Cancelled)
        out.cancelled = true;
    else
        out.error = toQString(result.error().message());
    return out;
}

SessionController::SessionController(bool persistSettings, QObject *parent)
    : QObject(parent)
    , m_persistSettings(persistSettings)
    , m_job(new BackgroundJob(this))
{
    if (m_persistSettings)
        m_recentFiles = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    connect(m_job, &BackgroundJob::progress, this, &SessionController::loadProgress);
}

SessionController::~SessionController() = default;

QString SessionController::summary() const
{
    if (!m_session)
        return {};
    const RecordingCounts counts = countRecording(m_session->blocks);
    // Counts that say what they count: "1 run", never "1 runs".
    auto count = [](std::size_t n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    QString summary = displayName(m_session->inputs.etdump) + QStringLiteral(" · ")
        + count(m_session->blocks.size(), tr("1 block"), tr("%1 blocks")) + QStringLiteral(" · ")
        + count(counts.events, tr("1 event"), tr("%1 events")) + QStringLiteral(" · ")
        + count(counts.runs, tr("1 run"), tr("%1 runs"));
    if (m_session->debugBuffer)
        summary += tr(" · debug buffer %1").arg(displayName(m_session->debugBuffer->path()));
    if (!m_session->inputs.etrecord.empty())
        summary += tr(" · ETRecord %1").arg(displayName(m_session->inputs.etrecord));
    return summary;
}

QString SessionController::displayName(const std::string &path) const
{
    std::vector<std::string> paths { QFileInfo(toQString(path)).absoluteFilePath().toStdString() };
    for (const QString &set : m_recentFiles)
        for (const QString &f : set.split(QLatin1Char('\n')))
            paths.push_back(f.toStdString());
    return toQString(distinguishingNames(paths).front());
}

QString SessionController::warningsText() const
{
    if (!m_session || m_session->warnings.empty())
        return {};
    QStringList w;
    for (const auto &s : m_session->warnings)
        w << toQString(s);
    return (w.size() == 1 ? tr("1 warning: ") : tr("%1 warnings: ").arg(w.size())) + w.join(QStringLiteral("; "));
}

void SessionController::notify(MessageKind kind, const QString &text, int timeoutMs)
{
    Q_EMIT message(kind, text, timeoutMs);
}

void SessionController::requestCompare(const QStringList &paths)
{
    Q_EMIT compareRequested(paths);
}

SessionInputs SessionController::composeInputs(const QStringList &paths, bool *ready, QString *error)
{
    *ready = false;
    const ClassifiedFiles files = classifyFiles(paths);
    if (!files.errors.isEmpty()) {
        *error = files.errors.join(QStringLiteral("; "));
        notify(MessageKind::Error, *error);
    }
    if (!files.errors.isEmpty() && files.etdump.isEmpty() && files.debugBuffer.isEmpty() && files.etrecord.isEmpty()
        && files.bundledProgram.isEmpty())
        return {};
    if (!files.ignored.isEmpty())
        notify(MessageKind::Status,
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
        // Replacing a companion that is already paired asks first, naming both files in full.
        bool declined = false;
        for (auto [given, slot, what] : { std::tuple { &files.debugBuffer, &inputs.debugBuffer, tr("debug buffer") },
                 std::tuple { &files.etrecord, &inputs.etrecord, tr("ETRecord") },
                 std::tuple { &files.bundledProgram, &inputs.bundledProgram, tr("BundledProgram") } }) {
            if (given->isEmpty())
                continue;
            const QString current = toQString(*slot);
            if (!current.isEmpty() && QFileInfo(current) != QFileInfo(*given)
                && !confirm(tr("Replace the %1?").arg(what),
                    tr("%1 is paired with %2.\n\nReplace it with %3?")
                        .arg(QFileInfo(current).absoluteFilePath(), toQString(m_session->inputs.etdump),
                            QFileInfo(*given).absoluteFilePath()))) {
                notify(MessageKind::Status, tr("Kept the %1 %2").arg(what, current), 6000);
                declined = true;
                continue;
            }
            *slot = given->toStdString();
        }
        if (declined && inputs.debugBuffer == m_session->inputs.debugBuffer
            && inputs.etrecord == m_session->inputs.etrecord
            && inputs.bundledProgram == m_session->inputs.bundledProgram) {
            *error = tr("kept the files already paired");
            return {}; // nothing new to load
        }
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
            notify(MessageKind::Info,
                tr("%1 waiting for its ETDump — drop or open the matching .etdp.")
                    .arg(waiting.join(QStringLiteral(" + "))));
        return {};
    }
    inputs.time = m_time;
    *ready = true;
    return inputs;
}

void SessionController::openFiles(const QStringList &paths)
{
    bool ready = false;
    QString error;
    const SessionInputs inputs = composeInputs(paths, &ready, &error);
    if (ready)
        startLoad(inputs);
}

bool SessionController::openFilesSync(const QStringList &paths, QString *error)
{
    bool ready = false;
    QString composeError;
    const SessionInputs inputs = composeInputs(paths, &ready, &composeError);
    if (!ready) {
        if (error)
            *error = !composeError.isEmpty() ? composeError : tr("no ETDump among the given files");
        return false;
    }
    cancel();
    const LoadOutcome outcome = LoadOutcome::load(inputs);
    if (!outcome.error.isEmpty()) {
        // Nothing of the failed set stays: the window keeps showing (and reloading) its session.
        notify(MessageKind::Error, outcome.error);
        restoreTimeConversion();
        if (error)
            *error = outcome.error;
        return false;
    }
    setSession(outcome.session);
    return true;
}

void SessionController::reload(const TimeConversion &time)
{
    m_time = time;
    if (!m_session)
        return;
    SessionInputs inputs = m_session->inputs;
    inputs.time = time;
    startLoad(inputs);
}

bool SessionController::isLoading() const
{
    return m_job->isRunning();
}

void SessionController::cancel()
{
    if (!m_job->cancel())
        return;
    LoadOutcome outcome;
    outcome.cancelled = true;
    finishLoad(outcome);
}

void SessionController::startLoad(const SessionInputs &inputs)
{
    cancel(); // a superseded load reports as cancelled
    Q_EMIT loadStarted(toQString(inputs.etdump));
    m_job->start(
        [inputs](BackgroundJob::Control &job) {
            return LoadOutcome::load(inputs,
                [&job](int permille, const std::string &stage) { return job.setProgress(permille, toQString(stage)); });
        },
        [this](LoadOutcome outcome) { finishLoad(outcome); });
}

void SessionController::finishLoad(const LoadOutcome &outcome)
{
    if (outcome.cancelled || !outcome.error.isEmpty()) {
        if (outcome.cancelled)
            notify(MessageKind::Status, tr("Loading cancelled"), 5000);
        else
            notify(MessageKind::Error, outcome.error);
        restoreTimeConversion();
        Q_EMIT loadFinished(false);
        return;
    }
    setSession(outcome.session);
    Q_EMIT loadFinished(true);
}

void SessionController::restoreTimeConversion()
{
    if (m_session)
        m_time = m_session->inputs.time;
    Q_EMIT timeConversionRestored(m_time);
}

void SessionController::setSession(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    if (m_session) {
        m_lastInputs = m_session->inputs;
        m_time = m_session->inputs.time;
    }
    if (m_session)
        addRecentFiles(m_session->inputs);
    Q_EMIT sessionChanged(m_session);
}

void SessionController::addRecentFiles(const SessionInputs &inputs)
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
    if (m_persistSettings)
        QSettings().setValue(QStringLiteral("recentFiles"), m_recentFiles);
    Q_EMIT recentFilesChanged(m_recentFiles);
}

} // namespace etscope
