#pragma once

// Every file dialog of the app starts in the last folder the user used (remembered across
// sessions), and remembers the folder of what was chosen.

#include <QString>
#include <QStringList>

class QWidget;

namespace etscope {

// `suggestedName` is a bare file name ("graph.png"): it is put in the last folder used.
QString askSaveFileName(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter);
QString askOpenFileName(QWidget *parent, const QString &title, const QString &filter = {});
QStringList askOpenFileNames(QWidget *parent, const QString &title, const QString &filter = {});

// The folder the next dialog starts in ("" before the first use); set by the functions above.
QString lastUsedFolder();
void rememberFolderOf(const QString &path);

} // namespace etscope
