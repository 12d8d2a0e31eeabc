#pragma once

// Answers an image export's two questions as a user would: the pixel size in its dialog (polled
// for, since the dialog runs its own event loop), then the file name through the save-dialog
// hook (QFileDialog's file system model loads asynchronously, which makes driving it racy).

#include "filedialogs.h"

#include <QApplication>
#include <QDialog>
#include <QSize>
#include <QSpinBox>
#include <QTimer>

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

} // namespace etscope::test
