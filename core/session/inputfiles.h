#pragma once

// What a file is, decided from its bytes (never from its extension), and a set of files sorted
// into the inputs of one session. The one definition the CLI (positional FILES…), Python and the
// window (app/window/filesniffer.*, a Qt adapter) use.

#include <string>
#include <vector>

namespace etscope {

struct SessionInputs;

enum class FileKind {
    ETDump,
    ETRecord,
    BundledProgram,
    Program, // a .pte
    ProgramData, // a .ptd (FlatTensor): the program's weights kept outside it
    TorchSave, // a zip that is not an ETRecord: a torch.save file (AOT outputs, inputs)
    DebugBuffer, // anything else: a debug buffer has no header of its own
    Unreadable,
};
// "ETDump", "ETRecord", "BundledProgram", "program", "program data (.ptd)", "torch.save file",
// "debug buffer", "unreadable".
const char *fileKindLabel(FileKind kind);

struct FileSniff {
    FileKind kind = FileKind::Unreadable;
    std::string error; // one line naming the file, for Unreadable
};
FileSniff sniffInputFile(const std::string &path);

// A set of files sorted by kind. Several of one kind (but .ptd): the last one wins, the others
// are listed in `ignored`.
struct InputFiles {
    std::string etdump, debugBuffer, etrecord, bundledProgram, program;
    std::vector<std::string> programData; // every .ptd given (a program may take several)
    std::vector<std::string> errors; // unreadable files and torch.save files, one line each
    std::vector<std::string> ignored; // extra files of a kind already taken
    // Fills the file fields of `inputs` (those this set has; the others are kept).
    void applyTo(SessionInputs &inputs) const;
};
InputFiles classifyInputFiles(const std::vector<std::string> &paths);

// Files given together, one recording each: every ETDump starts a recording and the companions
// after it belong to it (those before the first ETDump to the first).
std::vector<std::vector<std::string>> splitInputRecordings(const std::vector<std::string> &paths);

} // namespace etscope
