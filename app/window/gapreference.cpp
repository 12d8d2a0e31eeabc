#include "gapreference.h"

#include "backgroundjob.h"
#include "evaluatorsettings.h"
#include "filesniffer.h"
#include "qtstrings.h"

#include "analysis/referenceset.h"
#include "evalgap/evalgap.h"

#include <algorithm>

namespace etscope {

struct GapReference::Outcome {
    std::shared_ptr<Tables> tables;
    QString error;
    QStringList warnings;
};

namespace {
std::shared_ptr<GapReference::Tables> tablesOf(Result<analysis::GapTables> computed, QString &error)
{
    if (!computed) {
        error = toQString(computed.error().message());
        return nullptr;
    }
    auto tables = std::make_shared<GapReference::Tables>();
    static_cast<analysis::GapTables &>(*tables) = std::move(*computed);
    return tables;
}

std::vector<analysis::Metric> computedMetrics()
{
    const auto &all = EvaluatorSettings::metrics();
    return { all.begin(), all.end() };
}
} // namespace

GapReference::GapReference(QObject *parent)
    : QObject(parent)
    , m_job(new BackgroundJob(this))
{
    connect(
        m_job, &BackgroundJob::progress, this, [this](int permille, const QString &) { Q_EMIT progress(permille); });
}

// The gap against reference files, on any thread: the files sniffed by content, the reference
// loaded, every metric's table computed.
std::shared_ptr<GapReference::Outcome> GapReference::computeFileGap(const Session &session, const QStringList &files)
{
    auto out = std::make_shared<Outcome>();
    analysis::ReferenceInputs ref;
    for (const QString &f : files) {
        const std::string path = f.toStdString();
        const SniffResult sniffed = sniffFile(f);
        switch (sniffed.kind) {
        case FileKind::ETDump:
            ref.etdump = path;
            break;
        case FileKind::ETRecord:
            ref.etrecord = path;
            break;
        case FileKind::BundledProgram:
            ref.bundledProgram = path;
            break;
        case FileKind::Program:
        case FileKind::ProgramData:
            out->error
                = tr("%1: a program (.pte) holds no reference values; open it with the recording instead").arg(f);
            return out;
        case FileKind::TorchSave:
            ref.aotOutputs = path;
            break;
        case FileKind::DebugBuffer: // the reference run's, which has no header of its own
            ref.debugBuffer = path;
            break;
        case FileKind::Unreadable:
            out->error = sniffed.error;
            return out;
        }
    }
    if (!ref.debugBuffer.empty() && ref.etdump.empty()) {
        out->error = tr("a debug buffer needs its ETDump");
        return out;
    }
    auto set = analysis::loadReference(ref);
    if (!set) {
        out->error = toQString(set.error().message());
        return out;
    }
    out->tables = tablesOf(analysis::computeGapTables(session, *set, nullptr, computedMetrics()), out->error);
    // Blank cells need their reason next to them: the same warnings as `etscope-cli gap`.
    if (out->tables)
        for (const std::string &w : out->tables->accumulated.front().warnings)
            out->warnings << toQString(w);
    return out;
}

void GapReference::apply(
    const Outcome &outcome, const QStringList &files, std::optional<eval::InputChoice> evaluatorInputs)
{
    m_tables = outcome.tables;
    m_files = files;
    m_evaluatorInputs = std::move(evaluatorInputs);
    m_warnings = outcome.warnings;
}

QString GapReference::compareWithFiles(const Session &session, const QStringList &files)
{
    cancel(); // a late evaluator result must not replace this one
    const auto outcome = computeFileGap(session, files);
    if (!outcome->error.isEmpty())
        return outcome->error;
    apply(*outcome, files, std::nullopt);
    return {};
}

void GapReference::compareWithEvaluator(
    std::shared_ptr<const Session> session, const eval::InputChoice &inputs, const QString &referenceGraph)
{
    cancel();
    evalgap::EvalGapOptions opts;
    opts.inputs = inputs;
    opts.referenceGraph = referenceGraph.toStdString();
    opts.isolated = true;
    Q_EMIT evaluationStarted();
    m_job->start(
        [session, opts](BackgroundJob::Control &job) mutable {
            opts.progress = [&job](int permille) { return job.setProgress(permille); };
            auto out = std::make_shared<Outcome>();
            auto ref = evalgap::referenceFromEvaluator(*session->etrecord, session.get(), opts);
            if (!ref) {
                out->error = toQString(ref.error().message());
                return out;
            }
            for (const auto &w : ref->warnings)
                out->warnings << toQString(w);
            out->tables = tablesOf(analysis::computeGapTables(*session, ref->accumulated,
                                       ref->isolated ? &*ref->isolated : nullptr, computedMetrics()),
                out->error);
            return out;
        },
        [this, inputs](std::shared_ptr<Outcome> outcome) {
            if (outcome->error.isEmpty())
                apply(*outcome, {}, inputs);
            Q_EMIT finished(outcome->error.isEmpty(),
                outcome->error.isEmpty() ? outcome->warnings.join(QLatin1Char('\n')) : outcome->error, true);
        });
}

bool GapReference::recompute(std::shared_ptr<const Session> session)
{
    if (!session)
        return false;
    if (!m_files.isEmpty()) {
        cancel();
        m_job->start([session, files = m_files](BackgroundJob::Control &) { return computeFileGap(*session, files); },
            [this, files = m_files](std::shared_ptr<Outcome> outcome) {
                if (outcome->error.isEmpty())
                    apply(*outcome, files, std::nullopt);
                Q_EMIT finished(outcome->error.isEmpty(), outcome->error, false);
            });
        return true;
    }
    if (m_evaluatorInputs && session->etrecord && session->debugBuffer) {
        compareWithEvaluator(std::move(session), *m_evaluatorInputs);
        return true;
    }
    return false;
}

void GapReference::arrange(analysis::Metric primary, std::optional<double> threshold)
{
    if (!m_tables)
        return;
    for (auto *list : { &m_tables->accumulated, &m_tables->isolated }) {
        std::stable_partition(
            list->begin(), list->end(), [primary](const analysis::GapTable &t) { return t.metric == primary; });
        for (analysis::GapTable &t : *list) {
            const std::optional<double> want = t.metric == primary ? threshold : std::nullopt;
            if (t.threshold != want)
                analysis::applyThreshold(t, want);
        }
    }
}

void GapReference::clear()
{
    cancel();
    m_tables.reset();
    m_files.clear();
    m_evaluatorInputs.reset();
    m_warnings.clear();
}

bool GapReference::cancel()
{
    if (!m_job->cancel())
        return false;
    m_job->waitForFinished();
    return true;
}

bool GapReference::running() const
{
    return m_job->isRunning();
}

} // namespace etscope
