#pragma once

#include "common/error.h"
#include "etdump/debugbuffer.h"
#include "etdump/etdumpfile.h"
#include "etrecord/backendlink.h"
#include "etrecord/linker.h"
#include "events/blockstats.h"
#include "events/event.h"
#include "events/eventblockbuilder.h"
#include "program/delegates/nodelink.h"
#include "program/program.h"
#include "program/runattribution.h"
#include "session/scope.h"

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

class ETRecord;

// What the user opened: an ETDump with its companions, or a program (`.pte`, or the program of a
// `.bpte`) alone.
struct SessionInputs {
    std::string etdump;
    std::string debugBuffer;
    std::string etrecord;
    std::string bundledProgram;
    std::string program; // a .pte (or .bpte); without it, the program of `bundledProgram` is used
    std::vector<std::string> programData; // .ptd files holding the program's external tensors
    std::string method; // the program's method to show; empty: the one the ETDump ran, else the first
    TimeConversion time;
    LinkOptions link; // how `etrecord` is linked to the events (method, reference graph, quirks)
    PhaseOptions phases; // how each run's phase is decided (Session::runTable, scope.h)
    // Interactive use: a companion that cannot be read or does not belong to the ETDump is left
    // out with a warning (kind Dropped) instead of failing the whole load. The CLI keeps it an error.
    bool dropUnpairable = false;
};

// What a warning is about, so that a view can keep showing the ones that concern it (a suspect
// debug buffer on every gap view it feeds) without matching English text.
enum class SessionWarningKind {
    General,
    SuspectDebugBuffer, // the debug buffer is probably not this ETDump's (bufferprovenance.h)
    UnusedDebugBuffer, // the ETDump logs no tensors
    ETRecordMismatch, // the ETRecord is of another program (linker.h)
    ProgramMismatch, // the program does not match the ETDump: shown alone, not paired
    Dropped, // a companion was left out (dropUnpairable); the text says which and why
};

// A warning is its line of text (the file named), printed as it is, with what it is about.
struct SessionWarning : std::string {
    SessionWarning(SessionWarningKind k, std::string text)
        : std::string(std::move(text))
        , kind(k)
    { }
    // A bare line is a general warning (so that `cond ? "" : warning` reads as text does).
    SessionWarning(const char *text) // NOLINT(google-explicit-constructor)
        : std::string(text)
    { }
    SessionWarningKind kind = SessionWarningKind::General;
};

// Progress in [0, 1000]; return false to cancel.
using ProgressFn = std::function<bool(int permille, const std::string &stage)>;

// Everything loaded for one ETDump: decoded file, optional debug buffer, the Inspector's
// EventBlocks (linked to the ETRecord when one is given). Immutable once built: the GUI hands
// it between threads as shared_ptr<const Session>.
struct Session {
    SessionInputs inputs; // as loaded: a dropped companion is no longer in it
    std::shared_ptr<const ETDumpFile> etdump; // null for a program opened alone
    std::shared_ptr<const DebugBuffer> debugBuffer; // may be null
    std::vector<EventBlock> blocks;
    std::vector<SessionWarning> warnings; // non-fatal problems, one line each, file named

    std::shared_ptr<const ETRecord> etrecord; // null unless inputs.etrecord was given

    // The program (null without one, or when it does not match the ETDump) and the method shown:
    // the one whose instructions the ETDump's events match, or inputs.method, or the first.
    std::shared_ptr<const Program> program;
    const ProgramMethod *method = nullptr; // points into `program`
    bool methodPairedWithETDump = false; // some run of the ETDump was attributed to `method`
    // Per block, the method its runs executed (program/runattribution.h); empty without a
    // program or an ETDump.
    std::vector<RunAttribution> runMethods;
    // Every executed run: method, phase, generation, warm-up and outlier flags, the rule that
    // decided; decided once here, read by every view and analysis (scope.h).
    RunTable runTable;

    bool hasWarning(SessionWarningKind kind) const;
    // The warnings of one kind, one line each.
    std::vector<std::string> warningsOf(SessionWarningKind kind) const;
    // The one rule between events and the program's instructions (the Memory plan, Details and
    // the instruction graph use it): an operator event of chain 0 stands for the instruction of
    // its id in `method`, when the ETDump's events were checked against that method.
    std::optional<std::size_t> instructionOfEvent(int block, int event) const;
    // The kernel (or delegate) event of an instruction, in the first block that has one.
    std::optional<EventPosition> eventOfInstruction(std::size_t instruction) const;
    // The method whose instruction ids the events of `block` carry: the one its runs were
    // attributed to, else `method` when the ETDump was paired with it; null otherwise.
    const ProgramMethod *methodOfBlock(std::size_t block) const;
    // The one file that names the session: the ETDump, else the program.
    const std::string &primaryPath() const { return inputs.etdump.empty() ? inputs.program : inputs.etdump; }
};

// The decoded backend events of the session (`table`, decodeBackendEvents of its blocks) placed
// on the nodes of their delegates' decoded payloads (nodelink.h), each block by methodOfBlock.
// Empty without a program.
PayloadEventLinks payloadEventLinks(
    const Session &session, const BackendEventTable &table, std::optional<std::size_t> onlyBlock = {});
// The payload node of the event at (block, event) in `links`, as the CLI and the JSON show it.
std::optional<PayloadNodeRef> payloadNodeRef(const PayloadEventLinks &links, std::size_t block, std::size_t event);

// Reads the ETDump (and debug buffer), builds the EventBlocks and, when an ETRecord is given,
// reads it and links the blocks to it with inputs.link; reads the program (inputs.program, else
// the BundledProgram's) and pairs it with the ETDump by instruction ids and kernel names
// (pairProgramWithETDump). A cancelled load returns ErrorCode::Cancelled.
Result<std::shared_ptr<const Session>> loadSession(const SessionInputs &inputs, const ProgressFn &progress = {});

// What a caller that already holds some inputs in memory (the Python package) hands over
// instead of paths: the ETDump's bytes, an ETRecord already read, a delegate time converter.
struct SessionSources {
    std::shared_ptr<const MappedFile> etdumpBytes; // read instead of inputs.etdump (named by it)
    std::shared_ptr<const ETRecord> etrecord; // linked instead of reading inputs.etrecord
    std::function<double(std::string_view eventName, std::uint64_t ticks)> delegateTimeConverter;
};
Result<std::shared_ptr<const Session>> loadSession(
    const SessionInputs &inputs, const SessionSources &sources, const ProgressFn &progress = {});

} // namespace etscope
