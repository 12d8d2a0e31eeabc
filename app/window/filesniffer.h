#pragma once

#include <QString>
#include <QStringList>

namespace etscope {

// What a file is, decided from its bytes (never from its extension).
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

struct SniffResult {
    FileKind kind = FileKind::Unreadable;
    QString error; // one line naming the file, for Unreadable
};

SniffResult sniffFile(const QString &path);
QString fileKindName(FileKind kind);

// A dropped/opened set of files sorted by kind. Several ETDumps: the last one wins (reported).
struct ClassifiedFiles {
    QString etdump, debugBuffer, etrecord, bundledProgram, program;
    QStringList programData; // every .ptd given (a program may take several)
    QStringList errors; // unreadable files
    QStringList ignored; // extra files of a kind already taken
};
ClassifiedFiles classifyFiles(const QStringList &paths);

// Files given together, one recording each: every ETDump starts a recording and the companions
// after it belong to it (those before the first ETDump to the first). Two ETDumps on the command
// line are a comparison: A = the first group, B = the second.
QList<QStringList> splitRecordings(const QStringList &paths);

} // namespace etscope
