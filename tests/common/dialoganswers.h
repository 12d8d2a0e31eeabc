#pragma once

// Answers an image export's two modal dialogs as a user would: the pixel size first, then the
// file name. Polls for the active modal widget, since each dialog runs its own event loop.

#include <QApplication>
#include <QDialog>
#include <QFileDialog>
#include <QSize>
#include <QSpinBox>
#include <QTimer>

#include <memory>

namespace etscope::test {

inline void answerImageExport(QSize size, const QString &path)
{
    auto *timer = new QTimer;
    timer->setInterval(20);
    auto sizeAnswered = std::make_shared<bool>(false);
    QObject::connect(timer, &QTimer::timeout, [=] {
        QWidget *modal = QApplication::activeModalWidget();
        if (auto *files = qobject_cast<QFileDialog *>(modal); files && *sizeAnswered) {
            timer->stop();
            timer->deleteLater();
            files->selectFile(path);
            QMetaObject::invokeMethod(files, "accept"); // protected in QFileDialog
        } else if (auto *dialog = qobject_cast<QDialog *>(modal); dialog && !files && !*sizeAnswered) {
            const auto spins = dialog->findChildren<QSpinBox *>();
            if (spins.size() != 2)
                return;
            spins[0]->setValue(size.width());
            spins[1]->setValue(size.height());
            *sizeAnswered = true;
            dialog->accept();
        }
    });
    timer->start();
}

} // namespace etscope::test
