#pragma once

#include <QComboBox>
#include <QLineEdit>

namespace etscope {
class EvaluatorSettings;

namespace gapui {

// The metric chooser of every evaluator view, bound both ways to the window's one
// EvaluatorSettings: choosing here changes it for the numeric gap, the decomposition and graph
// against graph alike.
class MetricBox : public QComboBox
{
    Q_OBJECT
public:
    explicit MetricBox(EvaluatorSettings *settings, QWidget *parent = nullptr);
};

// "Flag above:" — the threshold of the settings' metric in its own units; empty means the noise
// level. Text that is not a number is refused with invalidThreshold() and the threshold kept.
class ThresholdEdit : public QLineEdit
{
    Q_OBJECT
public:
    explicit ThresholdEdit(EvaluatorSettings *settings, QWidget *parent = nullptr);

Q_SIGNALS:
    void invalidThreshold(const QString &text);

private:
    void showThreshold();
    EvaluatorSettings *m_settings;
};

} // namespace gapui
} // namespace etscope
