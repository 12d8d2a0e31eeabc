#pragma once

#include <QString>

class QWidget;

namespace etscope {

// Renders a widget to PNG (pixel grab at device pixel ratio) or SVG (vector, QSvgGenerator),
// chosen by the file suffix. Written through QSaveFile so a failed export never leaves a
// half-written file. Returns an empty string on success, else a one-line error naming the file.
QString exportWidgetImage(QWidget *widget, const QString &path, const QString &title = {});

} // namespace etscope
