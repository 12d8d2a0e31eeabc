#include "gappages.h"

#include "evaluatorcontrols.h"
#include "evaluatorsettings.h"
#include "gapheatmapwidget.h"
#include "gaptrendchart.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace etscope::gapui {

CaveatFrame::CaveatFrame(QWidget *view, QWidget *parent)
    : QWidget(parent)
    , m_caveat(new QLabel)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_caveat->setObjectName(QStringLiteral("GapCaveat"));
    m_caveat->setWordWrap(true);
    m_caveat->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_caveat->setStyleSheet(QStringLiteral("QLabel { background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; "
                                           "border-radius: 3px; padding: 2px 6px; }"));
    m_caveat->hide();
    layout->addWidget(m_caveat);
    layout->addWidget(view, 1);
}

void CaveatFrame::setCaveat(const QString &text)
{
    m_caveat->setText(text);
    m_caveat->setVisible(!text.isEmpty());
}

QString CaveatFrame::caveat() const
{
    return m_caveat->text();
}

GapHeatmapPage::GapHeatmapPage(EvaluatorSettings *settings, QWidget *parent)
    : QWidget(parent)
    , m_heatmap(new GapHeatmapWidget)
{
    auto *scroll = new QScrollArea;
    scroll->setWidget(m_heatmap);
    scroll->setWidgetResizable(false);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 0);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric:")));
    auto *metric = new MetricBox(settings);
    metric->setObjectName(QStringLiteral("GapMetricBox"));
    controls->addWidget(metric);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Flag above:")));
    auto *threshold = new ThresholdEdit(settings);
    threshold->setObjectName(QStringLiteral("GapThresholdEdit"));
    controls->addWidget(threshold);
    controls->addStretch(1);
    layout->addLayout(controls);
    layout->addWidget(new GapHeatmapLegend(m_heatmap));
    layout->addWidget(scroll, 1);
    connect(threshold, &ThresholdEdit::invalidThreshold, this, &GapHeatmapPage::invalidThreshold);
}

GapTrendPage::GapTrendPage(EvaluatorSettings *settings, QWidget *parent)
    : QWidget(parent)
    , m_accumulated(new QRadioButton(tr("Accumulated (Inspector)")))
    , m_isolated(new QRadioButton(tr("Isolated (error each op introduces)")))
    , m_trend(new GapTrendChart)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto *switchRow = new QHBoxLayout;
    switchRow->addWidget(new QLabel(tr("Heatmap and triage show:")));
    m_accumulated->setObjectName(QStringLiteral("GapAccumulatedButton"));
    m_isolated->setObjectName(QStringLiteral("GapIsolatedButton"));
    m_accumulated->setChecked(!settings->isolated());
    m_isolated->setChecked(settings->isolated());
    auto *group = new QButtonGroup(this);
    group->addButton(m_accumulated);
    group->addButton(m_isolated);
    switchRow->addWidget(m_accumulated);
    switchRow->addWidget(m_isolated);
    switchRow->addStretch(1);
    layout->addLayout(switchRow);
    layout->addWidget(m_trend, 1);
    connect(m_isolated, &QRadioButton::toggled, settings, &EvaluatorSettings::setIsolated);
    connect(settings, &EvaluatorSettings::isolatedChanged, this, [this](bool isolated) {
        const QSignalBlocker b1(m_accumulated), b2(m_isolated);
        m_isolated->setChecked(isolated);
        m_accumulated->setChecked(!isolated);
    });
}

void GapTrendPage::setIsolatedAvailable(bool available)
{
    m_accumulated->setEnabled(available);
    m_isolated->setEnabled(available);
}

} // namespace etscope::gapui
