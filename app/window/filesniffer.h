#pragma once

// The window's side of file sniffing: Qt strings over the one definition in the core
// (session/inputfiles.h), which the CLI and Python use too.

#include "session/inputfiles.h"

#include <QString>
#include <QStringList>

namespace etscope {

struct SniffResult {
    FileKind kind = FileKind::Unreadable;
    QString error; // one line naming the file, for Unreadable ("…: no such file")
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
