#include "filesniffer.h"

namespace etscope {

namespace {
std::vector<std::string> toStd(const QStringList &list)
{
    std::vector<std::string> out;
    out.reserve(std::size_t(list.size()));
    for (const QString &s : list)
        out.push_back(s.toStdString());
    return out;
}

QStringList toQt(const std::vector<std::string> &list)
{
    QStringList out;
    for (const std::string &s : list)
        out << QString::fromStdString(s);
    return out;
}
} // namespace

SniffResult sniffFile(const QString &path)
{
    const FileSniff s = sniffInputFile(path.toStdString());
    return { s.kind, QString::fromStdString(s.error) };
}

QString fileKindName(FileKind kind)
{
    return QString::fromUtf8(fileKindLabel(kind));
}

ClassifiedFiles classifyFiles(const QStringList &paths)
{
    const InputFiles f = classifyInputFiles(toStd(paths));
    ClassifiedFiles out;
    out.etdump = QString::fromStdString(f.etdump);
    out.debugBuffer = QString::fromStdString(f.debugBuffer);
    out.etrecord = QString::fromStdString(f.etrecord);
    out.bundledProgram = QString::fromStdString(f.bundledProgram);
    out.program = QString::fromStdString(f.program);
    out.programData = toQt(f.programData);
    out.errors = toQt(f.errors);
    out.ignored = toQt(f.ignored);
    return out;
}

QList<QStringList> splitRecordings(const QStringList &paths)
{
    QList<QStringList> out;
    for (const auto &group : splitInputRecordings(toStd(paths)))
        out.append(toQt(group));
    return out;
}

} // namespace etscope
