#pragma once

#include "session/scope.h"
#include "session/session.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace etscope {

class BackgroundJob;
class EvaluatorSettings;

// How loud a message is: Info/Warning/Error go to the window's message bar, Status to its status
// bar for a while.
enum class MessageKind { Info, Warning, Error, Status };

// Outcome of one load.
struct LoadOutcome {
    std::shared_ptr<const Session> session;
    QString error; // one line naming the file; empty on success
    bool cancelled = false;

    // Loads on the calling thread (--screenshot, tests, and the background job's body).
    static LoadOutcome load(const SessionInputs &inputs, const ProgressFn &progress = {});
};

// Opening, without widgets (after hotspot's split of the window from its data): composes the
// inputs from dropped files (companions opened before their ETDump wait for it), keeps the
// recent-file sets, loads in the background (a newer load supersedes an older one) and reloads
// with new time settings. The window and every panel follow sessionChanged().
class SessionController : public QObject
{
    Q_OBJECT
public:
    explicit SessionController(bool persistSettings, QObject *parent = nullptr);
    ~SessionController() override;

    // Sniffs the files by content and loads in the background.
    void openFiles(const QStringList &paths);
    // Loads on the calling thread; returns false and sets `error` (one line) on failure.
    bool openFilesSync(const QStringList &paths, QString *error = nullptr);
    // The conversion the next load uses; reload() also reloads the open session with it.
    void setTimeConversion(const TimeConversion &time) { m_time = time; }
    TimeConversion timeConversion() const { return m_time; }
    void reload(const TimeConversion &time);
    // Shows another method of the session's program (reloads with it).
    void selectMethod(const QString &method);
    void cancel();
    bool isLoading() const;

    const std::shared_ptr<const Session> &session() const { return m_session; }
    // What the evaluator views (numeric gap, decomposition, graph against graph) share: the
    // metric, threshold, accumulated or isolated, the inputs the ETRecord's graphs run on.
    EvaluatorSettings *evaluatorSettings() const { return m_evaluatorSettings; }
    // The runs every view answers for (session/scope.h): a method, a phase, a run range. Changing
    // it never reloads; the views re-derive from scoped() on scopeChanged. A new session keeps
    // the scope while it still selects runs, else goes back to the whole recording. Returns false
    // (and a one-line `error`) for a scope no run falls in, keeping the current one.
    bool setScope(const Scope &scope, QString *error = nullptr);
    const Scope &scope() const { return m_scope; }
    // The open session's blocks in scope, with the label views show ("decode_forward · decode ·
    // 64 runs"); null without a session.
    const std::shared_ptr<const ScopedBlocks> &scoped() const { return m_scoped; }
    // Whether the recording gives a scope anything to choose (several methods or phases).
    bool scopeMatters() const;
    // Companions opened before their ETDump, paired with the next ETDump opened.
    QString pendingDebugBuffer() const { return m_waitingDebugBuffer; }
    QString pendingETRecord() const { return m_waitingETRecord; }
    QString pendingProgram() const { return m_waitingProgram; }
    // One line about the open session: "etdump.etdp · 2 blocks · 120 events · 1 run · debug buffer …"
    // ("model.pte · program · 2 methods · forward: 12 instructions" for a program alone).
    QString summary() const;
    // The session's warnings on one line ("2 warnings: …; …"), "" without any.
    QString warningsText() const;
    // The shortest part of `path` that tells it from every file of the recent sets
    // ("run_a/etdump.etdp" when run_b/etdump.etdp was opened too).
    QString displayName(const std::string &path) const;
    // Recent-file sets, newest first; files of one set joined by '\n'.
    QStringList recentFiles() const { return m_recentFiles; }

    // For panels: a message in the window (they never see the window itself).
    void notify(MessageKind kind, const QString &text, int timeoutMs = 0);
    // A yes/no question before something the user may not want (replacing a paired companion,
    // recomputing a gap against a mismatched ETRecord). The window installs a dialog; without
    // one (headless use) the answer is yes.
    // `defaultAnswer` is what Return gives: Yes to replace a file the user just dropped, No to
    // recompute against an ETRecord that does not match the run.
    enum class DefaultAnswer { Yes, No };
    using Confirmer = std::function<bool(const QString &title, const QString &text, DefaultAnswer defaultAnswer)>;
    void setConfirmer(Confirmer confirmer) { m_confirm = std::move(confirmer); }
    bool confirm(const QString &title, const QString &text, DefaultAnswer defaultAnswer = DefaultAnswer::Yes) const
    {
        return !m_confirm || m_confirm(title, text, defaultAnswer);
    }
    // Files dropped with Shift held while a recording is open: compare it with them (B).
    void requestCompare(const QStringList &paths);

Q_SIGNALS:
    void sessionChanged(std::shared_ptr<const etscope::Session> session);
    // After every sessionChanged, and whenever the scope changes: what the scope selects.
    void scopeChanged(std::shared_ptr<const etscope::ScopedBlocks> scoped);
    void loadStarted(const QString &etdump);
    void loadProgress(int permille, const QString &stage);
    void loadFinished(bool ok);
    // A load failed or was cancelled: the time settings are back to the open session's.
    void timeConversionRestored(const etscope::TimeConversion &time);
    // The user chose another unit or source (reload): views that read files of their own (History)
    // read them again with it.
    void timeConversionChanged(const etscope::TimeConversion &time);
    void message(etscope::MessageKind kind, const QString &text, int timeoutMs);
    void recentFilesChanged(const QStringList &recent);
    void compareRequested(const QStringList &paths);

private:
    SessionInputs composeInputs(const QStringList &paths, bool *ready, QString *error);
    void startLoad(const SessionInputs &inputs);
    void finishLoad(const LoadOutcome &outcome);
    void restoreTimeConversion();
    void setSession(std::shared_ptr<const Session> session);
    void addRecentFiles(const SessionInputs &inputs);

    bool m_persistSettings;
    BackgroundJob *m_job;
    EvaluatorSettings *m_evaluatorSettings;
    std::shared_ptr<const Session> m_session;
    Scope m_scope;
    std::shared_ptr<const ScopedBlocks> m_scoped;
    TimeConversion m_time;
    QString m_waitingDebugBuffer;
    QString m_waitingETRecord;
    QString m_waitingBundledProgram;
    QString m_waitingProgram; // shown alone until an ETDump is opened, then paired with it
    QStringList m_waitingProgramData; // .ptd files of that program
    QStringList m_recentFiles;
    Confirmer m_confirm;
};

} // namespace etscope
