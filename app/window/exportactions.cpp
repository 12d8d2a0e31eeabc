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
    : QObject(window)
    , m_window(window)
    , m_menu(menu)
    , m_persistSize(persistSize)
    , m_feedback(std::move(feedback))
{
    QObject::connect(m_menu, &QMenu::aboutToShow, m_menu, [this] { updateActions(); });
}

void ChartExports::add(const QString &name, const QString &title, QWidget *chart, std::function<QString()> unavailable)
{
    Entry e { name, title, chart, std::move(unavailable), nullptr, nullptr };
    chart->setContextMenuPolicy(Qt::ActionsContextMenu);
    e.contextAction = new QAction(QObject::tr("Save Chart as PNG or SVG…"), chart);
    QObject::connect(e.contextAction, &QAction::triggered, chart, [this, name] { exportInteractive(name); });
    chart->addAction(e.contextAction);
    e.menuAction = m_menu->addAction(title);
    QObject::connect(e.menuAction, &QAction::triggered, m_menu, [this, name] { exportInteractive(name); });
    m_charts.push_back(std::move(e));
}

QString ChartExports::unavailableReason(const QString &name) const
{
    for (const Entry &e : m_charts)
        if (e.name == name)
            return e.unavailable ? e.unavailable() : QString();
    return QObject::tr("no chart named %1").arg(name);
}

void ChartExports::updateActions() const
{
    // A greyed-out entry says why: a disabled menu entry shows no tooltip.
    for (const Entry &e : m_charts) {
        const QString why = e.unavailable ? e.unavailable() : QString();
        e.menuAction->setEnabled(why.isEmpty());
        e.menuAction->setText(why.isEmpty() ? e.title : QStringLiteral("%1 (%2)").arg(e.title, why));
        e.contextAction->setEnabled(why.isEmpty());
    }
}

bool ChartExports::exportTo(const QString &name, const QString &path, QSize size, QString *error) const
{
    QWidget *chart = nullptr;
    for (const Entry &e : m_charts)
        if (e.name == name)
            chart = e.widget;
    const QString e
        = chart ? exportChartImage(chart, path, size, name) : path + QObject::tr(": no chart named %1").arg(name);
    if (error)
        *error = e;
    return e.isEmpty();
}

void ChartExports::exportInteractive(const QString &name) const
{
    if (const QString why = unavailableReason(name); !why.isEmpty()) {
        m_feedback().error(QObject::tr("Nothing to export: %1").arg(why));
        return;
    }
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
