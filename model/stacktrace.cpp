#include "stacktrace.h"

#include <QRegularExpression>
#include <QStringList>

namespace etscope {

QList<StackFrame> parsePythonTraceback(const QString &text)
{
    static const QRegularExpression header(
        QString::fromLatin1(R"re(^\s*File "([^"]+)", line (\d+)(?:, in (.+))?\s*$)re"));
    QList<StackFrame> frames;
    const QStringList lines = text.split(QLatin1Char('\n'));
    for (const QString &line : lines) {
        const auto m = header.match(line);
        if (m.hasMatch()) {
            StackFrame f;
            f.file = m.captured(1);
            f.line = m.captured(2).toInt();
            f.function = m.captured(3).trimmed();
            frames.append(f);
        } else if (!frames.isEmpty() && frames.last().code.isEmpty() && line.startsWith(QLatin1Char(' '))
            && !line.trimmed().isEmpty()) {
            frames.last().code = line.trimmed();
        }
    }
    return frames;
}

} // namespace etscope
