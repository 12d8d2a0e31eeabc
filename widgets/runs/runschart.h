#pragma once

#include "analysis/runs.h"

#include <QWidget>

#include <memory>

namespace etscope {

// Runs over time: one mark per run at (run index, duration), coloured by phase (prefill, decode,
// other), warm-up runs hollow, outliers ringed red, the decode phase's robust fit drawn as a
// line. Wide recordings (100k runs) draw one bar per pixel column from its shortest to its
// longest run, so the picture keeps every extreme. Hover names a run; a click selects it.
class RunsChart : public QWidget
{
    Q_OBJECT
public:
    explicit RunsChart(QWidget *parent = nullptr);
    void setReport(std::shared_ptr<const RunsReport> report);
    QSize sizeHint() const override { return { 600, 260 }; }
    QSize minimumSizeHint() const override { return { 240, 140 }; }
    // The run drawn at a point (nearest in x, then in y), or -1.
    int runAt(QPointF pos) const;
    QPointF pointOf(std::size_t run) const;

Q_SIGNALS:
    void runClicked(int run); // index into RunsReport::runs

protected:
    void paintEvent(QPaintEvent *) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    QRectF plotArea() const;
    double yMax() const;

    std::shared_ptr<const RunsReport> m_report;
    double m_yMax = 1; // the y axis's top: the longest run plus headroom
};

} // namespace etscope
