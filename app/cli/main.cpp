// etscope-cli: the headless twin of the etscope GUI, built on core/ only (no Qt).
#include "command.h"
#include "common/atomicwrite.h"
#include "common/memory.h"

#include "etdump/etdumpfile.h"

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

void addInputOptions(CLI::App &sub, InputOptions &o, bool etdumpRequired)
{
    auto *e = sub.add_option("--etdump,-e", o.etdump, "ETDump file (.etdp)");
    if (etdumpRequired)
        e->required();
    sub.add_option("--debug-buffer,-b", o.debugBuffer, "Debug buffer (.bin) holding intermediate tensors");
    sub.add_option("--etrecord,-r", o.etrecord, "ETRecord (.bin zip) for op types, stack traces and modules");
    sub.add_option("--source-time-scale", o.sourceTimeScale, "Unit of the raw timestamps: ns, us, ms, s, cycles")
        ->check(CLI::IsMember({ "ns", "us", "ms", "s", "cycles" }));
    sub.add_option("--target-time-scale", o.targetTimeScale, "Unit to show: ns, us, ms, s, cycles")
        ->check(CLI::IsMember({ "ns", "us", "ms", "s", "cycles" }));
    sub.add_option(
        "--cycles-per-second", o.cyclesPerSecond, "Clock rate used to show cycle counts as time (source scale cycles)");
}

int reportError(const Error &e)
{
    std::fprintf(stderr, "etscope-cli: %s\n", e.message().c_str());
    return kExitBadInput;
}

std::shared_ptr<const Session> loadOrReport(const InputOptions &o)
{
    SessionInputs in;
    in.etdump = o.etdump;
    in.debugBuffer = o.debugBuffer;
    in.etrecord = o.etrecord;
    in.bundledProgram = o.bundledProgram;
    in.link = o.link;
    in.time.source = *parseTimeScale(o.sourceTimeScale);
    in.time.target = *parseTimeScale(o.targetTimeScale);
    if (o.cyclesPerSecond > 0)
        in.time.cyclesPerSecond = o.cyclesPerSecond;
    auto session = loadSession(in);
    if (!session) {
        reportError(session.error());
        return nullptr;
    }
    for (const auto &w : (*session)->warnings)
        std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
    return session.value();
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
