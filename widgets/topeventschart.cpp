#include "topeventschart.h"
#include "chartutil.h"

#include "eventtreemodel.h"
#include "qtstrings.h"

#include "events/backendevents.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QCursor>
#include <QHBoxLayout>
#include <QHorizontalBarSeries>
#include <QLabel>
#include <QResizeEvent>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <iterator>

namespace etscope {

TopEventsChart::TopEventsChart(QWidget *parent)
    : QWidget(parent)
    , m_chart(new QChart)
{
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->legend()->hide();
    m_chart->setMargins(QMargins(4, 4, 4, 4));
    m_view = new QChartView(m_chart, this);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_topN = new QSpinBox(this);
    m_topN->setRange(3, 50);
    m_topN->setValue(12);
    m_topN->setPrefix(tr("top "));
    m_topN->setToolTip(tr("Number of events shown"));
    connect(m_topN, &QSpinBox::valueChanged, this, &TopEventsChart::rebuild);
    m_raw = new QCheckBox(tr("raw names"), this);
    m_raw->setToolTip(tr("Name backend events as the runtime logged them instead of by their decoded operator"));
    m_raw->hide(); // offered when a bar shows a decoded backend event
    connect(m_raw, &QCheckBox::toggled, this, &TopEventsChart::rebuild);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    m_caption = new QLabel(this);
    m_caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the dock
    bar->addWidget(m_caption, 1);
    bar->addWidget(m_raw);
    bar->addWidget(m_topN);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    // The chart takes the dock's height and draws as many bars as have a text line for their
    // name (below that QtCharts elides every label to "…"), slowest first, with its value axis
    // in view (a chart scrolled inside a short dock hid both).
    m_view->setMinimumHeight(80);
    layout->addWidget(m_view, 1);
    draw();
}

void TopEventsChart::showEvent(QShowEvent *event)
{
    // Built while hidden (a background tab), QtCharts keeps the labels it elided for a tiny
    // chart; lay them out again now that the chart has its real size.
    QWidget::showEvent(event);
    QMetaObject::invokeMethod(this, &TopEventsChart::draw, Qt::QueuedConnection);
}

void TopEventsChart::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (std::min(int(m_entries.size()), barsThatFit()) != m_shown)
        draw();
}

int TopEventsChart::barsThatFit() const
{
    // Besides its bars the chart needs its margins and the value axis's labels and title.
    const int line = fontMetrics().height();
    const int overhead = 8 + 2 * line + 28;
    return std::max(1, (m_view->height() - overhead) / (line + 2));
}

QString TopEventsChart::caption() const
{
    return m_caption->text();
}

QWidget *TopEventsChart::chartView() const
{
    return m_view;
}

void TopEventsChart::setSession(std::shared_ptr<const Session> session)
{
    setScoped(std::move(session), nullptr);
}

void TopEventsChart::setScoped(std::shared_ptr<const Session> session, std::shared_ptr<const ScopedBlocks> scoped)
{
    m_session = std::move(session);
    m_scoped = std::move(scoped);
    rebuild();
}

void TopEventsChart::setRawNames(bool raw)
{
    m_raw->setChecked(raw);
}

void TopEventsChart::setTopN(int n)
{
    m_topN->setValue(n);
}

void TopEventsChart::rebuild()
{
    clearChart(m_chart);
    m_entries.clear();
    if (!m_session)
        return;
    // The scope's blocks (their statistics over the runs in scope), or the session's own.
    const std::vector<EventBlock> &blocks = m_scoped ? m_scoped->blocks : m_session->blocks;
    for (int b = 0; b < int(blocks.size()); ++b) {
        const int source = m_scoped ? int(m_scoped->sourceBlock[std::size_t(b)]) : b;
        const auto &events = blocks[std::size_t(b)].events;
        for (int e = 0; e < int(events.size()); ++e) {
            const Event &ev = events[std::size_t(e)];
            if (ev.perfData && !ev.isFramework() && !ev.isOperatorCall())
                m_entries.push_back({ source, e, ev.perfData->avg, {} });
        }
    }
    const std::size_t n = std::min<std::size_t>(m_entries.size(), std::size_t(m_topN->value()));
    std::partial_sort(m_entries.begin(), m_entries.begin() + std::ptrdiff_t(n), m_entries.end(),
        [](const Entry &a, const Entry &b) { return a.avg > b.avg; });
    bool decoded = false;
    for (std::size_t i = 0; i < n; ++i) {
        Entry &entry = m_entries[i];
        const Event &ev = m_session->blocks[std::size_t(entry.block)].events[std::size_t(entry.event)];
        const std::string op = ev.isDelegatedOp ? backendOpLabel(decodeBackendEvent(ev)) : std::string();
        decoded = decoded || !op.empty();
        entry.label = toQString(op.empty() || m_raw->isChecked() ? ev.name : op);
    }
    m_raw->setVisible(decoded);
    m_entries.resize(n);
    draw();
}

void TopEventsChart::draw()
{
    clearChart(m_chart);
    m_shown = std::min(int(m_entries.size()), barsThatFit());
    const QString excluded = tr("framework events and OPERATOR_CALL excluded");
    // Which runs the averages are over, when the recording has a choice.
    const QString over = m_scoped && !m_scoped->whole ? tr(" over %1").arg(toQString(m_scoped->label)) : QString();
    m_caption->setText(m_shown < int(m_entries.size())
            ? tr("Slowest events by average latency%1: %2 of the top %3 fit this height (%4)")
                  .arg(over)
                  .arg(m_shown)
                  .arg(m_entries.size())
                  .arg(excluded)
            : tr("Slowest events by average latency%1 (%2)").arg(over, excluded));
    m_caption->setToolTip(m_caption->text());
    if (m_entries.empty() || !m_session)
        return;

    const QString unit = toQString(timeScaleName(m_session->inputs.time.target));
    auto *set = new QBarSet(tr("avg (%1)").arg(unit));
    set->setColor(QColor(0xe0, 0x8a, 0x1e));
    QStringList labels;
    double maxAvg = 0;
    // Horizontal bars grow bottom-up: append smallest first so the slowest is on top.
    for (auto it = std::make_reverse_iterator(m_entries.begin() + m_shown); it != m_entries.rend(); ++it) {
        const Event &ev = m_session->blocks[it->block].events[it->event];
        QString label = it->label;
        if (label.size() > 40)
            label = label.left(38) + QStringLiteral("…");
        // Category labels must be unique; repeated kernels get their instruction id.
        label += QStringLiteral(" #") + QString::number(ev.instructionId);
        if (ev.isDelegatedOp)
            label += QStringLiteral("/") + QString::number(it->event);
        labels << label;
        *set << it->avg;
        maxAvg = std::max(maxAvg, it->avg);
    }
    auto *series = new QHorizontalBarSeries;
    series->append(set);
    series->setBarWidth(0.7);
    m_chart->addSeries(series);
    auto *yAxis = new QBarCategoryAxis;
    yAxis->append(labels);
    // QtCharts elides category labels to "…" whenever it thinks a label's band is too thin,
    // even with room to spare; the names are already capped at 40 characters above.
    yAxis->setTruncateLabels(false);
    auto *xAxis = new QValueAxis;
    xAxis->setRange(0, maxAvg * 1.05);
    xAxis->applyNiceNumbers(); // round tick values (0.1, 0.2, …) instead of range/4 fractions
    xAxis->setTitleText(tr("average latency (%1)").arg(unit));
    xAxis->setLabelFormat(QStringLiteral("%g"));
    m_chart->addAxis(yAxis, Qt::AlignLeft);
    m_chart->addAxis(xAxis, Qt::AlignBottom);
    series->attachAxis(yAxis);
    series->attachAxis(xAxis);

    connect(set, &QBarSet::clicked, this, [this](int index) {
        const int i = m_shown - 1 - index;
        if (i >= 0 && i < m_shown)
            Q_EMIT eventClicked(m_entries[i].block, m_entries[i].event);
    });
    connect(set, &QBarSet::hovered, this, [this, unit](bool status, int index) {
        const int i = m_shown - 1 - index;
        if (!status || i < 0 || i >= m_shown || !m_session) {
            QToolTip::hideText();
            return;
        }
        const Event &ev = m_session->blocks[m_entries[i].block].events[m_entries[i].event];
        const QString raw = toQString(ev.name);
        QToolTip::showText(QCursor::pos(),
            tr("%1\nblock %2, instruction %3\navg %4 %5%6 (click to select)")
                .arg(m_entries[i].label == raw ? raw : m_entries[i].label + tr("\nlogged as: ") + raw,
                    toQString(m_session->blocks[m_entries[i].block].name))
                .arg(ev.instructionId)
                .arg(EventTreeModel::formatDuration(m_entries[i].avg), unit,
                    m_scoped && !m_scoped->whole ? tr(" over %1").arg(toQString(m_scoped->label)) : QString()),
            this);
    });
}

} // namespace etscope
