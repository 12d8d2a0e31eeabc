#pragma once

#include "analysis/numericgap.h"

#include <QWidget>

#include <vector>

namespace etscope::gapui {

// Gap along execution order, two curves: accumulated (what the Inspector reports: the error a
// row inherits plus its own) and isolated (the error this op introduces from the runtime's own
// inputs). Where the error enters, the isolated curve jumps up to meet the accumulated one; the
// row with the worst isolated gap above its noise level is ringed and named ("no op exceeds the
// noise level" when none is); points above their noise level carry a red ring. Error metrics use a log scale, SNR is in
// dB (lower is worse, so the axis is flipped). Hover shows the op and both values; a click on
// a point emits its runtime event.
class GapTrendChart : public QWidget
{
    Q_OBJECT
public:
    explicit GapTrendChart(QWidget *parent = nullptr);

    // Rows are taken from `accumulated` (execution order) and matched by runtime event in
    // `isolated` (either table may be empty).
    void setTables(const analysis::GapTable &accumulated, const analysis::GapTable &isolated);
    int pointCount() const { return int(m_points.size()); }
    double value(int index, bool isolated) const; // worst gap of the row, NaN when absent
    QPointF pointPosition(int index, bool isolated) const;
    int entryPoint() const { return m_entry; } // worst flagged isolated row (-1: none)
    bool isFlagged(int index, bool isolated) const;
    QString legend() const { return m_legend; }
    QString label(int index) const;
    // The threshold the row's worst accumulated gap is judged by (the noise level of its dtype,
    // or the user's threshold), drawn as a dashed red step line; NaN when the row has none.
    double threshold(int index) const;
    QPointF thresholdPosition(int index) const;
    // The y axis's labels, bottom up: decades ("1e-6") or dB. The bottom line is where exact
    // matches sit: it reads "0" (error metrics) or "∞ dB" (SNR), never a tiny decade.
    QStringList yTickLabels() const;

    QSize sizeHint() const override { return QSize(760, 280); }
    QSize minimumSizeHint() const override { return QSize(320, 160); }

Q_SIGNALS:
    void eventSelected(int blockIndex, int eventIndex);

protected:
    void paintEvent(QPaintEvent *) override;
    bool event(QEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;

private:
    struct Point {
        QString label;
        int blockIndex = -1, eventIndex = -1;
        double acc = 0, iso = 0; // NaN when absent
        double threshold = 0; // of the worst accumulated gap; NaN when absent
        bool accFlagged = false, isoFlagged = false;
    };
    QRectF plotRect() const;
    double toY(double v) const; // transformed value → plot y
    double transform(double v) const;
    int hit(const QPoint &p) const;
    std::vector<std::pair<double, QString>> yTicks() const; // transformed value, label

    std::vector<Point> m_points;
    analysis::Metric m_metric = analysis::Metric::MSE;
    analysis::Direction m_direction = analysis::Direction::HigherIsWorse;
    double m_lo = 0, m_hi = 1; // transformed range
    int m_entry = -1;
    bool m_hasIsolated = false;
    QString m_legend;
    int m_labelWidth = 0; // of the longest x label, at most 140 px
    double m_marginBelow = 76, m_marginRight = 16; // around the plot, for the x labels
};

} // namespace etscope::gapui
