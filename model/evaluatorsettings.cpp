#include "evaluatorsettings.h"

namespace etscope {

const QList<analysis::Metric> &EvaluatorSettings::metrics()
{
    static const QList<analysis::Metric> all { analysis::Metric::MSE, analysis::Metric::SNR, analysis::Metric::MaxAbs,
        analysis::Metric::Cosine };
    return all;
}

void EvaluatorSettings::setMetric(analysis::Metric metric)
{
    if (m_metric == metric)
        return;
    m_metric = metric;
    const bool hadThreshold = m_threshold.has_value();
    m_threshold.reset();
    Q_EMIT metricChanged(metric);
    if (hadThreshold)
        Q_EMIT thresholdChanged();
}

void EvaluatorSettings::setThreshold(std::optional<double> threshold)
{
    if (m_threshold == threshold)
        return;
    m_threshold = threshold;
    Q_EMIT thresholdChanged();
}

void EvaluatorSettings::setIsolated(bool isolated)
{
    if (m_isolated == isolated)
        return;
    m_isolated = isolated;
    Q_EMIT isolatedChanged(isolated);
}

void EvaluatorSettings::setInputs(const eval::InputChoice &inputs)
{
    m_inputs = inputs;
    Q_EMIT inputsChanged();
}

} // namespace etscope
