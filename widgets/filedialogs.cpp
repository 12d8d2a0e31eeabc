#include "filedialogs.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>

namespace etscope {

namespace {
const QString kKey = QStringLiteral("lastFolder");
} // namespace

QString lastUsedFolder()
{
    return QSettings().value(kKey).toString();
}

void rememberFolderOf(const QString &path)
{
    if (!path.isEmpty())
        QSettings().setValue(kKey, QFileInfo(path).absolutePath());
}

QString askSaveFileName(QWidget *parent, const QString &title, const QString &suggestedName, const QString &filter)
{
    const QString folder = lastUsedFolder();
    const QString start = folder.isEmpty() ? suggestedName : QDir(folder).filePath(suggestedName);
    const QString path = QFileDialog::getSaveFileName(parent, title, start, filter);
    rememberFolderOf(path);
    return path;
}

QString askOpenFileName(QWidget *parent, const QString &title, const QString &filter)
{
    const QString path = QFileDialog::getOpenFileName(parent, title, lastUsedFolder(), filter);
    rememberFolderOf(path);
    return path;
}

QStringList askOpenFileNames(QWidget *parent, const QString &title, const QString &filter)
{
    const QStringList paths = QFileDialog::getOpenFileNames(parent, title, lastUsedFolder(), filter);
    if (!paths.isEmpty())
        rememberFolderOf(paths.front());
    return paths;
}

} // namespace etscope
