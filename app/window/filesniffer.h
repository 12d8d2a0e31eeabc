#pragma once

// The window's view of core/session/inputfiles.h (what a file is, by its bytes): the same rules,
// in Qt strings. Nothing is decided here.

#include "session/inputfiles.h"

#include <QString>
#include <QStringList>

namespace etscope {

struct SniffResult {
    FileKind kind = FileKind::Unreadable;
    QString error; // one line naming the file, for Unreadable
};

SniffResult sniffFile(const QString &path);
QString fileKindName(FileKind kind);

// A dropped/opened set of files sorted by kind (classifyInputFiles). Several ETDumps: the last one
// wins (reported).
struct ClassifiedFiles {
    QString etdump, debugBuffer, etrecord, bundledProgram, program;
    QStringList programData; // every .ptd given (a program may take several)
    QStringList errors; // unreadable files
    QStringList ignored; // extra files of a kind already taken
};
ClassifiedFiles classifyFiles(const QStringList &paths);

// Files given together, one recording each (splitInputRecordings). Two ETDumps on the command
// line are a comparison: A = the first group, B = the second.
QList<QStringList> splitRecordings(const QStringList &paths);

} // namespace etscope
