#pragma once

// Subcommands register themselves: each cmd_*.cpp defines a static Registration, so adding a
// command is adding a file (app/cli/CMakeLists.txt globs them).

#include "common/error.h"
#include "events/timescale.h"
#include "session/session.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace etscope::cli {

// The process exit status of every command, so that a CI gate can tell a regression from a crash
// (listed at the end of `etscope-cli --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1; // a file cannot be read or used, a bad option value: one line on stderr
inline constexpr int kExitUsage = 2; // unknown option or command, missing argument, no command
inline constexpr int kExitGateTripped = 3; // a CI gate (diff, history, program-diff) found a regression
inline constexpr int kExitInternal = 4; // a bug in etscope: please report it
inline constexpr const char *kExitCodesHelp
    = "Exit status: 0 ok, 1 bad input, 2 usage error, 3 gate tripped (diff --fail-if-slower, history "
      "--fail-on-change, program-diff --fail-if-larger), 4 internal error.";

// Called with the subcommand to add options to; returns the action run when it is chosen.
// The action returns the process exit code.
using Setup = std::function<std::function<int()>(CLI::App &sub)>;

struct Registration {
    Registration(const char *name, const char *description, Setup setup);
};

struct Command {
    std::string name, description;
    Setup setup;
};
std::vector<Command> &registry();

// Options shared by every command that reads an ETDump: the recording's files (by option or as
// positional FILES…, sniffed by content: core/session/inputfiles.h), the program and its .ptd
// files (a session input: the one route to the program), and the scope (session/scope.h).
struct InputOptions {
    std::string etdump, debugBuffer, etrecord, bundledProgram;
    std::string program; // --program: the .pte (or .bpte) the runs executed
    std::vector<std::string> data; // --data: its .ptd files
    std::vector<std::string> files; // positional FILES…, sorted by content
    std::string method; // --method: scope (and the program's method to show)
    std::string phase = "all"; // --phase
    std::string runs; // --runs N-M
    std::string phaseBy; // --phase-by
    std::optional<std::size_t> prefillRuns; // --prefill-runs
    bool rawBackendNames = false; // --raw-backend-names: etscope's own outputs keep raw backend names
    std::string sourceTimeScale = "ns", targetTimeScale = "ms";
    double cyclesPerSecond = 0;
    LinkOptions link; // how --etrecord is linked (commands with linking options set it)
    bool etdumpRequired = true; // set by addInputOptions
};
// The time conversion (--source/--target-time-scale, --cycles-per-second) and the phase options
// (--phase-by, --prefill-runs) the options ask for.
TimeConversion timeConversionOf(const InputOptions &opts);
PhaseOptions phaseOptionsOf(const InputOptions &opts);
// The session's inputs these options name (FILES… sorted by content, then the options).
Result<SessionInputs> sessionInputsOf(const InputOptions &opts);
// Adds the shared options. A command that gives --method another meaning (the ETRecord method
// linked) defines it first; then --method is not a scope for it. `positional`: accept FILES….
void addInputOptions(CLI::App &sub, InputOptions &opts, bool etdumpRequired = true, bool positional = true);
// Parses the time scales and loads the session; prints the one-line error and returns null on failure.
std::shared_ptr<const Session> loadOrReport(const InputOptions &opts);
// loadOrReport, then, when the options ask for a scope (--method, --phase, --runs), a session
// of the scoped blocks (scopedSession): what commands that read blocks (gap, modules, outputs,
// backend-events, compare-outputs, trace) answer for. The scope is named on stderr.
std::shared_ptr<const Session> loadScopedOrReport(const InputOptions &opts);
// The scope the options ask for.
Result<Scope> scopeOf(const InputOptions &opts);
// The session's blocks in the asked scope (the session's own without one); prints the scope's
// label and rule on stderr when a scope was asked, so that every output says which runs it is.
std::optional<ScopedBlocks> scopedOrReport(const Session &session, const InputOptions &opts);
// Prints "etscope-cli: <message>" to stderr; returns kExitBadInput.
int reportError(const Error &e);
// Writes `text` to `path` atomically (temp file + rename), or to stdout when path is "-" or empty.
Status writeOutput(const std::string &path, const std::string &text);
// Streams what `produce` emits to `path` (temp file + rename) or stdout; prints the error and
// returns the exit code.
int writeStreamed(
    const std::string &path, const std::function<Status(const std::function<bool(std::string_view)> &sink)> &produce);

} // namespace etscope::cli
