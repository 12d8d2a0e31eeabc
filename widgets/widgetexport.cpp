#include "widgetexport.h"
#include "savefile.h"

#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QPixmap>
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
    return saveFile(path, bytes); // whole or not at all
}

QString exportChartImage(QWidget *chart, const QString &path, QSize size, const QString &title)
{
    if (!chart || size.width() < 16 || size.height() < 16)
        return path + QStringLiteral(": nothing to export at %1×%2").arg(size.width()).arg(size.height());
    auto paint = [&](QPainter &painter) {
        if (auto *view = qobject_cast<QChartView *>(chart); view && view->chart()) {
            QChart *c = view->chart();
            const QSizeF old = c->size();
            c->resize(size);
            if (c->layout())
                c->layout()->activate(); // lay the axes and labels out for the new size now
            view->scene()->render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), QRectF(c->pos(), QSizeF(size)));
            c->resize(old);
            if (c->layout())
                c->layout()->activate();
        } else {
            const QSize old = chart->size();
            auto *framing = dynamic_cast<ExportFraming *>(chart);
            if (framing)
                framing->beginExport();
            chart->resize(size);
            chart->render(&painter, {}, {}, QWidget::DrawWindowBackground | QWidget::DrawChildren);
            chart->resize(old);
            if (framing)
                framing->endExport();
        }
    };
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        svg.setDescription(QStringLiteral("etscope"));
        QPainter painter(&svg);
        paint(painter);
        painter.end();
    } else {
        QImage image(size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        paint(painter);
        painter.end();
        if (!image.save(&buffer, "PNG"))
            return path + QStringLiteral(": cannot encode PNG");
    }
    return saveFile(path, bytes); // whole or not at all
}

} // namespace etscope
