#pragma once

// Answers an image export's two questions as a user would: the pixel size in its dialog (polled
// for, since the dialog runs its own event loop), then the file name through the save-dialog
// hook (QFileDialog's file system model loads asynchronously, which makes driving it racy).

#include "filedialogs.h"

#include <QApplication>
#include <QDialog>
#include <QImage>
#include <QSize>
#include <QSpinBox>
#include <QTimer>

#include <functional>

namespace etscope::test {

inline void answerImageExport(QSize size, const QString &path)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [=] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        const auto spins = dialog ? dialog->findChildren<QSpinBox *>() : QList<QSpinBox *>();
        if (spins.size() != 2)
            return;
        timer->stop();
        timer->deleteLater();
        spins[0]->setValue(size.width());
        spins[1]->setValue(size.height());
        dialog->accept();
    });
    timer->start();
    setSaveFileNameAnswer([path](const QString &) {
        setSaveFileNameAnswer({}); // once
        return path;
    });
}

// The child control (QAction, QAbstractButton) of `parent` whose text is `text`, or nullptr.
template <class Control> Control *controlNamed(const QObject *parent, const QString &text)
{
    for (Control *c : parent->findChildren<Control *>())
        if (c->text() == text)
            return c;
    return nullptr;
}

// Answers the export's questions, runs `trigger` (the click on the export control) and returns
// the logical size of the image it wrote (empty when none was written).
inline QSize exportedImageSize(const std::function<void()> &trigger, QSize size, const QString &path)
{
    answerImageExport(size, path);
    trigger();
    const QImage image(path);
    return image.isNull() ? QSize() : image.size() / image.devicePixelRatio();
}

} // namespace etscope::test
