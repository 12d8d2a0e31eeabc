#pragma once

// Subcommands register themselves: each cmd_*.cpp defines a static Registration, so adding a
// command is adding a file (app/cli/CMakeLists.txt globs them).

#include "common/error.h"
#include "events/timescale.h"
#include "session/session.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace etscope::cli {

// The process exit status of every command, so that a CI gate can tell a regression from a crash
// (listed at the end of `etscope-cli --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1; // a file cannot be read or used, a bad option value: one line on stderr
inline constexpr int kExitUsage = 2; // unknown option or command, missing argument, no command
inline constexpr int kExitGateTripped = 3; // a CI gate (diff --fail-if-slower) found a regression
inline constexpr int kExitInternal = 4; // a bug in etscope: please report it
inline constexpr const char *kExitCodesHelp = "Exit status: 0 ok, 1 bad input, 2 usage error, 3 gate tripped "
                                              "(diff --fail-if-slower), 4 internal error.";

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

// Options shared by every command that reads an ETDump.
struct InputOptions {
    std::string etdump, debugBuffer, etrecord, bundledProgram;
    std::string sourceTimeScale = "ns", targetTimeScale = "ms";
    double cyclesPerSecond = 0;
    LinkOptions link; // how --etrecord is linked (commands with linking options set it)
};
void addInputOptions(CLI::App &sub, InputOptions &opts, bool etdumpRequired = true);
// Parses the time scales and loads the session; prints the one-line error and returns null on failure.
std::shared_ptr<const Session> loadOrReport(const InputOptions &opts);
// Prints "etscope-cli: <message>" to stderr; returns kExitBadInput.
int reportError(const Error &e);
// Writes `text` to `path` atomically (temp file + rename), or to stdout when path is "-" or empty.
Status writeOutput(const std::string &path, const std::string &text);
// Streams what `produce` emits to `path` (temp file + rename) or stdout; prints the error and
// returns the exit code.
int writeStreamed(
    const std::string &path, const std::function<Status(const std::function<bool(std::string_view)> &sink)> &produce);

} // namespace etscope::cli
