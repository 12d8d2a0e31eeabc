#include "exportactions.h"
#include "dialogs.h"
#include "filedialogs.h"
#include "qtstrings.h"

#include "export/chrometrace.h"
#include "export/htmlreport.h"
#include "export/reportgap.h"
#include "session/session.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
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
        return path + QStringLiteral(": ") + toQString(r.error().message());
    if (!file.commit())
        return path + QStringLiteral(": ") + file.errorString();
    return {};
}

QString exportReportFile(const Session &session, const QString &path, const analysis::GapTable *gap)
{
    ReportInputs in;
    in.sessions.push_back(std::shared_ptr<const Session>(std::shared_ptr<const Session>(), &session));
    if (gap)
        in.gap = reportGapFromTable(*gap, session);
    in.generator = QStringLiteral("etscope %1").arg(QStringLiteral(ETSCOPE_APP_VERSION)).toStdString();
    const std::string html = renderHtmlReport(in);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return path + QStringLiteral(": ") + file.errorString();
    if (file.write(html.data(), qint64(html.size())) != qint64(html.size()) || !file.commit())
        return path + QStringLiteral(": ") + file.errorString();
    return {};
}

void exportInteractive(QWidget *parent, const Session *session, const QString &title, const QString &suffix,
    const QString &filter, const std::function<QString(const QString &path)> &write, const QString &doneText,
    const ExportFeedback &feedback)
{
    if (!session || !session->etdump) {
        feedback.error(QObject::tr("Nothing to export: open an ETDump first"));
        return;
    }
    const QString base = QFileInfo(toQString(session->inputs.etdump)).completeBaseName();
    const QString path = askSaveFileName(parent, title, base + suffix, filter);
    if (path.isEmpty())
        return;
    const QString error = write(path);
    if (error.isEmpty())
        feedback.written(doneText.arg(path));
    else
        feedback.error(error);
}

void exportChartInteractive(QWidget *parent, const QString &name, bool persistSize,
    const std::function<QString(const QString &path, QSize size)> &render, const ExportFeedback &feedback)
{
    const auto target = askImageExport(parent, QObject::tr("Export chart"), name + QStringLiteral(".png"), persistSize);
    if (!target)
        return;
    if (const QString error = render(target->path, target->size); error.isEmpty())
        feedback.written(QObject::tr("Chart written to %1").arg(target->path));
    else
        feedback.error(error);
}

void addTraceAndReportExports(QWidget *parent, QMenu *file,
    const std::function<std::shared_ptr<const Session>()> &session,
    const std::function<const analysis::GapTable *()> &gap, const ExportFeedback &feedback)
{
    QMenu *menu = file->addMenu(QObject::tr("E&xport"));
    QObject::connect(
        menu->addAction(QObject::tr("&Trace (Perfetto / chrome://tracing)…")), &QAction::triggered, parent, [=] {
            const auto s = session();
            exportInteractive(
                parent, s.get(), QObject::tr("Export trace"), QStringLiteral(".trace.json"),
                QObject::tr("Chrome trace JSON (*.json)"),
                [&](const QString &path) { return exportTraceFile(*s, path); }, QObject::tr("Trace written to %1"),
                feedback);
        });
    QObject::connect(menu->addAction(QObject::tr("&Report (HTML)…")), &QAction::triggered, parent, [=] {
        const auto s = session();
        exportInteractive(
            parent, s.get(), QObject::tr("Export report"), QStringLiteral(".html"), QObject::tr("HTML report (*.html)"),
            [&](const QString &path) { return exportReportFile(*s, path, gap()); }, QObject::tr("Report written to %1"),
            feedback);
    });
}

} // namespace etscope
