#include "timelinewidget.h"

#include "runnames.h"

#include "eventtreemodel.h"
#include "numberformat.h"
#include "qtstrings.h"
#include "widgetexport.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPushButton>
#include <QSpinBox>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

namespace etscope {

// The painted area; kept private to the timeline widget.
class TimelineCanvas : public QWidget, public ExportFraming
{
public:
    explicit TimelineCanvas(TimelineWidget *owner)
        : QWidget(owner)
        , m_owner(owner)
    {
        setMouseTracking(true);
        setMinimumHeight(60); // lanes thin out instead of being cut off
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }

    // `nodes`: per event of the block, the payload node it ran (label, then its description).
    void setData(const EventBlock *block, TimelineLayout layout, QString unit, QHash<int, QStringList> nodes)
    {
        m_block = block;
        m_layout = std::move(layout);
        m_unit = std::move(unit);
        m_nodes = std::move(nodes);
        resetView();
    }

    void resetView()
    {
        m_viewStart = 0;
        m_viewSpan = m_layout.span > 0 ? m_layout.span * 1.02 : 1;
        update();
    }

    void setHighlight(int event)
    {
        m_highlight = event;
        update();
    }

    const TimelineLayout &layout() const { return m_layout; }
    std::function<void(int)> onClick;

    // An exported picture frames the whole run and gives the lanes the image's height (at 22
    // px a lane, three lanes left 90 % of a 1600 × 900 export blank); the view comes back.
    void beginExport() override
    {
        m_saved = { m_viewStart, m_viewSpan };
        m_exporting = true;
        m_viewStart = 0;
        m_viewSpan = m_layout.span > 0 ? m_layout.span * 1.02 : 1;
    }
    void endExport() override
    {
        m_exporting = false;
        std::tie(m_viewStart, m_viewSpan) = m_saved;
        update();
    }

protected:
    static constexpr int kAxisHeight = 26;
    static constexpr int kLaneHeight = 22;
    static constexpr int kLeft = 8;

    // Every lane stays in view: lanes get thinner (down to 8 px, unlabelled below 16) when the
    // dock is short.
    int laneHeight() const
    {
        const int fill = (height() - kAxisHeight - 4) / std::max(1, m_layout.laneCount);
        return m_exporting ? std::max(8, fill) : std::clamp(fill, 8, kLaneHeight);
    }

    double toX(double t) const { return kLeft + (t - m_viewStart) / m_viewSpan * (width() - 2 * kLeft); }
    double toT(double x) const { return m_viewStart + (x - kLeft) / (width() - 2 * kLeft) * m_viewSpan; }

    static QColor colorFor(const Event &e)
    {
        if (e.isFramework())
            return QColor(0x8a, 0x94, 0xa6);
        if (e.isOperatorCall())
            return QColor(0xb8, 0xc4, 0xd6);
        if (e.isDelegatedOp)
            return QColor(0x9b, 0x6b, 0xcf);
        if (e.name == kDelegateCall)
            return QColor(0x6a, 0x4c, 0x9c);
        // Stable colour per kernel name so the same operator reads the same everywhere.
        const auto h = qHash(QByteArray::fromRawData(e.name.data(), qsizetype(e.name.size())));
        return QColor::fromHsv(int(h % 360), 120, 215);
    }

    int barAt(const QPoint &p) const
    {
        if (!m_block)
            return -1;
        const int lane = (p.y() - kAxisHeight) / laneHeight();
        if (p.y() < kAxisHeight || lane >= m_layout.laneCount)
            return -1;
        const double t = toT(p.x());
        const double slack = m_viewSpan / std::max(1, width()) * 2; // 2 px grace for thin bars
        for (int i = int(m_layout.bars.size()) - 1; i >= 0; --i) {
            const auto &b = m_layout.bars[i];
            if (b.lane == lane && t >= b.start - slack && t <= b.end + slack)
                return i;
        }
        return -1;
    }

    void paintEvent(QPaintEvent *) override
    {
        m_owner->layOutIfStale(); // the first paint after the timeline came into view
        QPainter p(this);
        p.fillRect(rect(), palette().base());
        if (!m_block || m_layout.bars.empty()) {
            p.setPen(palette().color(QPalette::PlaceholderText));
            p.drawText(rect(), Qt::AlignCenter,
                m_block ? QObject::tr("No timestamps for this run.")
                        : QObject::tr("Open an ETDump to see one run as a timeline."));
            return;
        }
        // Axis with "nice" ticks (1, 2, 5 × 10^k), labelled with the decimals of the step; labels
        // at the edges are kept inside the widget (a centred "0 ms" at x = 8 lost its "0").
        p.setPen(palette().color(QPalette::Text));
        const NiceTicks ticks = niceTicks(m_viewStart, m_viewStart + m_viewSpan, std::max(2, width() / 110));
        QColor grid = palette().color(QPalette::Mid);
        grid.setAlpha(80);
        for (double t : ticks.values) {
            const int x = int(toX(t));
            p.setPen(grid);
            p.drawLine(x, kAxisHeight - 4, x, height());
            p.setPen(palette().color(QPalette::Text));
            QRect label(x - 60, 2, 120, kAxisHeight - 6);
            if (label.left() < 0)
                label.moveLeft(0);
            if (label.right() >= width())
                label.moveRight(width() - 1);
            const int align = label.center().x() == x
                ? Qt::AlignCenter
                : (label.left() == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter;
            p.drawText(label, align, formatTick(t, ticks.decimals) + QLatin1Char(' ') + m_unit);
        }
        p.drawLine(0, kAxisHeight - 4, width(), kAxisHeight - 4);

        // Bars of a lane do not overlap and come sorted by start, so a bar that falls on pixels
        // its lane already painted adds nothing: skipping it keeps a zoomed-out run of half a
        // million bars to about a thousand rectangles per lane. The highlight is drawn last.
        const QFontMetrics fm(font());
        std::vector<double> paintedTo(std::size_t(std::max(0, m_layout.laneCount)), -1.0);
        const TimelineBar *highlighted = nullptr;
        for (const TimelineBar &b : m_layout.bars) {
            if (b.event == m_highlight) {
                highlighted = &b;
                continue;
            }
            const double x0 = toX(b.start), x1 = toX(b.end);
            if (x1 < 0 || x0 > width())
                continue;
            double &lanePainted = paintedTo[std::size_t(b.lane)];
            const double covers = std::floor(std::max(x1, x0 + 1.0));
            if (covers <= lanePainted)
                continue;
            lanePainted = covers;
            paintBar(p, fm, b, false);
        }
        if (highlighted)
            paintBar(p, fm, *highlighted, true);
    }

    void paintBar(QPainter &p, const QFontMetrics &fm, const TimelineBar &b, bool highlighted) const
    {
        const double x0 = toX(b.start), x1 = toX(b.end);
        const Event &e = m_block->events[b.event];
        const int lh = laneHeight();
        QRectF r(x0, kAxisHeight + b.lane * lh + 1, std::max(1.0, x1 - x0), lh - 3);
        QColor c = colorFor(e);
        p.setPen(highlighted ? QPen(QColor(0xff, 0x8c, 0x00), 2) : QPen(c.darker(130)));
        p.setBrush(c);
        p.drawRect(r);
        if (r.width() <= 30 || lh < 16)
            return;
        p.setPen(QColor(0x10, 0x10, 0x10));
        const QRectF textRect = r.adjusted(4, 0, -3, 0).intersected(QRectF(0, 0, width(), height()));
        // Whole names only (a label cut to "native_ca…" reads as a different name): the name,
        // else the bare operator ("convolution"), else nothing (hover has it). A backend event
        // placed on its delegate's payload node is named by that node ("node 1 FullyConnected").
        const auto node = m_nodes.constFind(int(b.event));
        QString label = node != m_nodes.cend() ? node->front() : toQString(e.name);
        if (fm.horizontalAdvance(label) > textRect.width()) {
            if (node != m_nodes.cend()) {
                label = label.section(QLatin1Char(' '), 2, 2); // the op alone
            } else {
                label.remove(QStringLiteral("native_call_"));
                label = label.section(QLatin1Char('.'), 0, 0);
            }
        }
        if (fm.horizontalAdvance(label) <= textRect.width())
            p.drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, label);
    }

    bool event(QEvent *ev) override
    {
        if (ev->type() == QEvent::ToolTip) {
            auto *help = static_cast<QHelpEvent *>(ev);
            const int i = barAt(help->pos());
            if (i >= 0) {
                const auto &b = m_layout.bars[i];
                const Event &e = m_block->events[b.event];
                QString tip = QObject::tr("%1\nstart %2 %4, duration %3 %4")
                                  .arg(toQString(e.name), EventTreeModel::formatDuration(b.start),
                                      EventTreeModel::formatDuration(b.end - b.start), m_unit);
                if (const auto node = m_nodes.constFind(int(b.event)); node != m_nodes.cend())
                    tip += QLatin1Char('\n') + node->mid(1).join(QLatin1Char('\n'));
                QToolTip::showText(help->globalPos(), tip, this);
            } else {
                QToolTip::hideText();
            }
            return true;
        }
        return QWidget::event(ev);
    }

    void wheelEvent(QWheelEvent *ev) override
    {
        const double factor = std::pow(0.85, ev->angleDelta().y() / 120.0);
        const double anchor = toT(ev->position().x());
        const double minSpan = std::max(m_layout.span * 1e-6, 1e-12);
        const double newSpan = std::clamp(m_viewSpan * factor, minSpan, std::max(m_layout.span * 1.02, minSpan));
        m_viewStart = anchor - (anchor - m_viewStart) * (newSpan / m_viewSpan);
        m_viewSpan = newSpan;
        update();
        ev->accept();
    }

    void mousePressEvent(QMouseEvent *ev) override
    {
        m_dragX = ev->position().x();
        m_dragStart = m_viewStart;
        m_pressPos = ev->pos();
    }

    void mouseMoveEvent(QMouseEvent *ev) override
    {
        if (ev->buttons() & Qt::LeftButton) {
            m_viewStart = m_dragStart - (ev->position().x() - m_dragX) / std::max(1, width() - 2 * kLeft) * m_viewSpan;
            setCursor(Qt::ClosedHandCursor);
            update();
        }
    }

    void mouseReleaseEvent(QMouseEvent *ev) override
    {
        unsetCursor();
        if ((ev->pos() - m_pressPos).manhattanLength() < 4) {
            const int i = barAt(ev->pos());
            if (i >= 0 && onClick)
                onClick(m_layout.bars[i].event);
        }
    }

    void mouseDoubleClickEvent(QMouseEvent *) override { resetView(); }

    QSize sizeHint() const override { return { 600, kAxisHeight + std::max(3, m_layout.laneCount) * kLaneHeight + 4 }; }

private:
    TimelineWidget *m_owner;
    const EventBlock *m_block = nullptr;
    QHash<int, QStringList> m_nodes; // event -> its payload node: label, description lines
    TimelineLayout m_layout;
    QString m_unit;
    double m_viewStart = 0;
    double m_viewSpan = 1;
    double m_dragX = 0;
    double m_dragStart = 0;
    QPoint m_pressPos;
    int m_highlight = -1;
    bool m_exporting = false;
    std::pair<double, double> m_saved; // view start and span during an export
};

namespace {
// The value is the run's place among its block's runs (what the TSV and the Inspector index);
// the text names it as every view does (model/runnames.h): the recording's run number.
class RunSpinBox : public QSpinBox
{
public:
    using QSpinBox::QSpinBox;
    std::function<QString(int)> name; // run of the block → its text
    std::function<int(int)> fromName; // recording run typed → run of the block (-1: none)

protected:
    QString textFromValue(int value) const override { return name ? name(value) : locale().toString(value); }
    int valueFromText(const QString &text) const override
    {
        const int typed = locale().toInt(
            text.mid(prefix().size(), text.size() - prefix().size() - suffix().size()).section(QLatin1Char(' '), -1));
        const int run = fromName ? fromName(typed) : typed;
        return run >= 0 ? run : value();
    }
    QValidator::State validate(QString &, int &) const override { return QValidator::Intermediate; }
};
} // namespace

TimelineWidget::TimelineWidget(QWidget *parent)
    : QWidget(parent)
{
    m_blockBox = new QComboBox(this);
    m_blockBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto *runBox = new RunSpinBox(this);
    runBox->name = [this](int r) {
        return m_session && m_block >= 0 ? runName(*m_session, std::size_t(m_block), std::size_t(r))
                                         : QString::number(r);
    };
    runBox->fromName = [this](int run) {
        if (!m_session || m_block < 0 || std::size_t(m_block) >= m_session->runTable.runOfBlock.size())
            return -1;
        const auto &runs = m_session->runTable.runOfBlock[std::size_t(m_block)];
        const auto it = std::find(runs.begin(), runs.end(), run - 1); // names count from 1
        return it == runs.end() ? -1 : int(it - runs.begin());
    };
    m_runBox = runBox;
    m_runBox->setToolTip(runNumbering());
    m_info = new QLabel(this);
    m_info->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // long info never widens the dock
    auto *reset = new QPushButton(tr("Fit"), this);
    reset->setToolTip(tr("Show the whole run (or double-click the timeline)"));
    m_canvas = new TimelineCanvas(this);
    m_canvas->setToolTip({});
    m_canvas->onClick = [this](int event) { Q_EMIT eventClicked(m_block, event); };

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 0);
    bar->addWidget(new QLabel(tr("Block"), this));
    bar->addWidget(m_blockBox);
    bar->addWidget(m_runBox);
    bar->addWidget(reset);
    bar->addWidget(m_info, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_canvas, 1);

    connect(m_blockBox, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_block = i;
        rebuild();
    });
    connect(m_runBox, &QSpinBox::valueChanged, this, &TimelineWidget::rebuild);
    connect(reset, &QPushButton::clicked, this, [this] { m_canvas->resetView(); });
}

QWidget *TimelineWidget::canvas() const
{
    return m_canvas;
}

int TimelineWidget::currentRun() const
{
    return m_runBox->value();
}

QString TimelineWidget::infoText()
{
    layOutIfStale();
    return m_info->text();
}

void TimelineWidget::showRuns(const QList<int> &runs, const QString &what)
{
    m_markedRuns = runs;
    m_markedWhat = what;
    if (!runs.isEmpty() && runs.first() != m_runBox->value())
        m_runBox->setValue(runs.first()); // rebuilds
    else
        rebuild();
}

void TimelineWidget::layOutIfStale()
{
    if (m_stale)
        layOut();
}

const TimelineLayout &TimelineWidget::layout()
{
    layOutIfStale();
    return m_canvas->layout();
}

void TimelineWidget::setSession(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    // Backend events on another clock (Vulkan's GPU query pool) are drawn where the host ran them.
    m_host = m_session ? std::make_shared<const HostClockOffsets>(hostClockOffsets(m_session->blocks)) : nullptr;
    QSignalBlocker blocker(m_blockBox);
    m_blockBox->clear();
    m_block = -1;
    if (m_session) {
        int best = -1;
        std::size_t bestEvents = 0;
        for (int b = 0; b < int(m_session->blocks.size()); ++b) {
            const auto &block = m_session->blocks[b];
            m_blockBox->addItem(tr("%1 #%2 (%3 events)").arg(toQString(block.name)).arg(b).arg(block.events.size()));
            // Default to the biggest block: that is the one with the interesting kernels.
            if (best < 0 || block.events.size() > bestEvents) {
                best = b;
                bestEvents = block.events.size();
            }
        }
        m_block = best;
        m_blockBox->setCurrentIndex(best);
    }
    rebuild();
}

void TimelineWidget::showScope(const ScopedBlocks &scoped)
{
    // Keeps the run shown while the scope holds it, else shows the scope's first run.
    if (!m_session || scoped.runs.empty() || scoped.runs.front().empty())
        return;
    const int current
        = m_block >= 0 ? recordingRun(*m_session, std::size_t(m_block), std::size_t(m_runBox->value())) : -1;
    if (current >= 0)
        for (const auto &runs : scoped.runs)
            if (std::find(runs.begin(), runs.end(), std::size_t(current)) != runs.end())
                return;
    const SessionRun &first = m_session->runTable.runs[scoped.runs.front().front()];
    if (int(first.block) != m_block)
        m_blockBox->setCurrentIndex(int(first.block)); // rebuilds
    m_runBox->setValue(int(first.runInBlock));
}

void TimelineWidget::highlightEvent(int blockIndex, int eventIndex)
{
    if (!m_session || blockIndex < 0 || blockIndex >= int(m_session->blocks.size()))
        return;
    if (blockIndex != m_block)
        m_blockBox->setCurrentIndex(blockIndex); // triggers rebuild
    m_canvas->setHighlight(eventIndex);
}

void TimelineWidget::rebuild()
{
    if (!m_session || m_block < 0 || m_block >= int(m_session->blocks.size())) {
        m_stale = false; // nothing to lay out
        m_canvas->setData(nullptr, {}, {}, {});
        m_info->clear();
        return;
    }
    const EventBlock &block = m_session->blocks[m_block];
    const int runs = int(block.runIndices.size());
    {
        QSignalBlocker blocker(m_runBox);
        m_runBox->setRange(0, std::max(0, runs - 1));
        // Of the recording's executed runs (the box offers this block's).
        const std::size_t executed = m_session->runTable.runs.size();
        m_runBox->setSuffix(
            tr(" of %1").arg(executed && recordingRun(*m_session, std::size_t(m_block), 0) >= 0 ? qulonglong(executed)
                                                                                                : qulonglong(runs)));
    }
    // Laying out half a million bars is the biggest single cost of opening a large profile; a
    // timeline behind another tab waits until it is painted (or asked for its layout).
    if (m_canvas->visibleRegion().isEmpty()) { // hidden, or a tab behind another
        m_stale = true;
        m_canvas->setData(nullptr, {}, {}, {}); // drops the pointer into the old block
        m_info->clear();
        return;
    }
    layOut();
}

void TimelineWidget::layOut()
{
    m_stale = false;
    const EventBlock &block = m_session->blocks[m_block];
    const auto scale = m_session->inputs.time.scaleFactor();
    const double ticksPerUnit = scale ? scale.value() : 1.0;
    const QString unit = toQString(timeScaleName(m_session->inputs.time.target));
    const auto run = std::size_t(m_runBox->value());
    auto layout = layoutTimeline(block, run, ticksPerUnit, m_host.get(), std::size_t(m_block));
    QString info = tr("%1 bars in %2 lanes, span %3 %4 — wheel zooms, drag pans")
                       .arg(layout.bars.size())
                       .arg(layout.laneCount)
                       .arg(EventTreeModel::formatDuration(layout.span), unit);
    // Said where it is drawn: events moved from their own clock, and by how much.
    std::size_t moved = 0;
    double shift = 0;
    for (const TimelineBar &b : layout.bars)
        if (b.moved) {
            ++moved;
            shift = double(m_host->offset(std::size_t(m_block), std::size_t(b.event), run)) / ticksPerUnit;
        }
    if (moved)
        info = tr("%1 Vulkan dispatches on the GPU's clock drawn from their ETVK_COMPUTE_GRAPH_EXECUTE's start "
                  "(offset %2 %3, durations unchanged)")
                   .arg(moved)
                   .arg(formatSignificant(shift, 6), unit)
            + QStringLiteral(" · ") + info;
    // The histogram bar's runs are news only while one of them is shown: jumping to another
    // run forgets them.
    if (!m_markedRuns.contains(m_runBox->value())) {
        m_markedRuns.clear();
        m_markedWhat.clear();
    }
    if (!m_markedRuns.isEmpty()) {
        QStringList shown;
        for (int r : std::as_const(m_markedRuns).mid(0, 12))
            shown << runName(*m_session, std::size_t(m_block), std::size_t(r)).section(QLatin1Char(' '), -1);
        if (m_markedRuns.size() > 12)
            shown << QStringLiteral("…");
        info = (m_markedRuns.size() == 1 ? tr("%1: run %2").arg(m_markedWhat, shown.join(QString()))
                                         : tr("%1: %2 runs (%3)")
                                               .arg(m_markedWhat)
                                               .arg(m_markedRuns.size())
                                               .arg(shown.join(QStringLiteral(", "))))
            + QStringLiteral(" · ") + info;
    }
    // The block's backend events on the nodes of their delegates' payloads (this block only: cheap).
    QHash<int, QStringList> nodes;
    const BackendEventTable table = decodeBackendEvents(m_session->blocks, std::size_t(m_block));
    const PayloadEventLinks links = payloadEventLinks(*m_session, table, std::size_t(m_block));
    for (const PayloadEventLink &l : links.linked) {
        const DelegatePayload *p = links.payload(l);
        QStringList lines { tr("node %1 %2").arg(l.node).arg(toQString(p->nodes[std::size_t(l.node)].op)) };
        for (const std::string &line : links.describe(l))
            lines << toQString(line);
        nodes.insert(int(l.event), lines);
    }
    if (links.byOrder > 0)
        info += (links.byOrder == 1 ? tr(" · 1 XNNPACK operator on its payload node")
                                    : tr(" · %1 XNNPACK operators on their payload nodes").arg(links.byOrder))
            + tr(" by runtime order (no node id logged)");
    for (const std::string &note : links.notes)
        info += QStringLiteral(" · ") + toQString(note);
    m_info->setText(info);
    m_info->setToolTip(info);
    m_canvas->setData(&block, std::move(layout), unit, std::move(nodes));
    m_canvas->updateGeometry();
}

} // namespace etscope
