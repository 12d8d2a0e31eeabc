#include "graphview.h"
#include "filedialogs.h"
#include "qtstrings.h"

#include "backgroundjob.h"

#include "widgetexport.h"

#include <QApplication>
#include <QComboBox>
#include <QCompleter>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QResizeEvent>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <cmath>
#include <map>
#include <optional>
#include <set>

namespace etscope {

namespace {

QColor qcolor(const graph::Rgb &c)
{
    return QColor(c.r, c.g, c.b);
}

QColor textColorOn(const QColor &fill)
{
    return fill.lightnessF() < 0.5 ? QColor(255, 255, 255) : QColor(30, 30, 30);
}

const QColor kSelection(31, 111, 235);
constexpr int kNamePixelSize = 12; // the op name's font (graph::itemSize reserves its room)

} // namespace

// ---------------------------------------------------------------------------------------------
// Scene items

class GraphNodeItem : public QGraphicsItem
{
public:
    GraphNodeItem(GraphView *owner, int item, bool group, QRectF rect, QStringList lines)
        : m_owner(owner)
        , m_item(item)
        , m_group(group)
        , m_rect(rect)
        , m_lines(std::move(lines))
    {
        setAcceptHoverEvents(false);
        setZValue(10);
    }
    QRectF boundingRect() const override { return m_rect.adjusted(-3, -3, 3, 3); }
    void setFill(const QColor &c, const QString &value)
    {
        m_fill = c;
        m_value = value;
        setToolTip(value.isEmpty() ? m_tip : m_tip + QLatin1Char('\n') + value);
        update();
    }
    void setBaseToolTip(const QString &tip)
    {
        m_tip = tip;
        setToolTip(tip);
    }
    void setSelectedMark(bool on)
    {
        m_selected = on;
        setZValue(on ? 20 : 10);
        update();
    }
    QColor fill() const { return m_fill; }

    void paint(QPainter *p, const QStyleOptionGraphicsItem *opt, QWidget *) override
    {
        const double lod = opt->levelOfDetailFromTransform(p->worldTransform());
        QPen pen(m_selected ? kSelection : (m_group ? QColor(70, 70, 70) : QColor(128, 128, 128)),
            m_selected ? 3.0 : (m_group ? 1.6 : 1.0));
        p->setPen(pen);
        p->setBrush(m_fill);
        if (m_group) {
            p->drawRoundedRect(m_rect, 3, 3);
            p->setPen(QPen(QColor(70, 70, 70, 110), 0.8));
            p->setBrush(Qt::NoBrush);
            p->drawRoundedRect(m_rect.adjusted(3, 3, -3, -3), 2, 2);
        } else {
            p->drawRoundedRect(m_rect, 7, 7);
        }
        if (lod < 0.3)
            return; // text unreadable at this zoom; boxes only keep large graphs fast
        const QColor ink = textColorOn(m_fill);
        // The rows graph::itemSize reserves: the 12 px op name (15 of 39 points), two 10 px lines.
        const QRectF inner = m_rect.adjusted(5, 2.5, -5, -2.5);
        const double rowTop[] = { 0, inner.height() * 15 / 39, inner.height() * 27 / 39, inner.height() };
        // A line too long for the box gets a smaller font (down to 7 px) before it is elided;
        // the tooltip and the info line below the graph always have the whole text.
        auto line = [&](int row, const QString &text, int pixelSize, bool bold, Qt::TextElideMode mode, QColor color) {
            QFont f = p->font();
            f.setBold(bold);
            f.setPixelSize(pixelSize);
            while (pixelSize > 7 && QFontMetricsF(f).horizontalAdvance(text) > inner.width())
                f.setPixelSize(--pixelSize);
            p->setFont(f);
            p->setPen(color);
            p->drawText(QRectF(inner.left(), inner.top() + rowTop[row], inner.width(), rowTop[row + 1] - rowTop[row]),
                Qt::AlignCenter, QFontMetricsF(f).elidedText(text, mode, inner.width()));
        };
        line(0, m_lines.value(0), kNamePixelSize, true, Qt::ElideMiddle, ink);
        QColor sub = ink;
        sub.setAlphaF(0.75);
        line(1, m_lines.value(1), 10, false, Qt::ElideRight, sub);
        if (!m_value.isEmpty())
            line(2, m_value, 10, true, Qt::ElideRight, ink);
    }

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent *e) override
    {
        m_owner->activateItem(m_item);
        QGraphicsItem::mousePressEvent(e);
    }
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *) override
    {
        const graph::VisibleItem &it = m_owner->visible().items[std::size_t(m_item)];
        if (it.kind == graph::VisibleItem::Kind::Group)
            m_owner->toggleGroup(it.index);
    }

private:
    GraphView *m_owner;
    int m_item;
    bool m_group;
    QRectF m_rect;
    QStringList m_lines;
    QColor m_fill = Qt::white;
    QString m_value;
    QString m_tip;
    bool m_selected = false;
};

class GraphClusterItem : public QGraphicsItem
{
public:
    GraphClusterItem(GraphView *owner, int group, QRectF rect, QString label, bool partition, int depth)
        : m_owner(owner)
        , m_group(group)
        , m_rect(rect)
        , m_label(std::move(label))
        , m_partition(partition)
        , m_depth(depth)
    {
        setZValue(-100 + depth);
        setToolTip(QStringLiteral("%1\nDouble-click to collapse").arg(m_label));
    }
    QRectF boundingRect() const override { return m_rect.adjusted(-2, -2, 2, 2); }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *opt, QWidget *) override
    {
        if (m_partition) {
            p->setPen(QPen(QColor(59, 111, 182), 2.0));
            p->setBrush(QColor(238, 243, 251));
        } else {
            p->setPen(QPen(QColor(176, 176, 176), 1.0, Qt::DashLine));
            p->setBrush(m_depth % 2 ? QColor(247, 247, 247) : QColor(252, 252, 252));
        }
        p->drawRoundedRect(m_rect, 8, 8);
        if (opt->levelOfDetailFromTransform(p->worldTransform()) < 0.3)
            return;
        QFont f = p->font();
        f.setPixelSize(11);
        f.setBold(m_partition);
        p->setFont(f);
        p->setPen(m_partition ? QColor(40, 80, 150) : QColor(90, 90, 90));
        const QRectF text = m_rect.adjusted(8, 3, -8, -3);
        p->drawText(
            text, Qt::AlignLeft | Qt::AlignTop, QFontMetricsF(f).elidedText(m_label, Qt::ElideRight, text.width()));
    }

protected:
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *) override { m_owner->toggleGroup(m_group); }

private:
    GraphView *m_owner;
    int m_group;
    QRectF m_rect;
    QString m_label;
    bool m_partition;
    int m_depth;
};

class GraphEdgeItem : public QGraphicsItem
{
public:
    GraphEdgeItem(QPainterPath path, QPolygonF arrow)
        : m_path(std::move(path))
        , m_arrow(std::move(arrow))
    {
        m_bounds = m_path.boundingRect().united(m_arrow.boundingRect()).adjusted(-2, -2, 2, 2);
        setZValue(0);
    }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *p, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        p->setPen(QPen(QColor(110, 110, 110), 1.1));
        p->setBrush(Qt::NoBrush);
        p->drawPath(m_path);
        if (!m_arrow.isEmpty()) {
            p->setBrush(QColor(110, 110, 110));
            p->drawPolygon(m_arrow);
        }
    }

private:
    QPainterPath m_path;
    QPolygonF m_arrow;
    QRectF m_bounds;
};

// ---------------------------------------------------------------------------------------------

class GraphCanvas : public QGraphicsView
{
public:
    GraphCanvas(GraphView *owner, QGraphicsScene *scene)
        : QGraphicsView(scene)
        , m_owner(owner)
    {
        setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
        setDragMode(QGraphicsView::ScrollHandDrag);
        setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
        setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
        setOptimizationFlags(QGraphicsView::DontSavePainterState);
        setBackgroundBrush(Qt::white);
        setFocusPolicy(Qt::StrongFocus);
    }
    void zoomBy(double f)
    {
        const double s = transform().m11() * f;
        if (s < 0.02 || s > 6)
            return;
        scale(f, f);
        m_followsFit = false;
    }
    // Fit again when the dock grows or shrinks, until the user zooms.
    bool m_followsFit = true;

protected:
    void resizeEvent(QResizeEvent *e) override
    {
        QGraphicsView::resizeEvent(e);
        if (m_followsFit)
            m_owner->fit();
    }
    void wheelEvent(QWheelEvent *e) override
    {
        if (e->modifiers() & Qt::ShiftModifier)
            return QGraphicsView::wheelEvent(e); // horizontal/vertical scroll
        zoomBy(std::pow(1.0015, e->angleDelta().y()));
        e->accept();
    }
    void keyPressEvent(QKeyEvent *e) override
    {
        switch (e->key()) {
        case Qt::Key_Up:
        case Qt::Key_Down:
        case Qt::Key_Left:
        case Qt::Key_Right:
            m_owner->moveSelection(e->key());
            return;
        case Qt::Key_Plus:
        case Qt::Key_Equal:
            zoomBy(1.25);
            return;
        case Qt::Key_Minus:
            zoomBy(0.8);
            return;
        case Qt::Key_F:
            m_owner->fit();
            return;
        case Qt::Key_Return:
        case Qt::Key_Enter:
        case Qt::Key_Space: {
            const int s = m_owner->selectedItem();
            if (s >= 0) {
                const graph::VisibleItem &it = m_owner->visible().items[std::size_t(s)];
                if (it.kind == graph::VisibleItem::Kind::Group)
                    m_owner->toggleGroup(it.index);
                else if (it.cluster > 0 && (e->modifiers() & Qt::ShiftModifier))
                    m_owner->toggleGroup(it.cluster);
                else
                    m_owner->activateItem(s);
            }
            return;
        }
        default:
            QGraphicsView::keyPressEvent(e);
        }
    }

private:
    GraphView *m_owner;
};

class GraphLegend : public QWidget
{
public:
    GraphLegend() { setFixedWidth(210); }
    QString title() const { return toQString(m_c.title); }
    void setColoring(const graph::Coloring &c)
    {
        m_c = c;
        // The whole title, however many lines it wraps to (a gap legend names its noise rule).
        QFont bold = font();
        bold.setBold(true);
        m_titleHeight = QFontMetrics(bold)
                            .boundingRect(QRect(0, 0, width() - 16, 10000), Qt::TextWordWrap | Qt::AlignLeft,
                                toQString(m_c.title))
                            .height();
        // The note (which backend events were given to nodes, which not and why) in full.
        m_noteHeight = m_c.note.empty()
            ? 0
            : fontMetrics()
                  .boundingRect(QRect(0, 0, width() - 16, 10000), Qt::TextWordWrap | Qt::AlignLeft, toQString(m_c.note))
                  .height();
        const int rows = int(m_c.legend.size());
        setMinimumHeight(m_titleHeight + 22 + (m_c.gradient ? 84 : rows * 20) + m_noteHeight);
        update();
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        p.fillRect(rect(), palette().window());
        if (m_c.title.empty())
            return;
        QFont f = font();
        f.setBold(true);
        p.setFont(f);
        QRectF titleRect(8, 6, width() - 16, m_titleHeight + 2);
        QRectF used;
        p.drawText(titleRect, Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, toQString(m_c.title), &used);
        f.setBold(false);
        p.setFont(f);
        double y = used.bottom() + 8;
        if (m_c.gradient && m_c.legend.size() >= 2) {
            QLinearGradient grad(8, 0, width() - 8, 0);
            for (std::size_t i = 0; i < m_c.legend.size(); ++i)
                grad.setColorAt(double(i) / double(m_c.legend.size() - 1), qcolor(m_c.legend[i].color));
            QRectF bar(8, y, width() - 16, 16);
            p.setPen(QColor(120, 120, 120));
            p.setBrush(grad);
            p.drawRect(bar);
            p.setPen(palette().windowText().color());
            p.drawText(QRectF(8, y + 18, 90, 16), Qt::AlignLeft, toQString(m_c.legend.front().label));
            p.drawText(QRectF(width() - 98, y + 18, 90, 16), Qt::AlignRight, toQString(m_c.legend.back().label));
            p.drawText(QRectF(8, y + 36, width() - 16, 16), Qt::AlignLeft, tr("module boxes: roll-up"));
            // What "part of partition (x %)" in a delegated op's box means (its tooltip too).
            p.drawText(QRectF(8, y + 52, width() - 16, 32), Qt::AlignLeft | Qt::TextWordWrap,
                tr("delegated ops: their partition's share"));
            // Which backend events (Vulkan dispatches) were given to their nodes, which were not.
            if (!m_c.note.empty())
                p.drawText(QRectF(8, y + 84, width() - 16, m_noteHeight + 2), Qt::AlignLeft | Qt::TextWordWrap,
                    toQString(m_c.note));
            return;
        }
        for (const graph::LegendEntry &e : m_c.legend) {
            p.setPen(QColor(120, 120, 120));
            p.setBrush(qcolor(e.color));
            p.drawRoundedRect(QRectF(8, y, 16, 14), 3, 3);
            p.setPen(palette().windowText().color());
            p.drawText(QRectF(30, y - 1, width() - 38, 16), Qt::AlignLeft | Qt::AlignVCenter,
                fontMetrics().elidedText(toQString(e.label), Qt::ElideRight, width() - 38));
            y += 20;
        }
    }

private:
    int m_titleHeight = 0, m_noteHeight = 0;
    graph::Coloring m_c;
};

// ---------------------------------------------------------------------------------------------

struct GraphView::Pending {
    graph::VisibleGraph visible;
    std::optional<graph::GraphLayout> layout;
    std::optional<graph::GraphLayout> leftToRight;
    QString error;
    qint64 ms = 0;
};

GraphView::GraphView(QWidget *parent)
    : QWidget(parent)
{
    m_scene = new QGraphicsScene(this);
    m_scene->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    m_view = new GraphCanvas(this, m_scene);
    m_legend = new GraphLegend;

    m_overlayBox = new QComboBox;
    m_overlayBox->addItem(tr("Latency share"), int(graph::Overlay::Latency));
    m_overlayBox->addItem(tr("Numeric gap"), int(graph::Overlay::Gap));
    m_overlayBox->addItem(tr("Op type"), int(graph::Overlay::OpType));
    m_overlayBox->addItem(tr("Delegated / backend"), int(graph::Overlay::Backend));
    m_overlayBox->addItem(tr("No overlay"), int(graph::Overlay::None));
    m_overlayBox->setToolTip(tr("Colour the boxes by"));
    connect(m_overlayBox, &QComboBox::currentIndexChanged, this,
        [this](int i) { setOverlay(graph::Overlay(m_overlayBox->itemData(i).toInt())); });

    m_programBox = new QComboBox;
    m_programBox->setToolTip(tr("Program of the ETRecord to draw"));
    m_programBox->hide();
    m_inputsButton = new QToolButton;
    m_inputsButton->setText(tr("Inputs"));
    m_inputsButton->setToolTip(tr("Draw graph inputs and weights as their own nodes"));
    m_inputsButton->setCheckable(true);
    m_inputsButton->setAutoRaise(true);
    auto request = [this] { Q_EMIT programRequested(m_programBox->currentText(), m_inputsButton->isChecked()); };
    connect(m_programBox, &QComboBox::activated, this, request);
    connect(m_inputsButton, &QToolButton::toggled, this, request);

    m_search = new QLineEdit;
    m_search->setPlaceholderText(tr("Find node or module…"));
    m_search->setClearButtonEnabled(true);
    m_search->setMaximumWidth(260);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (!jumpTo(m_search->text()))
            m_status->setText(tr("No node or module matches “%1”").arg(m_search->text()));
    });

    auto button = [](const QString &text, const QString &tip) {
        auto *b = new QToolButton;
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton *fitButton = button(tr("Fit"), tr("Fit the graph into the view (F)"));
    QToolButton *expand = button(tr("Expand all"), tr("Expand every module (large graphs take seconds)"));
    QToolButton *collapse = button(tr("Collapse all"), tr("One box per module"));
    QToolButton *exportButton = button(tr("Export…"), tr("Save the current view as PNG or SVG"));
    connect(fitButton, &QToolButton::clicked, this, &GraphView::fit);
    connect(expand, &QToolButton::clicked, this, &GraphView::expandAll);
    connect(collapse, &QToolButton::clicked, this, &GraphView::collapseAll);
    connect(exportButton, &QToolButton::clicked, this, [this] {
        const auto target = askImageExport(this, tr("Export graph"), QStringLiteral("graph.png"));
        if (!target)
            return;
        if (QString e = exportImage(target->path, target->size); !e.isEmpty())
            Q_EMIT actionFailed(tr("Export graph: %1").arg(e));
    });

    m_busy = new QProgressBar;
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(90);
    m_busy->setMaximumHeight(14);
    m_busy->hide();
    m_cancelButton = button(tr("Cancel"), tr("Stop waiting for this layout and keep the current picture"));
    m_cancelButton->hide();
    connect(m_cancelButton, &QToolButton::clicked, this, &GraphView::cancelLayout);
    m_status = new QLabel;
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(4, 2, 4, 2);
    bar->addWidget(new QLabel(tr("Overlay:")));
    bar->addWidget(m_overlayBox);
    bar->addWidget(m_programBox);
    bar->addWidget(m_inputsButton);
    bar->addWidget(m_search);
    bar->addWidget(fitButton);
    bar->addWidget(expand);
    bar->addWidget(collapse);
    bar->addWidget(exportButton);
    bar->addWidget(m_busy);
    bar->addWidget(m_cancelButton);
    bar->addWidget(m_status, 1);

    m_body = new QWidget;
    auto *body = new QHBoxLayout(m_body);
    body->setContentsMargins(0, 0, 0, 0);
    body->setSpacing(0);
    body->addWidget(m_view, 1);
    body->addWidget(m_legend);

    m_info = new QLabel;
    m_info->setObjectName(QStringLiteral("graphInfo"));
    m_info->setTextFormat(Qt::RichText);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_info->setContentsMargins(6, 2, 6, 2);
    m_info->setWordWrap(true);

    auto *lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(0);
    lay->addLayout(bar);
    lay->addWidget(m_body, 1);
    lay->addWidget(m_info);

    m_job = new BackgroundJob(this);
    clear(tr("Open an ETRecord with the ETDump to see the program graph."));
}

GraphView::~GraphView() = default; // the job cancels and waits for the layout

QString GraphView::legendTitle() const
{
    return m_legend->title();
}

void GraphView::setRunsLabel(const QString &label)
{
    m_runsLabel = label;
    recolor();
}

QGraphicsView *GraphView::canvas() const
{
    return m_view;
}

QGraphicsScene *GraphView::scene() const
{
    return m_scene;
}

void GraphView::clear(const QString &message)
{
    cancelLayout();
    m_graph.reset();
    m_data = {};
    m_visible = {};
    m_layout = {};
    m_baseTopToBottom = {};
    m_baseLeftToRight.reset();
    m_colors = {};
    m_items.clear();
    m_scene->clear();
    m_selected = -1;
    m_status->setText(message);
    m_info->clear();
    m_legend->setColoring({});
}

void GraphView::setGraph(std::shared_ptr<const graph::ProgramGraph> g, graph::OverlayData data)
{
    clear({});
    m_graph = std::move(g);
    m_data = std::move(data);
    if (!m_graph)
        return;
    m_state = graph::ExpansionState(*m_graph);
    QStringList words;
    for (const graph::OpNode &n : m_graph->nodes())
        words << toQString(n.name);
    for (std::size_t i = 1; i < m_graph->groups().size(); ++i)
        words << toQString(m_graph->groups()[i].label);
    words.removeDuplicates();
    auto *completer = new QCompleter(words, m_search);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    m_search->setCompleter(completer);
    m_fitAfterLayout = true;
    relayout();
}

void GraphView::setOverlayData(graph::OverlayData data)
{
    m_data = std::move(data);
    recolor();
}

void GraphView::setProgramChoices(const QStringList &entries, const QString &current, bool placeholders)
{
    const QSignalBlocker a(m_programBox), b(m_inputsButton);
    m_programBox->clear();
    m_programBox->addItems(entries);
    m_programBox->setCurrentText(current);
    m_programBox->setVisible(entries.size() > 1);
    m_inputsButton->setChecked(placeholders);
}

void GraphView::setOverlay(graph::Overlay o)
{
    m_overlay = o;
    const int idx = m_overlayBox->findData(int(o));
    if (idx >= 0 && idx != m_overlayBox->currentIndex()) {
        const QSignalBlocker block(m_overlayBox);
        m_overlayBox->setCurrentIndex(idx);
    }
    recolor();
}

void GraphView::relayout()
{
    if (!m_graph)
        return;
    auto pending = std::make_shared<Pending>();
    pending->visible = graph::visibleGraph(*m_graph, m_state);
    m_running = true;
    m_busy->show();
    m_cancelButton->show();
    m_status->setText(tr("Laying out %1 boxes…").arg(pending->visible.items.size()));
    // A newer layout supersedes this one: its result is dropped, the last picture stays meanwhile.
    m_job->start(
        [g = m_graph, pending](BackgroundJob::Control &job) {
            QElapsedTimer t;
            t.start();
            auto r = graph::layoutGraph(*g, pending->visible, job.cancelFlag());
            if (r)
                pending->layout = std::move(r.value());
            else
                pending->error = toQString(r.error().message());
            // The other direction too, for views whose shape favours it (a wide, short dock).
            if (r && pending->visible.items.size() <= kArrangeLimit)
                if (auto lr
                    = graph::layoutGraph(*g, pending->visible, graph::FlowDirection::LeftToRight, job.cancelFlag()))
                    pending->leftToRight = std::move(lr.value());
            pending->ms = t.elapsed();
            return pending;
        },
        [this](const std::shared_ptr<Pending> &p) { onLayoutDone(p); });
}

void GraphView::cancelLayout()
{
    if (!m_running)
        return;
    m_job->cancel(); // whatever arrives now is stale
    m_running = false;
    m_busy->hide();
    m_cancelButton->hide();
    m_pendingNode = -1;
    m_status->setText(tr("Layout cancelled; showing the previous picture."));
    if (m_graph) {
        // Keep the expansion consistent with what is drawn.
        m_state = graph::ExpansionState(*m_graph);
        for (const graph::VisibleItem &it : m_visible.items)
            for (int a : m_graph->ancestry(it.kind == graph::VisibleItem::Kind::Op
                         ? m_graph->nodes()[std::size_t(it.index)].group
                         : m_graph->groups()[std::size_t(it.index)].parent))
                m_state.setExpanded(a, true);
    }
    Q_EMIT layoutFinished();
}

bool GraphView::waitForLayout(int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (m_running && t.elapsed() < timeoutMs)
        QApplication::processEvents(QEventLoop::AllEvents, 20);
    return !m_running;
}

void GraphView::onLayoutDone(const std::shared_ptr<Pending> &p)
{
    m_running = false;
    m_busy->hide();
    m_cancelButton->hide();
    if (!p->layout) {
        m_status->setText(p->error);
        Q_EMIT layoutFinished();
        return;
    }
    // Keep the selection on the same node or module across relayouts.
    int keepNode = -1, keepGroup = -1;
    if (m_selected >= 0 && std::size_t(m_selected) < m_visible.items.size()) {
        const graph::VisibleItem &it = m_visible.items[std::size_t(m_selected)];
        (it.kind == graph::VisibleItem::Kind::Op ? keepNode : keepGroup) = it.index;
    }
    m_visible = std::move(p->visible);
    m_selected = -1; // indices of the old items
    m_baseTopToBottom = std::move(*p->layout);
    m_baseLeftToRight = std::move(p->leftToRight);
    // A fitted view takes the arrangement that suits it; a zoomed one keeps its arrangement.
    if (m_view->m_followsFit || m_fitAfterLayout) {
        m_layout = {};
        m_layout.segments = 0; // forces the choice
        if (!rearrange()) {
            m_layout = m_baseTopToBottom;
            rebuildScene();
        }
    } else {
        arrange(m_layout.direction, m_layout.segments);
        rebuildScene();
    }
    m_status->setText(tr("%1 operators, %2 boxes, %3 edges · layout %4 ms")
                          .arg(m_graph->operatorCount())
                          .arg(m_visible.items.size())
                          .arg(m_visible.edges.size())
                          .arg(p->ms));
    if (m_fitAfterLayout) {
        m_fitAfterLayout = false;
        fit();
    }
    int target = -1;
    if (m_pendingNode >= 0)
        target = m_visible.itemOfNode[std::size_t(m_pendingNode)];
    else if (keepNode >= 0)
        target = m_visible.itemOfNode[std::size_t(keepNode)];
    else if (keepGroup >= 0)
        target = m_visible.itemOfGroup[std::size_t(keepGroup)];
    const bool center = m_pendingNode >= 0;
    m_pendingNode = -1;
    if (target >= 0)
        select(target, center);
    Q_EMIT layoutFinished();
}

void GraphView::rebuildScene()
{
    m_items.clear();
    m_scene->clear();
    const graph::ProgramGraph &g = *m_graph;
    for (const auto *list : { &m_layout.clusters, &m_layout.continuedClusters })
        for (const graph::ClusterGeometry &c : *list) {
            const graph::Group &grp = g.groups()[std::size_t(c.group)];
            m_scene->addItem(new GraphClusterItem(this, c.group, QRectF(c.x, c.y, c.w, c.h),
                toQString(graph::clusterLabel(g, c.group)), grp.kind == graph::Group::Kind::Partition, grp.depth));
        }
    for (const graph::EdgeGeometry &e : m_layout.edges) {
        if (e.bezier.empty())
            continue;
        QPainterPath path(QPointF(e.bezier[0].x, e.bezier[0].y));
        for (std::size_t i = 1; i + 2 < e.bezier.size(); i += 3)
            path.cubicTo(QPointF(e.bezier[i].x, e.bezier[i].y), QPointF(e.bezier[i + 1].x, e.bezier[i + 1].y),
                QPointF(e.bezier[i + 2].x, e.bezier[i + 2].y));
        QPolygonF arrow;
        if (e.arrow) {
            const QPointF tip(e.arrowTip.x, e.arrowTip.y), from = path.currentPosition();
            QLineF l(tip, from);
            if (l.length() > 0.1) {
                l.setLength(8);
                QLineF a = l, b = l;
                a.setAngle(l.angle() + 22);
                b.setAngle(l.angle() - 22);
                arrow << tip << a.p2() << b.p2();
            }
            path.lineTo(tip);
        }
        m_scene->addItem(new GraphEdgeItem(path, arrow));
    }
    m_items.reserve(m_visible.items.size());
    for (std::size_t i = 0; i < m_visible.items.size(); ++i) {
        const graph::ItemGeometry &geo = m_layout.items[i];
        QStringList lines;
        for (const std::string &l : graph::itemLabel(g, m_visible, int(i)))
            lines << toQString(l);
        const graph::VisibleItem &vi = m_visible.items[i];
        const bool isGroup = vi.kind == graph::VisibleItem::Kind::Group;
        auto *item = new GraphNodeItem(this, int(i), isGroup, QRectF(-geo.w / 2, -geo.h / 2, geo.w, geo.h), lines);
        item->setPos(geo.x, geo.y);
        if (isGroup) {
            item->setBaseToolTip(
                tr("%1\nDouble-click to expand").arg(toQString(g.groups()[std::size_t(vi.index)].type)));
        } else {
            const graph::OpNode &op = g.nodes()[std::size_t(vi.index)];
            QString tip = toQString(op.name + "\n" + op.opName);
            for (const std::string &line : graph::payloadNodeDetails(g, vi.index))
                tip += QLatin1Char('\n') + toQString(line);
            if (!op.collapsedInputs.empty()) {
                tip += tr("\ninputs: ");
                for (std::size_t k = 0; k < op.collapsedInputs.size(); ++k)
                    tip += QString::fromLatin1(k ? ", " : "") + toQString(op.collapsedInputs[k]);
            }
            item->setBaseToolTip(tip);
        }
        m_scene->addItem(item);
        m_items.push_back(item);
    }
    m_scene->setSceneRect(
        QRectF(-kSceneMargin, -kSceneMargin, m_layout.width + 2 * kSceneMargin, m_layout.height + 2 * kSceneMargin));
    recolor();
    if (m_selected >= 0 && std::size_t(m_selected) < m_items.size())
        m_items[std::size_t(m_selected)]->setSelectedMark(true);
}

void GraphView::arrange(graph::FlowDirection direction, int segments)
{
    const graph::GraphLayout &base
        = direction == graph::FlowDirection::LeftToRight && m_baseLeftToRight ? *m_baseLeftToRight : m_baseTopToBottom;
    m_layout = graph::foldLayout(base, m_visible.items.size() <= kArrangeLimit ? segments : 1);
}

bool GraphView::rearrange()
{
    if (!m_graph || m_baseTopToBottom.items.empty() || m_visible.items.size() > kArrangeLimit)
        return false;
    const QSize vp = m_view->viewport()->size();
    const graph::Arrangement a = graph::bestArrangement(
        m_baseTopToBottom, m_baseLeftToRight ? &*m_baseLeftToRight : nullptr, vp.width(), vp.height(), kSceneMargin);
    if (a.direction == m_layout.direction && a.segments == m_layout.segments)
        return false;
    arrange(a.direction, a.segments);
    rebuildScene();
    return true;
}

double GraphView::nodeTextPixelSize() const
{
    return kNamePixelSize * m_view->transform().m11();
}

void GraphView::recolor()
{
    if (!m_graph || m_items.size() != m_visible.items.size()) {
        m_legend->setColoring({});
        return;
    }
    m_colors = graph::colorItems(*m_graph, m_visible, m_data, m_overlay);
    for (std::size_t i = 0; i < m_items.size(); ++i)
        m_items[i]->setFill(qcolor(m_colors.fill[i]), toQString(m_colors.value[i]));
    graph::Coloring legend = m_colors;
    if (m_overlay == graph::Overlay::Latency && !m_runsLabel.isEmpty() && !legend.title.empty())
        legend.title += " — " + m_runsLabel.toStdString(); // the runs the latencies are over
    m_legend->setColoring(legend);
    updateInfo();
}

void GraphView::fit()
{
    if (m_scene->items().isEmpty())
        return;
    m_view->m_followsFit = true;
    rearrange();
    m_view->fitInView(m_scene->sceneRect(), Qt::KeepAspectRatio);
    // Very large graphs: fit would make text unreadable; start at a readable zoom at the top.
    if (m_view->transform().m11() < 0.35 && m_visible.items.size() > 60) {
        m_view->resetTransform();
        m_view->scale(0.6, 0.6);
        m_view->centerOn(m_layout.width / 2, 0);
    }
}

QPointF GraphView::itemCenter(int item) const
{
    return item >= 0 && std::size_t(item) < m_items.size() ? m_items[std::size_t(item)]->scenePos() : QPointF();
}

void GraphView::select(int item, bool center)
{
    m_cameFrom = -1;
    if (m_selected >= 0 && std::size_t(m_selected) < m_items.size())
        m_items[std::size_t(m_selected)]->setSelectedMark(false);
    m_selected = item;
    if (item >= 0 && std::size_t(item) < m_items.size()) {
        m_items[std::size_t(item)]->setSelectedMark(true);
        if (center)
            m_view->centerOn(m_items[std::size_t(item)]);
        else
            m_view->ensureVisible(m_items[std::size_t(item)], 30, 30);
    }
    updateInfo();
}

void GraphView::activateItem(int item)
{
    if (item < 0 || std::size_t(item) >= m_visible.items.size())
        return;
    select(item, false);
    const graph::VisibleItem &it = m_visible.items[std::size_t(item)];
    if (it.kind == graph::VisibleItem::Kind::Op)
        Q_EMIT nodeClicked(it.index);
    else
        Q_EMIT groupClicked(it.index);
}

void GraphView::updateInfo()
{
    if (!m_graph || m_selected < 0 || std::size_t(m_selected) >= m_visible.items.size()) {
        m_info->setText(m_graph
                ? tr("Click a box to select its events; double-click a module or delegate to expand it; "
                     "arrows move, +/- zoom, F fits.")
                : QString());
        return;
    }
    const graph::VisibleItem &it = m_visible.items[std::size_t(m_selected)];
    const QString value = std::size_t(m_selected) < m_colors.value.size()
        ? toQString(m_colors.value[std::size_t(m_selected)])
        : QString();
    QString text;
    if (it.kind == graph::VisibleItem::Kind::Op) {
        const graph::OpNode &op = m_graph->nodes()[std::size_t(it.index)];
        text = QStringLiteral("<b>%1</b> · %2 · %3")
                   .arg(toQString(op.name).toHtmlEscaped(), toQString(op.opName).toHtmlEscaped(),
                       toQString(op.shape).toHtmlEscaped());
        // A node of a delegate's decoded payload: its op, shapes, dtypes and quantization.
        const std::vector<std::string> details = graph::payloadNodeDetails(*m_graph, it.index);
        for (std::size_t k = 1; k < details.size(); ++k)
            text += QStringLiteral(" · ") + toQString(details[k]).toHtmlEscaped();
        if (op.debugHandle)
            text += tr(" · debug handle %1").arg(*op.debugHandle);
        if (op.partition >= 0)
            text += tr(" · delegated to %1").arg(toQString(m_graph->partitions()[std::size_t(op.partition)].backend));
        std::string module;
        for (int a : m_graph->ancestry(op.group))
            if (m_graph->groups()[std::size_t(a)].kind == graph::Group::Kind::Module)
                module = m_graph->groups()[std::size_t(a)].label;
        if (!module.empty())
            text += tr(" · module %1").arg(toQString(module).toHtmlEscaped());
        if (op.source && !op.source->sourceLocation().empty())
            text += tr(" · %1").arg(toQString(op.source->sourceLocation()).toHtmlEscaped());
        if (!op.collapsedInputs.empty()) {
            QStringList ins;
            for (const std::string &s : op.collapsedInputs)
                ins << toQString(s).toHtmlEscaped();
            text += tr(" · inputs %1").arg(ins.join(QStringLiteral(", ")));
        }
        const std::size_t events
            = m_data.nodeEvents.size() > std::size_t(it.index) ? m_data.nodeEvents[std::size_t(it.index)].size() : 0;
        text += tr(" · %n event(s)", nullptr, int(events));
    } else {
        const graph::Group &grp = m_graph->groups()[std::size_t(it.index)];
        text = tr("<b>%1</b> · %2 · %3 operators (double-click to expand)")
                   .arg(toQString(grp.label).toHtmlEscaped(), toQString(grp.type).toHtmlEscaped())
                   .arg(grp.totalOps);
    }
    if (!value.isEmpty())
        text += QStringLiteral(" · <b>%1</b>").arg(value.toHtmlEscaped());
    m_info->setText(text);
}

void GraphView::toggleGroup(int group)
{
    if (!m_graph || group <= 0 || std::size_t(group) >= m_graph->groups().size())
        return;
    const bool open = !m_state.expanded(group);
    m_state.setExpanded(group, open);
    // Follow the module: centre on its first operator (expanding) or on its box (collapsing).
    std::vector<int> stack { group };
    int first = -1;
    while (!stack.empty() && first < 0) {
        const graph::Group &grp = m_graph->groups()[std::size_t(stack.back())];
        stack.pop_back();
        if (!grp.nodes.empty())
            first = grp.nodes.front();
        for (auto it = grp.children.rbegin(); it != grp.children.rend(); ++it)
            stack.push_back(*it);
    }
    m_pendingNode = first;
    relayout();
}

void GraphView::expandAll()
{
    if (!m_graph)
        return;
    m_state.expandAll();
    m_fitAfterLayout = true;
    relayout();
}

void GraphView::collapseAll()
{
    if (!m_graph)
        return;
    m_state.collapseAll();
    m_fitAfterLayout = true;
    relayout();
}

bool GraphView::centerOnNode(int opNode)
{
    if (!m_graph || opNode < 0 || std::size_t(opNode) >= m_graph->nodes().size())
        return false;
    const int group = m_graph->nodes()[std::size_t(opNode)].group;
    // A delegate's call stands for its collapsed payload box: selecting it does not open it.
    const graph::Group &home = m_graph->groups()[std::size_t(group)];
    const bool call = home.callNode == opNode;
    if (call && m_state.expanded(group) && !home.callNodeDrawn && home.nodes.size() > 1)
        opNode = home.nodes[1]; // its call's box gave way to the payload's nodes: the first of them
    bool changed = false;
    for (int a : m_graph->ancestry(group))
        if (!(call && a == group) && !m_state.expanded(a)) {
            m_state.setExpanded(a, true);
            changed = true;
        }
    if (changed || m_running) {
        m_pendingNode = opNode;
        if (changed)
            relayout();
        return true;
    }
    if (std::size_t(opNode) < m_visible.itemOfNode.size())
        select(m_visible.itemOfNode[std::size_t(opNode)], true);
    return true;
}

bool GraphView::centerOnEvent(int blockIndex, int eventIndex)
{
    if (!m_graph)
        return false;
    for (std::size_t n = 0; n < m_data.nodeEvents.size(); ++n)
        for (const graph::EventRef &r : m_data.nodeEvents[n])
            if (r.block == blockIndex && r.event == eventIndex)
                return centerOnNode(int(n));
    return false;
}

bool GraphView::jumpTo(const QString &text)
{
    if (!m_graph || text.trimmed().isEmpty())
        return false;
    const std::string t = text.trimmed().toStdString();
    if (int n = m_graph->findNode(t); n >= 0)
        return centerOnNode(n);
    if (int grp = m_graph->findGroup(t); grp >= 0) {
        bool changed = false;
        for (int a : m_graph->ancestry(grp))
            if (a != grp && !m_state.expanded(a)) {
                m_state.setExpanded(a, true);
                changed = true;
            }
        if (changed) {
            m_pendingNode = m_graph->groups()[std::size_t(grp)].nodes.empty()
                ? -1
                : m_graph->groups()[std::size_t(grp)].nodes.front();
            relayout();
            return true;
        }
        const int item = m_visible.itemOfGroup[std::size_t(grp)];
        if (item >= 0) {
            select(item, true);
            return true;
        }
        for (const graph::ClusterGeometry &c : m_layout.clusters)
            if (c.group == grp) {
                m_view->centerOn(c.x + c.w / 2, c.y + 20);
                return true;
            }
        return false;
    }
    const QString needle = text.trimmed();
    for (std::size_t n = 0; n < m_graph->nodes().size(); ++n) {
        const graph::OpNode &op = m_graph->nodes()[n];
        if (toQString(op.name).contains(needle, Qt::CaseInsensitive)
            || toQString(op.opName).contains(needle, Qt::CaseInsensitive))
            return centerOnNode(int(n));
    }
    return false;
}

void GraphView::moveSelection(int key)
{
    if (m_items.empty())
        return;
    if (m_selected < 0) {
        select(0, true);
        return;
    }
    const QPointF here = itemCenter(m_selected);
    int best = -1;
    double bestScore = 1e300;
    auto consider = [&](int i, double score) {
        if (i != m_selected && score < bestScore) {
            bestScore = score;
            best = i;
        }
    };
    if (key == Qt::Key_Up || key == Qt::Key_Down) {
        for (const auto &[a, b] : m_visible.edges) {
            const int other = key == Qt::Key_Up ? (b == m_selected ? a : -1) : (a == m_selected ? b : -1);
            // Going back the way we came wins, so Down then Up returns to the same box.
            if (other >= 0)
                consider(other, other == m_cameFrom ? -1.0 : std::abs(itemCenter(other).x() - here.x()));
        }
        if (best < 0) // no neighbour by data flow: nearest box above / below
            for (std::size_t i = 0; i < m_items.size(); ++i) {
                const QPointF c = itemCenter(int(i));
                const double dy = key == Qt::Key_Up ? here.y() - c.y() : c.y() - here.y();
                if (dy > 1)
                    consider(int(i), dy * 4 + std::abs(c.x() - here.x()));
            }
    } else {
        for (std::size_t i = 0; i < m_items.size(); ++i) {
            const QPointF c = itemCenter(int(i));
            const double dx = key == Qt::Key_Left ? here.x() - c.x() : c.x() - here.x();
            if (dx > 1)
                consider(int(i), dx + 4 * std::abs(c.y() - here.y()));
        }
    }
    if (best >= 0) {
        const int from = m_selected;
        activateItem(best);
        m_cameFrom = from;
    }
}

QString GraphView::exportImage(const QString &path, QSize size)
{
    // The canvas and the legend side by side (no toolbar). At a given size the whole graph,
    // arranged and fitted for that size (a long chain in a wide image becomes rows); the view
    // gets its own arrangement, zoom and scroll position back afterwards.
    if (!size.isValid())
        return exportWidgetImage(m_body, path, tr("etscope graph"));
    const bool followed = m_view->m_followsFit;
    const QTransform zoom = m_view->transform();
    const QPointF centre = m_view->mapToScene(m_view->viewport()->rect().center());
    const graph::FlowDirection direction = m_layout.direction;
    const int segments = m_layout.segments;
    m_view->m_followsFit = true; // the resize for the export arranges and fits
    const QString error = exportChartImage(m_body, path, size, tr("etscope graph"));
    if (!followed) {
        m_view->m_followsFit = false;
        if (direction != m_layout.direction || segments != m_layout.segments) {
            arrange(direction, segments);
            rebuildScene();
        }
        m_view->setTransform(zoom);
        m_view->centerOn(centre);
    }
    return error;
}

} // namespace etscope
