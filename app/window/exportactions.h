#pragma once

// File ▸ Export: the table, charts, and the CLI's `trace` and `report` for the loaded session
// (core/export), written whole or not at all (saveFile, model/savefile.h).

#include <QObject>
#include <QSize>
#include <QString>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

class QAction;
class QMenu;
class QWidget;

namespace etscope {

struct Session;
namespace analysis {
struct GapTable;
}

// Writes a Chrome/Perfetto trace of every block and run; returns "" or a one-line error.
QString exportTraceFile(const Session &session, const QString &path);
// Writes the self-contained HTML report (with the numeric gap the window shows, when given);
// returns "" or a one-line error.
QString exportReportFile(const Session &session, const QString &path, const analysis::GapTable *gap = nullptr);

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

// Asks for a size (remembered when `persistSize`) and a PNG/SVG file, then renders there with
// `render(path, size)` ("" or a one-line error), reporting through `feedback`.
void exportChartInteractive(QWidget *parent, const QString &name, bool persistSize,
    const std::function<QString(const QString &path, QSize size)> &render, const ExportFeedback &feedback);

// The panels' charts, each exported from File ▸ Export Chart and from its own right-click menu:
// drawn again at the size asked, to PNG or SVG (the one chart-export path).
class ChartExports : public QObject
{
    Q_OBJECT
public:
    ChartExports(QWidget *window, QMenu *menu, bool persistSize, std::function<ExportFeedback()> feedback);
    // `unavailable` says why the chart has nothing to export now ("" when it has): the menu entry
    // is greyed out with the reason, and an export refuses with it.
    void add(const QString &name, const QString &title, QWidget *chart, std::function<QString()> unavailable = {});
    // Why chart `name` cannot be exported now; "" when it can.
    QString unavailableReason(const QString &name) const;
    // Renders chart `name` at `size` to `path`; false and a one-line error otherwise.
    bool exportTo(const QString &name, const QString &path, QSize size, QString *error = nullptr) const;
    // Asks for the size and the file, then exports.
    void exportInteractive(const QString &name) const;

private:
    QWidget *m_window;
    QMenu *m_menu;
    bool m_persistSize;
    std::function<ExportFeedback()> m_feedback;
    struct Entry {
        QString name, title;
        QWidget *widget = nullptr;
        std::function<QString()> unavailable;
        QAction *menuAction = nullptr;
        QAction *contextAction = nullptr;
    };
    void updateActions() const;
    std::vector<Entry> m_charts;
};

// Adds an "Export" submenu with Trace… and Report… to `file`; `session` and `gap` are asked for
// the current session and numeric gap when an action runs (either may return null).
void addTraceAndReportExports(QWidget *parent, QMenu *file,
    const std::function<std::shared_ptr<const Session>()> &session,
    const std::function<const analysis::GapTable *()> &gap, const ExportFeedback &feedback);

} // namespace etscope
