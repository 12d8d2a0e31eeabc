#include "filesniffer.h"

#include "etdump/etdumpfile.h"
#include "program/flattensor.h"
#include "program/program.h"

#include <QFile>
#include <QFileInfo>

namespace etscope {

SniffResult sniffFile(const QString &path)
{
    QFile file(path);
    const QFileInfo info(path);
    if (!info.exists()) // a mistyped path, a file moved away
        return { FileKind::Unreadable, path + QStringLiteral(": no such file") };
    if (!info.isFile())
        return { FileKind::Unreadable, path + QStringLiteral(": not a regular file") };
    if (!file.open(QIODevice::ReadOnly))
        return { FileKind::Unreadable, path + QStringLiteral(": ") + file.errorString() };
    const qint64 size = file.size();
    if (size == 0)
        return { FileKind::Unreadable, path + QStringLiteral(": file is empty") };
    const QByteArray head = file.read(64);
    if (looksLikeETDump(reinterpret_cast<const std::uint8_t *>(head.constData()), std::size_t(head.size())))
        return { FileKind::ETDump, {} };
    if (head.size() >= 8 && head.mid(4, 4) == QByteArrayLiteral("BP08"))
        return { FileKind::BundledProgram, {} };
    if (looksLikeProgram(reinterpret_cast<const std::uint8_t *>(head.constData()), std::size_t(head.size())))
        return { FileKind::Program, {} };
    if (looksLikeFlatTensor(reinterpret_cast<const std::uint8_t *>(head.constData()), std::size_t(head.size())))
        return { FileKind::ProgramData, {} };
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("etdp") || suffix == QLatin1String("etdump"))
        // Named like an ETDump but not one: a debug buffer is never saved under that name.
        return { FileKind::Unreadable,
            path + QStringLiteral(": named like an ETDump but is not one (no ED00 identifier)") };
    if (head.startsWith(QByteArrayLiteral("PK\x03\x04"))) {
        // The central directory sits at the end of a zip; the entry name is stored there.
        const qint64 tail = std::min<qint64>(size, 64 * 1024);
        file.seek(size - tail);
        if (file.read(tail).contains(QByteArrayLiteral("ETRECORD_V0")))
            return { FileKind::ETRecord, {} };
        return { FileKind::TorchSave, {} };
    }
    return { FileKind::DebugBuffer, {} };
}

QString fileKindName(FileKind kind)
{
    switch (kind) {
    case FileKind::ETDump:
        return QStringLiteral("ETDump");
    case FileKind::ETRecord:
        return QStringLiteral("ETRecord");
    case FileKind::BundledProgram:
        return QStringLiteral("BundledProgram");
    case FileKind::Program:
        return QStringLiteral("program");
    case FileKind::ProgramData:
        return QStringLiteral("program data (.ptd)");
    case FileKind::TorchSave:
        return QStringLiteral("torch.save file");
    case FileKind::DebugBuffer:
        return QStringLiteral("debug buffer");
    case FileKind::Unreadable:
        return QStringLiteral("unreadable");
    }
    return {};
}

ClassifiedFiles classifyFiles(const QStringList &paths)
{
    ClassifiedFiles out;
    auto take = [&](QString &slot, const QString &path) {
        if (!slot.isEmpty())
            out.ignored << slot;
        slot = path;
    };
    for (const QString &path : paths) {
        const SniffResult r = sniffFile(path);
        switch (r.kind) {
        case FileKind::ETDump:
            take(out.etdump, path);
            break;
        case FileKind::ETRecord:
            take(out.etrecord, path);
            break;
        case FileKind::BundledProgram:
            take(out.bundledProgram, path);
            break;
        case FileKind::Program:
            take(out.program, path);
            break;
        case FileKind::ProgramData:
            out.programData << path;
            break;
        case FileKind::DebugBuffer:
            take(out.debugBuffer, path);
            break;
        case FileKind::TorchSave:
            // AOT outputs or inputs belong to a numeric gap, not to a recording.
            out.errors << path
                    + QStringLiteral(": a torch.save file, not a companion of an ETDump (use it as a "
                                     "reference in Analysis ▸ Numeric gap)");
            break;
        case FileKind::Unreadable:
            out.errors << r.error;
            break;
        }
    }
    return out;
}

QList<QStringList> splitRecordings(const QStringList &paths)
{
    QList<QStringList> groups;
    QStringList before; // companions before the first ETDump
    for (const QString &path : paths) {
        if (sniffFile(path).kind == FileKind::ETDump)
            groups.append({ path });
        else if (groups.isEmpty())
            before << path;
        else
            groups.last() << path;
    }
    if (groups.isEmpty())
        return { before };
    groups.first() = before + groups.first();
    return groups;
}

} // namespace etscope
