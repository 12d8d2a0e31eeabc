#pragma once

// File ▸ Export ▸ Trace… and Report…: the CLI's `trace` and `report` for the loaded session
// (core/export), written with QSaveFile.

#include <QString>

#include <memory>

class QMenu;
class QWidget;

namespace etscope {

struct Session;

// Writes a Chrome/Perfetto trace of every block and run; returns "" or a one-line error.
QString exportTraceFile(const Session &session, const QString &path);
// Writes the self-contained HTML report; returns "" or a one-line error.
QString exportReportFile(const Session &session, const QString &path);

// Adds an "Export" submenu with Trace… and Report… to `file`. `session` is asked for the
// current session when an action runs (may return null); errors go to `showError`.
template <typename SessionFn, typename ErrorFn, typename StatusFn>
void addTraceAndReportExports(QWidget *parent, QMenu *file, SessionFn session, ErrorFn showError, StatusFn showStatus);

} // namespace etscope

#include "exportactions_impl.h"
