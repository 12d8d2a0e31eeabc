#include "widgetexport.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QWidget>

namespace etscope {

QString exportWidgetImage(QWidget *widget, const QString &path, const QString &title)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(widget->size());
        svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
        svg.setTitle(title);
        svg.setDescription(QStringLiteral("etscope"));
        QPainter painter(&svg);
        widget->render(&painter, {}, {}, QWidget::DrawChildren);
        painter.end();
    } else {
        const QPixmap pixmap = widget->grab();
        if (!pixmap.save(&buffer, "PNG"))
            return path + QStringLiteral(": cannot encode PNG");
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return path + QStringLiteral(": ") + file.errorString();
    if (file.write(bytes) != bytes.size() || !file.commit())
        return path + QStringLiteral(": ") + file.errorString();
    return {};
}

} // namespace etscope
