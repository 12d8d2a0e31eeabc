#include "filesniffer.h"

#include "qtstrings.h"

namespace etscope {

namespace {
std::vector<std::string> toStd(const QStringList &paths)
{
    std::vector<std::string> out;
    out.reserve(std::size_t(paths.size()));
    for (const QString &p : paths)
        out.push_back(p.toStdString());
    return out;
}

QStringList toQt(const std::vector<std::string> &paths)
{
    QStringList out;
    for (const std::string &p : paths)
        out << toQString(p);
    return out;
}
} // namespace

SniffResult sniffFile(const QString &path)
{
    const FileSniff s = sniffInputFile(path.toStdString());
    return { s.kind, toQString(s.error) };
}

QString fileKindName(FileKind kind)
{
    return QString::fromLatin1(fileKindLabel(kind));
}

ClassifiedFiles classifyFiles(const QStringList &paths)
{
    const InputFiles f = classifyInputFiles(toStd(paths));
    ClassifiedFiles out;
    out.etdump = toQString(f.etdump);
    out.debugBuffer = toQString(f.debugBuffer);
    out.etrecord = toQString(f.etrecord);
    out.bundledProgram = toQString(f.bundledProgram);
    out.program = toQString(f.program);
    out.programData = toQt(f.programData);
    out.errors = toQt(f.errors);
    out.ignored = toQt(f.ignored);
    return out;
}

QList<QStringList> splitRecordings(const QStringList &paths)
{
    QList<QStringList> out;
    for (const auto &group : splitInputRecordings(toStd(paths)))
        out << toQt(group);
    if (out.isEmpty())
        out << QStringList();
    return out;
}

} // namespace etscope
