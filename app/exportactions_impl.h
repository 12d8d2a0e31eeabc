#pragma once

#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>

namespace etscope {

template <typename SessionFn, typename ErrorFn, typename StatusFn>
void addTraceAndReportExports(QWidget *parent, QMenu *file, SessionFn session, ErrorFn showError, StatusFn showStatus)
{
    QMenu *menu = file->addMenu(QObject::tr("E&xport"));
    auto run = [=](const QString &title, const QString &suffix, const QString &filter,
                   QString (*write)(const Session &, const QString &), const QString &done) {
        const auto s = session();
        if (!s) {
            showError(QObject::tr("Nothing to export: open an ETDump first"));
            return;
        }
        const QString base = QFileInfo(QString::fromStdString(s->inputs.etdump)).completeBaseName();
        const QString path = QFileDialog::getSaveFileName(parent, title, base + suffix, filter);
        if (path.isEmpty())
            return;
        const QString error = write(*s, path);
        if (error.isEmpty())
            showStatus(done.arg(path));
        else
            showError(error);
    };
    QObject::connect(
        menu->addAction(QObject::tr("&Trace (Perfetto / chrome://tracing)…")), &QAction::triggered, parent, [=] {
            run(QObject::tr("Export trace"), QStringLiteral(".trace.json"), QObject::tr("Chrome trace JSON (*.json)"),
                &exportTraceFile, QObject::tr("Trace written to %1"));
        });
    QObject::connect(menu->addAction(QObject::tr("&Report (HTML)…")), &QAction::triggered, parent, [=] {
        run(QObject::tr("Export report"), QStringLiteral(".html"), QObject::tr("HTML report (*.html)"),
            &exportReportFile, QObject::tr("Report written to %1"));
    });
}

} // namespace etscope
