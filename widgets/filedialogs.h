#pragma once

// Every file dialog of the app starts in the last folder the user used (remembered across
// sessions), and remembers the folder of what was chosen.

#include <QSize>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QWidget;

namespace etscope {

// `suggestedName` is a bare file name ("graph.png"): it is put in the last folder used.
QString askSaveFileName(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter);
QString askOpenFileName(QWidget *parent, const QString &title, const QString &filter = {});
QStringList askOpenFileNames(QWidget *parent, const QString &title, const QString &filter = {});

// An image export asks its pixel size (the chart or graph is drawn again at that size, not
// grabbed from the screen; remembered when `persistSize`), then the PNG or SVG file. nullopt when
// either is cancelled.
struct ImageExport {
    QString path;
    QSize size;
};
std::optional<ImageExport> askImageExport(
    QWidget *parent, const QString &title, const QString &suggestedName, bool persistSize = true);

// Tests answer the save dialogs without driving QFileDialog, whose file system model loads
// asynchronously: `answer` gets the suggested path and returns the chosen one ("" cancels).
// An empty function restores the real dialog.
void setSaveFileNameAnswer(std::function<QString(const QString &suggested)> answer);

// The folder the next dialog starts in ("" before the first use); set by the functions above.
QString lastUsedFolder();
void rememberFolderOf(const QString &path);

} // namespace etscope
