#pragma once

#include <QSize>
#include <QString>

class QWidget;

namespace etscope {

// Renders a widget to PNG (pixel grab at device pixel ratio) or SVG (vector, QSvgGenerator),
// chosen by the file suffix. Written through saveFile (model/savefile.h) so a failed export never leaves a
// half-written file. Returns an empty string on success, else a one-line error naming the file.
QString exportWidgetImage(QWidget *widget, const QString &path, const QString &title = {});

// A painted chart that draws itself differently for an export at a given size (the timeline:
// the whole run, lanes as tall as the image allows); exportChartImage() brackets its render
// with these.
class ExportFraming
{
public:
    virtual ~ExportFraming() = default;
    virtual void beginExport() = 0;
    virtual void endExport() = 0;
};

// Renders the chart itself (not its on-screen widget: no spin boxes or buttons, no labels elided
// for lack of room) at `size` logical pixels: a QChartView's chart is laid out again at that size,
// any other widget (the timeline canvas) is resized for the duration of the render.
QString exportChartImage(QWidget *chart, const QString &path, QSize size, const QString &title = {});

} // namespace etscope
