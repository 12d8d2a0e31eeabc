#pragma once

#include "analysis/numericgap.h"
#include "eval/evaluator.h"
#include "session/session.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <optional>

namespace etscope {

class BackgroundJob;

// The numeric gap's reference and the tables computed against it, kept across reloads of the same
// run: reference files (a second ETDump + debug buffer, an AOT outputs file, a BundledProgram) or
// the session's ETRecord graph evaluated by etscope. No widgets: GapDocks shows what it holds and
// asks the user; this class only computes, on the GUI thread for files the user just picked and in
// the one BackgroundJob for the rest.
class GapReference : public QObject
{
    Q_OBJECT
public:
    // Every metric's table, accumulated (the Inspector's) and, for the evaluator, isolated.
    struct Tables : analysis::GapTables {
        const std::vector<analysis::GapTable> &current(bool isolated) const
        {
            return isolated && !this->isolated.empty() ? this->isolated : accumulated;
        }
    };

    explicit GapReference(QObject *parent = nullptr);

    // Compares `session` with the files now (sniffed by content); the error, or "" when the tables
    // were replaced.
    QString compareWithFiles(const Session &session, const QStringList &files);
    // Evaluates the session's ETRecord graph in the background; progress(), then finished().
    void compareWithEvaluator(
        std::shared_ptr<const Session> session, const eval::InputChoice &inputs, const QString &referenceGraph = {});
    // A reload of the same run: recomputes in the background against the kept reference (files
    // or the ETRecord graph, which needs the session's ETRecord and debug buffer); false when
    // there is nothing to recompute against.
    bool recompute(std::shared_ptr<const Session> session);
    // Puts `primary`'s table first in both lists (what the triage, the chart and the graph read),
    // judged by `threshold`; every other metric by its noise level.
    void arrange(analysis::Metric primary, std::optional<double> threshold);
    // Forgets the reference and the tables.
    void clear();
    // Stops a running computation (its result is dropped); true when one was running.
    bool cancel();
    bool running() const;

    const std::shared_ptr<Tables> &tables() const { return m_tables; }
    QStringList files() const { return m_files; } // empty unless files are the reference
    bool evaluatorIsReference() const { return m_evaluatorInputs.has_value(); }
    // The comparison's warnings, as `etscope-cli gap` prints them.
    QStringList warnings() const { return m_warnings; }

Q_SIGNALS:
    void evaluationStarted(); // the ETRecord graph's evaluation, asked for or for a reload
    void progress(int permille);
    // A background computation ended; on success the tables were replaced. `evaluator`: it was the
    // ETRecord graph's evaluation (the gap views then bring the gap along execution forward).
    void finished(bool ok, const QString &message, bool evaluator);

private:
    struct Outcome;
    static std::shared_ptr<Outcome> computeFileGap(const Session &session, const QStringList &files);
    void apply(const Outcome &outcome, const QStringList &files, std::optional<eval::InputChoice> evaluatorInputs);

    BackgroundJob *m_job;
    std::shared_ptr<Tables> m_tables;
    QStringList m_files;
    std::optional<eval::InputChoice> m_evaluatorInputs; // the ETRecord graph is the reference
    QStringList m_warnings;
};

} // namespace etscope
