// etscope-cli: the headless twin of the etscope GUI, built on core/ only (no Qt).
#include "command.h"
#include "common/atomicwrite.h"
#include "common/memory.h"

#include "etdump/etdumpfile.h"
#include "session/inputfiles.h"

#include <cstdio>
#include <cstdlib>

namespace etscope::cli {

std::vector<Command> &registry()
{
    static std::vector<Command> commands;
    return commands;
}

Registration::Registration(const char *name, const char *description, Setup setup)
{
    registry().push_back({ name, description, std::move(setup) });
}

void addInputOptions(CLI::App &sub, InputOptions &o, bool etdumpRequired, bool positional)
{
    o.etdumpRequired = etdumpRequired;
    sub.add_option("--etdump,-e", o.etdump, "ETDump file (.etdp)");
    sub.add_option("--debug-buffer,-b", o.debugBuffer, "Debug buffer (.bin) holding intermediate tensors");
    sub.add_option("--etrecord,-r", o.etrecord, "ETRecord (.bin zip) for op types, stack traces and modules");
    if (!sub.get_option_no_throw("--program"))
        sub.add_option("--program", o.program,
            "The program (.pte or .bpte) the runs executed: each run's method; left out with a warning when it "
            "does not belong");
    if (!sub.get_option_no_throw("--data"))
        sub.add_option("--data", o.data,
            "FlatTensor file (.ptd) holding the program's external tensors (repeatable); left out with a warning "
            "when it does not belong");
    if (!sub.get_option_no_throw("--method"))
        sub.add_option("--method", o.method, "Scope: only the runs of this method (needs --program)");
    sub.add_option("--phase", o.phase, "Scope: only the runs of this phase (prefill, decode, warmup, other, all)")
        ->check(CLI::IsMember({ "prefill", "decode", "warmup", "warm-up", "other", "all" }));
    if (!sub.get_option_no_throw("--runs"))
        sub.add_option("--runs", o.runs, "Scope: only these runs, N-M (executed runs counted from 0, as `runs` does)");
    auto *prefill = sub.add_option(
        "--prefill-runs", o.prefillRuns, "Phases: the first N runs are prefill, the rest decode (overrides the rule)");
    sub.add_option("--phase-by", o.phaseBy,
           "Phases by the runs' method names, per-operator evidence (one method for both phases), duration, or "
           "none (default: method names, else operators)")
        ->check(CLI::IsMember({ "method", "operators", "duration", "none" }))
        ->excludes(prefill);
    sub.add_flag("--raw-backend-names", o.rawBackendNames,
        "etscope's own outputs name backend events by their raw strings, not their decoded operator");
    if (positional)
        sub.add_option("files", o.files,
            "Input files in any order, sorted by content: ETDump, debug buffer, ETRecord, program (.pte/.bpte), "
            ".ptd");
    sub.add_option("--source-time-scale", o.sourceTimeScale, "Unit of the raw timestamps: ns, us, ms, s, cycles")
        ->check(CLI::IsMember({ "ns", "us", "ms", "s", "cycles" }));
    sub.add_option("--target-time-scale", o.targetTimeScale, "Unit to show: ns, us, ms, s, cycles")
        ->check(CLI::IsMember({ "ns", "us", "ms", "s", "cycles" }));
    sub.add_option(
        "--cycles-per-second", o.cyclesPerSecond, "Clock rate used to show cycle counts as time (source scale cycles)");
    // The ETDump by --etdump or among FILES…: missing, a usage error (exit 2) as a required option is.
    if (etdumpRequired)
        sub.parse_complete_callback([&o] {
            if (o.etdump.empty() && o.files.empty())
                throw CLI::RequiredError("--etdump (or the ETDump among FILES)");
        });
}

int reportError(const Error &e)
{
    std::fprintf(stderr, "etscope-cli: %s\n", e.message().c_str());
    return kExitBadInput;
}

TimeConversion timeConversionOf(const InputOptions &o)
{
    TimeConversion t;
    t.source = *parseTimeScale(o.sourceTimeScale);
    t.target = *parseTimeScale(o.targetTimeScale);
    if (o.cyclesPerSecond > 0)
        t.cyclesPerSecond = o.cyclesPerSecond;
    return t;
}

PhaseOptions phaseOptionsOf(const InputOptions &o)
{
    PhaseOptions p;
    if (o.prefillRuns) {
        p.rule = PhaseRule::PrefillRuns;
        p.prefillRuns = *o.prefillRuns;
    } else if (!o.phaseBy.empty()) {
        p.rule = *parsePhaseRule(o.phaseBy);
    }
    return p;
}

Result<SessionInputs> sessionInputsOf(const InputOptions &o)
{
    SessionInputs in;
    if (!o.files.empty()) {
        const InputFiles f = classifyInputFiles(o.files);
        if (!f.errors.empty())
            return makeError(ErrorCode::InvalidArgument, "", f.errors.front());
        if (!f.ignored.empty())
            return makeError(ErrorCode::InvalidArgument, f.ignored.front(),
                "two files of one kind among FILES (give one recording; `diff` and `tsv` take more)");
        f.applyTo(in);
    }
    auto set = [](std::string &slot, const std::string &v) {
        if (!v.empty())
            slot = v;
    };
    set(in.etdump, o.etdump);
    set(in.debugBuffer, o.debugBuffer);
    set(in.etrecord, o.etrecord);
    set(in.bundledProgram, o.bundledProgram);
    set(in.program, o.program);
    in.programData.insert(in.programData.end(), o.data.begin(), o.data.end());
    if (in.etdump.empty() && o.etdumpRequired)
        return makeError(ErrorCode::InvalidArgument, "", "give the ETDump (--etdump FILE, or among FILES)");
    if (!in.programData.empty() && in.program.empty() && in.bundledProgram.empty())
        return makeError(ErrorCode::InvalidArgument, in.programData.front(), "--data needs the program (--program)");
    in.method = o.method;
    in.link = o.link;
    in.time = timeConversionOf(o);
    in.phases = phaseOptionsOf(o);
    // A program or .ptd that does not belong to the recording is left out with its reason (a
    // warning), never a refusal: the profile does not depend on it. Without a recording the
    // program is what is shown: a .ptd that does not belong is refused.
    in.dropUnpairable = !in.etdump.empty() && (!in.program.empty() || !in.programData.empty());
    if (Status st = checkInputFiles(in); !st)
        return st.error();
    return in;
}

std::shared_ptr<const Session> loadOrReport(const InputOptions &o)
{
    auto in = sessionInputsOf(o);
    if (!in) {
        reportError(in.error());
        return nullptr;
    }
    if (in->phases.rule == PhaseRule::Method && in->program.empty() && in->bundledProgram.empty()) {
        reportError(
            makeError(ErrorCode::InvalidArgument, in->etdump, "--phase-by method needs the program (--program P.pte)"));
        return nullptr;
    }
    auto session = loadSession(*in);
    if (!session) {
        reportError(session.error());
        return nullptr;
    }
    for (const auto &w : (*session)->warnings)
        std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
    return session.value();
}

std::shared_ptr<const Session> loadScopedOrReport(const InputOptions &o)
{
    auto session = loadOrReport(o);
    if (!session)
        return nullptr;
    auto scope = scopeOf(o);
    if (scope && scope->whole())
        return session;
    auto scoped = scopedOrReport(*session, o);
    if (!scoped)
        return nullptr;
    return scopedSession(*session, *scoped);
}

Result<Scope> scopeOf(const InputOptions &o)
{
    Scope scope;
    scope.method = o.method;
    scope.phase = parsePhase(o.phase).value_or(Phase::All);
    if (!o.runs.empty())
        if (Status st = parseRunRange(o.runs, scope); !st)
            return st.error();
    return scope;
}

std::optional<ScopedBlocks> scopedOrReport(const Session &session, const InputOptions &o)
{
    auto scope = scopeOf(o);
    if (!scope) {
        reportError(scope.error());
        return std::nullopt;
    }
    auto scoped = scopeBlocks(session, *scope);
    if (!scoped) {
        reportError(scoped.error());
        return std::nullopt;
    }
    if (!scope->whole())
        std::fprintf(stderr, "etscope-cli: scope: %s (%s)\n", scoped->label.c_str(), scoped->ruleLine.c_str());
    return std::move(scoped.value());
}

namespace {
// "-" (or nothing) is standard output; anything else the one atomic file write of the core.
Status streamTo(
    const std::string &path, const std::function<Status(const std::function<bool(std::string_view)> &sink)> &produce)
{
    if (!path.empty() && path != "-")
        return writeFileAtomically(path, produce);
    const Status st = produce(
        [](std::string_view chunk) { return std::fwrite(chunk.data(), 1, chunk.size(), stdout) == chunk.size(); });
    const bool flushed = std::fflush(stdout) == 0;
    if (!st)
        return st;
    return flushed ? Status(Ok {}) : makeError(ErrorCode::Io, "stdout", "write failed");
}
} // namespace

Status writeOutput(const std::string &path, const std::string &text)
{
    return streamTo(path, [&text, &path](const std::function<bool(std::string_view)> &sink) -> Status {
        if (!sink(text))
            return makeError(ErrorCode::Io, path, "write failed");
        return Ok {};
    });
}

int writeStreamed(
    const std::string &path, const std::function<Status(const std::function<bool(std::string_view)> &sink)> &produce)
{
    const Status st = streamTo(path, produce);
    return st ? 0 : reportError(st.error());
}

} // namespace etscope::cli

int main(int argc, char **argv)
{
    etscope::reexecWithHeapTunables(argv);
    using namespace etscope::cli;
    CLI::App app { "etscope-cli: inspect ExecuTorch ETDump, debug buffer and ETRecord files" };
    app.require_subcommand(0, 1);
    app.footer(kExitCodesHelp);
    bool version = false;
    app.add_flag("--version", version, "Print version, git revision and supported formats");
    std::function<int()> action;
    for (auto &cmd : registry()) {
        CLI::App *sub = app.add_subcommand(cmd.name, cmd.description);
        auto run = cmd.setup(*sub);
        sub->callback([&action, run] { action = run; });
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        // --help prints and succeeds; every other parse error is a usage error.
        return app.exit(e) == 0 ? kExitOk : kExitUsage;
    }
    if (version) {
        std::printf(
            "etscope-cli %s (git %s)\n%s\n", ETSCOPE_VERSION, ETSCOPE_GIT_REVISION, etscope::etdumpSchemaDescription());
        return kExitOk;
    }
    if (!action) {
        std::fputs(app.help().c_str(), stdout);
        return kExitUsage;
    }
    try {
        return action();
    } catch (const std::exception &e) { // last resort: never die with an unhandled exception
        std::fprintf(stderr, "etscope-cli: internal error: %s\n", e.what());
        return kExitInternal;
    }
}
