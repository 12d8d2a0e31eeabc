#pragma once

#include "analysis/comparator.h"
#include "eval/evaluator.h"

#include <QList>
#include <QObject>

#include <optional>

namespace etscope {

// What every evaluator view is judged by, set once for the window: the metric that leads, the
// threshold it flags above (unset: the noise level of analysis/noise.h), accumulated or isolated
// gap, and the inputs the ETRecord's graphs run on. The numeric gap, the error decomposition and
// graph against graph share one instance (SessionController::evaluatorSettings()), so a metric
// chosen in one of them is the metric of all three.
class EvaluatorSettings : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    // The metrics the window offers, in menu order (MSE first: the Inspector's default).
    static const QList<analysis::Metric> &metrics();

    analysis::Metric metric() const { return m_metric; }
    // A threshold is in the units of its metric: choosing another metric clears it.
    void setMetric(analysis::Metric metric);
    std::optional<double> threshold() const { return m_threshold; }
    void setThreshold(std::optional<double> threshold);
    bool isolated() const { return m_isolated; }
    void setIsolated(bool isolated);
    // Empty: the ETRecord's representative_inputs.
    const eval::InputChoice &inputs() const { return m_inputs; }
    void setInputs(const eval::InputChoice &inputs);
    bool inputsChosen() const { return !m_inputs.inputsFile.empty() || !m_inputs.bundledProgram.empty(); }

Q_SIGNALS:
    void metricChanged(etscope::analysis::Metric metric);
    void thresholdChanged();
    void isolatedChanged(bool isolated);
    void inputsChanged();

private:
    analysis::Metric m_metric = analysis::Metric::MSE;
    std::optional<double> m_threshold;
    bool m_isolated = false;
    eval::InputChoice m_inputs;
};

} // namespace etscope
