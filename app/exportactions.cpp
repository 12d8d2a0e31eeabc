#include "exportactions.h"

#include "export/chrometrace.h"
#include "export/htmlreport.h"

#include <QSaveFile>

namespace etscope {

QString exportTraceFile(const Session &session, const QString &path)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return path + QStringLiteral(": ") + file.errorString();
    auto r = writeChromeTrace(session, {},
        [&](std::string_view chunk) { return file.write(chunk.data(), qint64(chunk.size())) == qint64(chunk.size()); });
    if (!r)
        return path + QStringLiteral(": ") + QString::fromStdString(r.error().message());
    if (!file.commit())
        return path + QStringLiteral(": ") + file.errorString();
    return {};
}

QString exportReportFile(const Session &session, const QString &path)
{
    ReportInputs in;
    in.sessions.push_back(std::shared_ptr<const Session>(std::shared_ptr<const Session>(), &session));
    in.generator = QStringLiteral("etscope %1").arg(QStringLiteral(ETSCOPE_APP_VERSION)).toStdString();
    const std::string html = renderHtmlReport(in);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return path + QStringLiteral(": ") + file.errorString();
    if (file.write(html.data(), qint64(html.size())) != qint64(html.size()) || !file.commit())
        return path + QStringLiteral(": ") + file.errorString();
    return {};
}

} // namespace etscope
