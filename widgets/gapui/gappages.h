#pragma once

#include <QWidget>

class QLabel;
class QRadioButton;

namespace etscope {
class EvaluatorSettings;

namespace gapui {
class GapHeatmapWidget;
class GapTrendChart;

// A gap view under the warning line every view fed by a doubtful input carries (hidden while
// there is nothing to say).
class CaveatFrame : public QWidget
{
    Q_OBJECT
public:
    explicit CaveatFrame(QWidget *view, QWidget *parent = nullptr);
    void setCaveat(const QString &text);
    QString caveat() const;

private:
    QLabel *m_caveat;
};

// The numeric gap page: the shared metric and threshold that judge it, the legend, and the
// heatmap (a row per instruction, scrolled inside the page at its full size).
class GapHeatmapPage : public QWidget
{
    Q_OBJECT
public:
    explicit GapHeatmapPage(EvaluatorSettings *settings, QWidget *parent = nullptr);
    GapHeatmapWidget *heatmap() const { return m_heatmap; }

Q_SIGNALS:
    void invalidThreshold(const QString &text);

private:
    GapHeatmapWidget *m_heatmap;
};

// The gap along execution order, with the accumulated / isolated switch (the shared setting)
// above it; the switch is enabled when the reference has isolated values.
class GapTrendPage : public QWidget
{
    Q_OBJECT
public:
    explicit GapTrendPage(EvaluatorSettings *settings, QWidget *parent = nullptr);
    GapTrendChart *chart() const { return m_trend; }
    void setIsolatedAvailable(bool available);

private:
    QRadioButton *m_accumulated;
    QRadioButton *m_isolated;
    GapTrendChart *m_trend;
};

} // namespace gapui
} // namespace etscope
