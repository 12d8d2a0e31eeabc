#include "evaluatorcontrols.h"

#include "evaluatorsettings.h"

#include <QSignalBlocker>

#include <cmath>

namespace etscope::gapui {

MetricBox::MetricBox(EvaluatorSettings *settings, QWidget *parent)
    : QComboBox(parent)
{
    for (analysis::Metric m : EvaluatorSettings::metrics())
        addItem(QString::fromLatin1(analysis::metricName(m)), int(m));
    setCurrentIndex(findData(int(settings->metric())));
    setToolTip(tr("The metric every evaluator view measures and judges in (the numeric gap, the decomposition and "
                  "graph against graph share it)"));
    connect(this, &QComboBox::currentIndexChanged, settings,
        [this, settings](int i) { settings->setMetric(analysis::Metric(itemData(i).toInt())); });
    connect(settings, &EvaluatorSettings::metricChanged, this, [this](analysis::Metric m) {
        const QSignalBlocker block(this);
        setCurrentIndex(findData(int(m)));
    });
}

ThresholdEdit::ThresholdEdit(EvaluatorSettings *settings, QWidget *parent)
    : QLineEdit(parent)
    , m_settings(settings)
{
    setPlaceholderText(tr("noise level"));
    setToolTip(tr("Empty: the noise level the dtype explains (relative error √ε; float32 3.45e-4).\n"
                  "A number: a threshold in the metric's own units (SNR in dB)."));
    setClearButtonEnabled(true);
    setMaximumWidth(140);
    showThreshold();
    connect(this, &QLineEdit::editingFinished, this, [this] {
        const QString text = this->text().trimmed();
        if (text.isEmpty()) {
            m_settings->setThreshold(std::nullopt);
            return;
        }
        bool ok = false;
        const double v = text.toDouble(&ok);
        if (!ok || !std::isfinite(v)) {
            Q_EMIT invalidThreshold(text);
            return;
        }
        m_settings->setThreshold(v);
    });
    connect(settings, &EvaluatorSettings::thresholdChanged, this, &ThresholdEdit::showThreshold);
}

void ThresholdEdit::showThreshold()
{
    const QSignalBlocker block(this);
    const auto t = m_settings->threshold();
    setText(t ? QString::number(*t, 'g', 6) : QString());
}

} // namespace etscope::gapui
