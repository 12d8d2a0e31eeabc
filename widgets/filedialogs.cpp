#include "filedialogs.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QSettings>
#include <QSpinBox>

namespace etscope {

namespace {
const QString kKey = QStringLiteral("lastFolder");
std::function<QString(const QString &)> &saveAnswer()
{
    static std::function<QString(const QString &)> answer;
    return answer;
}

std::optional<QSize> askChartSize(QWidget *parent, bool persistSize)
{
    QSettings settings;
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("Export chart"));
    auto *form = new QFormLayout(&dialog);
    auto *width = new QSpinBox(&dialog);
    auto *height = new QSpinBox(&dialog);
    width->setRange(200, 10000);
    height->setRange(150, 10000);
    width->setSuffix(QObject::tr(" px"));
    height->setSuffix(QObject::tr(" px"));
    width->setValue(persistSize ? settings.value(QStringLiteral("chartExportWidth"), 1600).toInt() : 1600);
    height->setValue(persistSize ? settings.value(QStringLiteral("chartExportHeight"), 900).toInt() : 900);
    form->addRow(QObject::tr("Width"), width);
    form->addRow(QObject::tr("Height"), height);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted)
        return std::nullopt;
    if (persistSize) {
        settings.setValue(QStringLiteral("chartExportWidth"), width->value());
        settings.setValue(QStringLiteral("chartExportHeight"), height->value());
    }
    return QSize(width->value(), height->value());
}

} // namespace

void setSaveFileNameAnswer(std::function<QString(const QString &suggested)> answer)
{
    saveAnswer() = std::move(answer);
}

QString lastUsedFolder()
{
    const QString folder = QSettings().value(kKey).toString();
    return QFileInfo(folder).isDir() ? folder : QString(); // deleted since: start where Qt would
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
    const auto answer = saveAnswer(); // a copy: the answer may replace itself
    const QString path = answer ? answer(start) : QFileDialog::getSaveFileName(parent, title, start, filter);
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

std::optional<ImageExport> askImageExport(
    QWidget *parent, const QString &title, const QString &suggestedName, bool persistSize)
{
    const auto size = askChartSize(parent, persistSize);
    if (!size)
        return std::nullopt;
    const QString path
        = askSaveFileName(parent, title, suggestedName, QObject::tr("PNG image (*.png);;SVG vector image (*.svg)"));
    if (path.isEmpty())
        return std::nullopt;
    return ImageExport { path, *size };
}

} // namespace etscope
