#pragma once

// File ▸ Export: the table, charts, and the CLI's `trace` and `report` for the loaded session
// (core/export), written with QSaveFile.

#include <QString>

#include <functional>
#include <memory>

class QMenu;
class QWidget;

namespace etscope {

struct Session;

// Writes a Chrome/Perfetto trace of every block and run; returns "" or a one-line error.
QString exportTraceFile(const Session &session, const QString &path);
// Writes the self-contained HTML report; returns "" or a one-line error.
QString exportReportFile(const Session &session, const QString &path);

// Where an interactive export reports: an error for the message bar, a "written to" line for
// the status bar.
struct ExportFeedback {
    std::function<void(const QString &)> error;
    std::function<void(const QString &)> written;
};

// Asks for a file name (the session's ETDump base name + `suffix`), then `write(path)` ("" or a
// one-line error); `doneText` has %1 for the path.
void exportInteractive(QWidget *parent, const Session *session, const QString &title, const QString &suffix,
    const QString &filter, const std::function<QString(const QString &path)> &write, const QString &doneText,
    const ExportFeedback &feedback);

// Adds an "Export" submenu with Trace… and Report… to `file`; `session` is asked for the
// current session when an action runs (may return null).
void addTraceAndReportExports(QWidget *parent, QMenu *file,
    const std::function<std::shared_ptr<const Session>()> &session, const ExportFeedback &feedback);

} // namespace etscope
