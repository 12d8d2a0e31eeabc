#pragma once

#include <QAbstractAxis>
#include <QChart>

namespace etscope {

// Empties a chart before it is drawn again: its series and its axes (which removeAllSeries
// leaves behind, attached to nothing, and which the chart would otherwise keep drawing).
inline void clearChart(QChart *chart)
{
    chart->removeAllSeries();
    const auto axes = chart->axes();
    for (QAbstractAxis *a : axes) {
        chart->removeAxis(a);
        delete a;
    }
}

} // namespace etscope
