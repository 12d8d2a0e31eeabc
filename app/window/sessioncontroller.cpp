#include "sessioncontroller.h"
#include "evaluatorsettings.h"

#include "backgroundjob.h"
#include "etdump/debugbuffer.h"
#include "events/blockstats.h"
#include "filesniffer.h"
#include "qtstrings.h"

#include "common/pathnames.h"

#include <QFileInfo>
#include <QSettings>

#include <algorithm>
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
    , m_evaluatorSettings(new EvaluatorSettings(this))
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
    // Counts that say what they count: "1 run", never "1 runs".
    auto count = [](std::size_t n, const QString &one, const QString &many) { return n == 1 ? one : many.arg(n); };
    const Session &s = *m_session;
    QString summary = displayName(s.primaryPath());
    if (s.etdump) {
        const RecordingCounts counts = countRecording(s.blocks);
        summary += QStringLiteral(" · ") + count(s.blocks.size(), tr("1 block"), tr("%1 blocks"))
            + QStringLiteral(" · ") + count(counts.events, tr("1 event"), tr("%1 events")) + QStringLiteral(" · ")
            + count(counts.runs, tr("1 run"), tr("%1 runs"));
    }
    if (s.debugBuffer)
        summary += s.hasWarning(SessionWarningKind::SuspectDebugBuffer)
            ? tr(" · debug buffer %1 (probably not this run's)").arg(displayName(s.debugBuffer->path()))
            : tr(" · debug buffer %1").arg(displayName(s.debugBuffer->path()));
    if (!s.inputs.etrecord.empty())
        summary += tr(" · ETRecord %1").arg(displayName(s.inputs.etrecord));
    if (!s.inputs.bundledProgram.empty())
        summary += tr(" · BundledProgram %1").arg(displayName(s.inputs.bundledProgram));
    if (s.program) {
        if (s.etdump)
            summary += tr(" · program %1").arg(displayName(s.program->path()));
        else
            summary += tr(" · program · %1").arg(count(s.program->methods().size(), tr("1 method"), tr("%1 methods")));
        for (const std::string &d : s.inputs.programData)
            summary += tr(" · data %1").arg(displayName(d));
        if (s.method)
            summary += QStringLiteral(" · %1: %2")
                           .arg(toQString(s.method->name()),
                               count(s.method->instructionCount(), tr("1 instruction"), tr("%1 instructions")));
    }
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
        && files.bundledProgram.isEmpty() && files.program.isEmpty() && files.programData.isEmpty())
        return {};
    auto asStd = [](const QStringList &l) {
        std::vector<std::string> v;
        for (const QString &s : l)
            v.push_back(s.toStdString());
        return v;
    };
    if (!files.ignored.isEmpty())
        notify(MessageKind::Status,
            tr("Ignored (another file of the same kind was given): %1").arg(files.ignored.join(QStringLiteral(", "))),
            8000);

    // The companions of a recording, each with the slot it fills in the inputs and the one where
    // it waits for its ETDump.
    struct Companion {
        const QString &given;
        std::string SessionInputs::*slot;
        QString *waiting;
        QString what;
    };
    const Companion companions[] = {
        { files.debugBuffer, &SessionInputs::debugBuffer, &m_waitingDebugBuffer, tr("debug buffer") },
        { files.etrecord, &SessionInputs::etrecord, &m_waitingETRecord, tr("ETRecord") },
        { files.bundledProgram, &SessionInputs::bundledProgram, &m_waitingBundledProgram, tr("BundledProgram") },
        { files.program, &SessionInputs::program, &m_waitingProgram, tr("program") },
    };
    const bool recordingOpen = m_session && m_session->etdump;
    SessionInputs inputs;
    // Files opened together must belong together: one that does not is refused with the reason
    // and nothing changes. Files that were waiting from earlier are only candidates: one that
    // does not belong is left out with a warning, and never keeps the ETDump from loading.
    bool usedWaiting = false;
    if (!files.etdump.isEmpty()) {
        // Companions opened earlier wait for this ETDump (a program shown alone is one of them);
        // files given with it take precedence.
        inputs.etdump = files.etdump.toStdString();
        for (const Companion &c : companions) {
            usedWaiting |= c.given.isEmpty() && !c.waiting->isEmpty();
            inputs.*c.slot = (!c.given.isEmpty() ? c.given : *c.waiting).toStdString();
            c.waiting->clear();
        }
        usedWaiting |= files.programData.isEmpty() && !m_waitingProgramData.isEmpty();
        inputs.programData = asStd(!files.programData.isEmpty() ? files.programData : m_waitingProgramData);
        m_waitingProgramData.clear();
    } else if (recordingOpen) {
        // Companions dropped onto an open recording are paired with the ETDump it shows (never
        // with one that failed to open).
        inputs = m_session->inputs;
        // Replacing a companion that is already paired asks first, naming both files in full.
        bool declined = false, changed = false;
        for (const Companion &c : companions) {
            if (c.given.isEmpty())
                continue;
            const QString current = toQString(inputs.*c.slot);
            if (!current.isEmpty() && QFileInfo(current) != QFileInfo(c.given)
                && !confirm(tr("Replace the %1?").arg(c.what),
                    tr("%1 is paired with %2.\n\nReplace it with %3?")
                        .arg(QFileInfo(current).absoluteFilePath(), toQString(m_session->inputs.etdump),
                            QFileInfo(c.given).absoluteFilePath()))) {
                notify(MessageKind::Status, tr("Kept the %1 %2").arg(c.what, current), 6000);
                declined = true;
                continue;
            }
            inputs.*c.slot = c.given.toStdString();
            changed = true;
        }
        if (!files.programData.isEmpty()) {
            inputs.programData = asStd(files.programData);
            changed = true;
        }
        if (declined && !changed) {
            *error = tr("kept the files already paired");
            return {}; // nothing new to load
        }
        if (!files.program.isEmpty())
            inputs.method.clear(); // the new program's method is chosen by the events
    } else {
        QStringList waiting;
        for (const Companion &c : companions)
            if (!c.given.isEmpty())
                *c.waiting = c.given;
        if (!files.programData.isEmpty())
            m_waitingProgramData = files.programData;
        const bool programShown = m_session && !m_session->inputs.program.empty();
        if (!files.program.isEmpty() || (!files.programData.isEmpty() && programShown)) {
            // A program needs no ETDump to be shown: its methods, plan and instructions; it
            // still pairs with the ETDump opened next (and the .ptd files with it).
            inputs.program = !files.program.isEmpty() ? files.program.toStdString() : m_session->inputs.program;
            inputs.programData = asStd(m_waitingProgramData);
            m_waitingProgram = toQString(inputs.program);
            inputs.time = m_time;
            inputs.dropUnpairable = files.programData.isEmpty() && !m_waitingProgramData.isEmpty();
            *ready = true;
            return inputs;
        }
        if (!files.programData.isEmpty() && files.errors.isEmpty())
            notify(MessageKind::Info,
                tr("%1 waiting for its program — drop or open the matching .pte.")
                    .arg(QFileInfo(files.programData.front()).fileName()));
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
    // A stray file waiting as "debug buffer" must not refuse a valid ETDump opened later.
    inputs.dropUnpairable = usedWaiting;
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
    Q_EMIT timeConversionChanged(time);
    if (!m_session)
        return;
    SessionInputs inputs = m_session->inputs;
    inputs.time = time;
    startLoad(inputs);
}

void SessionController::selectMethod(const QString &method)
{
    if (!m_session || !m_session->program || (m_session->method && toQString(m_session->method->name()) == method))
        return;
    SessionInputs inputs = m_session->inputs;
    inputs.method = method.toStdString();
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
    Q_EMIT loadStarted(toQString(inputs.etdump.empty() ? inputs.program : inputs.etdump));
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
    if (m_session)
        m_time = m_session->inputs.time;
    if (m_session)
        addRecentFiles(m_session->inputs);
    // A reload (another unit, a companion added) keeps the scope when it still selects runs.
    m_scoped.reset();
    if (m_session && m_session->etdump) {
        auto scoped = scopeBlocks(*m_session, m_scope);
        if (!scoped) {
            m_scope = {};
            scoped = scopeBlocks(*m_session, m_scope);
        }
        if (scoped)
            m_scoped = std::make_shared<const ScopedBlocks>(std::move(*scoped));
    }
    Q_EMIT sessionChanged(m_session);
    Q_EMIT scopeChanged(m_scoped);
    if (m_session && !m_session->etdump && m_session->warnings.empty())
        notify(MessageKind::Info,
            tr("%1 opened alone: its methods, memory plan and instructions are in the Program panel. Open the ETDump "
               "recorded with it to see the events.")
                .arg(displayName(m_session->primaryPath())));
}

bool SessionController::setScope(const Scope &scope, QString *error)
{
    if (scope == m_scope && (m_scoped || !m_session))
        return true;
    if (!m_session || !m_session->etdump) {
        m_scope = scope;
        return true;
    }
    auto scoped = scopeBlocks(*m_session, scope);
    if (!scoped) {
        const QString why = toQString(scoped.error().message());
        notify(MessageKind::Error, why);
        if (error)
            *error = why;
        return false;
    }
    m_scope = scope;
    m_scoped = std::make_shared<const ScopedBlocks>(std::move(*scoped));
    Q_EMIT scopeChanged(m_scoped);
    return true;
}

bool SessionController::scopeMatters() const
{
    if (!m_session || !m_session->etdump)
        return false;
    const ScopeChoices c = scopeChoices(*m_session);
    return c.methods.size() > 1 || c.phases.size() > 1 || !m_scope.whole();
}

void SessionController::addRecentFiles(const SessionInputs &inputs)
{
    // One entry per session: the files are re-sniffed when reopened.
    QStringList group;
    for (const std::string *p :
        { &inputs.etdump, &inputs.debugBuffer, &inputs.etrecord, &inputs.bundledProgram, &inputs.program })
        if (!p->empty())
            group << QFileInfo(toQString(*p)).absoluteFilePath();
    for (const std::string &p : inputs.programData)
        group << QFileInfo(toQString(p)).absoluteFilePath();
    const QString entry = group.join(QLatin1Char('\n'));
    m_recentFiles.removeAll(entry);
    // A file of a recent set reopened alone (the ETDump from a file dialog, say) must not push
    // that set, with its companions, out of the list: the sets holding every file just opened
    // follow it at the top.
    QStringList holders;
    for (const QString &set : std::as_const(m_recentFiles)) {
        const QStringList files = set.split(QLatin1Char('\n'));
        if (std::all_of(group.cbegin(), group.cend(), [&](const QString &f) { return files.contains(f); }))
            holders << set;
    }
    for (const QString &set : std::as_const(holders))
        m_recentFiles.removeAll(set);
    m_recentFiles = QStringList { entry } + holders + m_recentFiles;
    while (m_recentFiles.size() > kMaxRecent)
        m_recentFiles.removeLast();
    if (m_persistSettings)
        QSettings().setValue(QStringLiteral("recentFiles"), m_recentFiles);
    Q_EMIT recentFilesChanged(m_recentFiles);
}

} // namespace etscope
