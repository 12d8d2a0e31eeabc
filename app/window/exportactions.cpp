#include "exportactions.h"
#include "dialogs.h"
#include "filedialogs.h"
#include "qtstrings.h"
#include "widgetexport.h"

#include "export/chrometrace.h"
#include "export/htmlreport.h"
#include "export/reportgap.h"
#include "savefile.h"
#include "session/session.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>

namespace etscope {

QString exportTraceFile(const Session &session, const QString &path)
{
    return saveFile(path, [&](const WriteSink &sink) -> Status {
        auto r = writeChromeTrace(session, {}, sink);
        if (!r)
            return r.error();
        return Ok {};
    });
}

QString exportReportFile(const Session &session, const QString &path, const analysis::GapTable *gap)
{
    ReportInputs in;
    in.sessions.push_back(std::shared_ptr<const Session>(std::shared_ptr<const Session>(), &session));
    if (gap)
        in.gap = reportGapFromTable(*gap, session);
    in.generator = QStringLiteral("etscope %1").arg(QStringLiteral(ETSCOPE_APP_VERSION)).toStdString();
    const std::string html = renderHtmlReport(in);
    return saveFile(path, html);
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

ChartExports::ChartExports(QWidget *window, QMenu *menu, bool persistSize, std::function<ExportFeedback()> feedback)
    : m_window(window)
    , m_menu(menu)
    , m_persistSize(persistSize)
    , m_feedback(std::move(feedback))
{ }

void ChartExports::add(const QString &name, const QString &title, QWidget *chart)
{
    m_charts.emplace_back(name, chart);
    chart->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto *save = new QAction(QObject::tr("Save Chart as PNG or SVG…"), chart);
    QObject::connect(save, &QAction::triggered, chart, [this, name] { exportInteractive(name); });
    chart->addAction(save);
    QObject::connect(m_menu->addAction(title), &QAction::triggered, m_menu, [this, name] { exportInteractive(name); });
}

bool ChartExports::exportTo(const QString &name, const QString &path, QSize size, QString *error) const
{
    QWidget *chart = nullptr;
    for (const auto &[n, w] : m_charts)
        if (n == name)
            chart = w;
    const QString e
        = chart ? exportChartImage(chart, path, size, name) : path + QObject::tr(": no chart named %1").arg(name);
    if (error)
        *error = e;
    return e.isEmpty();
}

void ChartExports::exportInteractive(const QString &name) const
{
    exportChartInteractive(
        m_window, name, m_persistSize,
        [this, name](const QString &path, QSize size) {
            QString error;
            exportTo(name, path, size, &error);
            return error;
        },
        m_feedback());
}

} // namespace etscope
