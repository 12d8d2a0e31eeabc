#include "memoryview.h"

#include "memoryplanmodel.h"
#include "numberformat.h"
#include "program/programexport.h"
#include "qtstrings.h"

#include <QHeaderView>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>

#include <cmath>

namespace etscope {

namespace {
// kLegend: the operators' colours above the arenas; kAxis: instruction ticks and the axis title.
constexpr double kLeft = 78, kRight = 12, kTop = 4, kLegend = 18, kGap = 18, kAxis = 30, kLiveShare = 0.22;

QString bytesText(std::uint64_t b)
{
    return QLocale::c().toString(qulonglong(b)) + QStringLiteral(" B");
}
} // namespace

std::vector<int> instructionTicks(std::size_t count, int target)
{
    // Whole instructions only, each once: a step below 1 would label 0, 0.5, 1 as "0", "0", "1".
    std::vector<int> out;
    if (count == 0)
        return out;
    const double step = std::max(1.0, niceStep(double(count - 1), std::max(target, 1)));
    for (double v = 0; v <= double(count - 1) + 1e-9; v += step)
        out.push_back(int(std::lround(v)));
    return out;
}

std::vector<std::pair<double, QString>> byteTicks(std::uint64_t size, int target)
{
    std::vector<std::pair<double, QString>> out;
    if (size == 0)
        return out;
    // In the unit of the size, with the decimals of the step: "0", "0.5 MB", "1.0 MB" (SI units).
    const double step = std::max(1.0, niceStep(double(size), std::max(target, 1)));
    const double top = double(size);
    const double unit = top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
    const QString name = unit == 1e9 ? QStringLiteral("GB")
        : unit == 1e6                ? QStringLiteral("MB")
        : unit == 1e3                ? QStringLiteral("kB")
                                     : QStringLiteral("B");
    const int decimals = std::max(0, -int(std::floor(std::log10(step / unit) + 1e-9)));
    for (int i = 0;; ++i) {
        const double v = i * step;
        if (v > double(size) * (1 + 1e-9) || i > 1000)
            break;
        out.emplace_back(v, i == 0 ? QStringLiteral("0") : formatTick(v / unit, decimals) + QLatin1Char(' ') + name);
    }
    return out;
}

QString byteSizeText(std::uint64_t size)
{
    const double v = double(size);
    const auto [unit, name] = v >= 1e9 ? std::pair(1e9, "GB")
        : v >= 1e6                     ? std::pair(1e6, "MB")
        : v >= 1e3                     ? std::pair(1e3, "kB")
                                       : std::pair(1.0, "B");
    return formatSignificant(v / unit, 3) + QLatin1Char(' ') + QString::fromLatin1(name);
}

MemoryPlanCanvas::MemoryPlanCanvas(const MemoryPlanModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    setMouseTracking(true);
    setMinimumSize(320, 150); // arenas, the live line and the instruction axis stay readable
    connect(model, &QAbstractItemModel::modelReset, this, qOverload<>(&QWidget::update));
}

double MemoryPlanCanvas::xOf(double instruction) const
{
    const double n = double(std::max<std::size_t>(m_model->plan().instructionCount, 1));
    return kLeft + (width() - kLeft - kRight) * instruction / n;
}

QRectF MemoryPlanCanvas::liveArea() const
{
    const double h = height() * kLiveShare;
    return { kLeft, height() - h - kAxis, width() - kLeft - kRight, h - 4 };
}

QRectF MemoryPlanCanvas::arenaArea(std::size_t arena) const
{
    const std::size_t count = std::max<std::size_t>(m_model->plan().arenas.size(), 1);
    const double top = kTop + kLegend;
    const double total = liveArea().top() - kGap - top;
    const double each = (total - kGap * double(count - 1)) / double(count);
    return { kLeft, top + double(arena) * (each + kGap), width() - kLeft - kRight, each };
}

QRectF MemoryPlanCanvas::tensorRect(int row) const
{
    const MemoryPlan &plan = m_model->plan();
    if (row < 0 || std::size_t(row) >= plan.tensors.size())
        return {};
    const PlannedTensor &t = plan.tensors[std::size_t(row)];
    if (t.first < 0)
        return {};
    for (std::size_t a = 0; a < plan.arenas.size(); ++a) {
        if (plan.arenas[a].id != t.arena || plan.arenas[a].size == 0)
            continue;
        const QRectF area = arenaArea(a);
        const double scale = area.height() / double(plan.arenas[a].size);
        const double x0 = xOf(t.first), x1 = xOf(t.last + 1);
        return { x0, area.top() + double(t.offset) * scale, std::max(x1 - x0, 1.0),
            std::max(double(t.nbytes) * scale, 1.0) };
    }
    return {};
}

int MemoryPlanCanvas::tensorAt(QPointF pos) const
{
    // Smallest rectangle under the point, so that a tensor drawn over a reused region wins.
    int best = -1;
    double bestArea = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QRectF r = tensorRect(row);
        if (r.contains(pos) && (best < 0 || r.width() * r.height() < bestArea)) {
            best = row;
            bestArea = r.width() * r.height();
        }
    }
    return best;
}

void MemoryPlanCanvas::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const MemoryPlan &plan = m_model->plan();
    if (!m_model->method()) {
        p.drawText(rect(), Qt::AlignCenter, tr("Open a .pte program to see its memory plan"));
        return;
    }
    p.setPen(palette().text().color());
    const QFontMetricsF fm(font());
    for (std::size_t a = 0; a < plan.arenas.size(); ++a) {
        const QRectF area = arenaArea(a);
        // The arena's name in the margin above it (beside the legend, or in the gap between
        // arenas); its y axis is the offset inside it, 0 at the top.
        QString title = tr("arena %1").arg(plan.arenas[a].id);
        if (!plan.arenas[a].device.isCpu()) // CUDA programs plan arenas on the device (non_const_buffer_device)
            title += QLatin1Char(' ') + toQString(deviceName(plan.arenas[a].device));
        p.drawText(QRectF(0, area.top() - 17, kLeft - 6, 16), Qt::AlignRight | Qt::AlignBottom,
            fm.elidedText(title, Qt::ElideRight, kLeft - 6));
        drawByteAxis(p, area, plan.arenas[a].size, false);
        p.drawRect(area);
    }
    p.setPen(QPen(QColor(40, 40, 40), 0.5));
    QStringList producers; // in order of first appearance, for the legend
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QRectF r = tensorRect(row);
        if (r.isEmpty())
            continue;
        const QString label = m_model->index(row, MemoryPlanModel::Producer).data().toString();
        if (!producers.contains(label))
            producers << label;
        p.setBrush(QColor::fromRgb(QRgb(labelColor(label.toStdString()))));
        p.drawRect(r);
    }
    // Legend: what each colour is, as many as fit on the line (the rest counted).
    {
        double x = kLeft;
        int shown = 0;
        for (const QString &label : std::as_const(producers)) {
            const double w = 14 + fm.horizontalAdvance(label) + 12;
            const QString more = tr("+%1 more").arg(producers.size() - shown - 1);
            if (x + w + (shown + 1 < producers.size() ? fm.horizontalAdvance(more) : 0) > width() - kRight)
                break;
            p.setPen(QPen(QColor(40, 40, 40), 0.5));
            p.setBrush(QColor::fromRgb(QRgb(labelColor(label.toStdString()))));
            p.drawRect(QRectF(x, kTop + 3, 10, 10));
            p.setPen(palette().text().color());
            p.drawText(QRectF(x + 14, kTop, w, kLegend - 2), Qt::AlignLeft | Qt::AlignVCenter, label);
            x += w;
            ++shown;
        }
        if (shown < producers.size()) {
            p.setPen(palette().text().color());
            p.drawText(QRectF(x, kTop, width() - kRight - x, kLegend - 2), Qt::AlignLeft | Qt::AlignVCenter,
                tr("+%1 more").arg(producers.size() - shown));
        }
    }
    // Live bytes per instruction, peak marked.
    const QRectF live = liveArea();
    p.setBrush(Qt::NoBrush);
    p.setPen(palette().text().color());
    p.drawRect(live);
    p.drawText(QRectF(0, live.top() - 17, kLeft - 6, 16), Qt::AlignRight | Qt::AlignBottom, tr("live"));
    drawByteAxis(p, live, plan.peakLiveBytes, true);
    const double maxLive = double(std::max<std::uint64_t>(plan.peakLiveBytes, 1));
    QPolygonF line;
    for (std::size_t k = 0; k < plan.liveBytes.size(); ++k) {
        const double y = live.bottom() - live.height() * double(plan.liveBytes[k]) / maxLive;
        line << QPointF(xOf(double(k)), y) << QPointF(xOf(double(k + 1)), y);
    }
    p.setPen(QPen(QColor(192, 57, 43), 1.5));
    p.drawPolyline(line);
    if (plan.peakInstruction >= 0) {
        p.setPen(QPen(QColor(192, 57, 43), 1, Qt::DashLine));
        const double x = xOf(plan.peakInstruction + 0.5);
        p.drawLine(QPointF(x, kTop), QPointF(x, live.bottom()));
    }
    // Instruction axis: nice ticks at the middle of each instruction's column.
    p.setPen(palette().text().color());
    for (int v : instructionTicks(plan.instructionCount, instructionTickTarget())) {
        const double x = xOf(v + 0.5);
        p.drawLine(QPointF(x, live.bottom()), QPointF(x, live.bottom() + 4));
        p.drawText(QRectF(x - 30, live.bottom() + 4, 60, 13), Qt::AlignHCenter | Qt::AlignTop, QString::number(v));
    }
    p.drawText(QRectF(kLeft, height() - 14, width() - kLeft - kRight, 14), Qt::AlignCenter,
        tr("instruction (0 … %1)").arg(qlonglong(plan.instructionCount) - 1));
}

int MemoryPlanCanvas::instructionTickTarget() const
{
    const QFontMetricsF fm(font());
    return std::max(2, int((width() - kLeft - kRight) / (fm.horizontalAdvance(QStringLiteral("0000")) * 2.5)));
}

int MemoryPlanCanvas::byteTickTarget(double height) const
{
    return std::max(1, int(height / (QFontMetricsF(font()).height() * 1.6)));
}

void MemoryPlanCanvas::drawByteAxis(QPainter &p, const QRectF &area, std::uint64_t size, bool upward) const
{
    // Byte ticks in the left margin: offsets in an arena (0 at the top, as the rectangles are
    // placed), live bytes upward from 0 under the line.
    if (size == 0 || area.height() <= 0)
        return;
    const double lineHeight = QFontMetricsF(font()).height();
    auto ticks = byteTicks(size, byteTickTarget(area.height()));
    if (ticks.size() < 2) // a strip too short for a second nice tick: its top is `size`
        ticks.emplace_back(double(size), byteSizeText(size));
    for (const auto &[value, label] : ticks) {
        const double f = value / double(size);
        const double y = upward ? area.bottom() - f * area.height() : area.top() + f * area.height();
        p.drawLine(QPointF(kLeft - 4, y), QPointF(kLeft, y));
        QRectF box(0, y - lineHeight / 2, kLeft - 6, lineHeight);
        // Labels stay inside the area's height (the first and last shifted in).
        if (box.top() < area.top() - 2)
            box.moveTop(area.top() - 2);
        if (box.bottom() > area.bottom() + 2)
            box.moveBottom(area.bottom() + 2);
        p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, label);
    }
}

QStringList MemoryPlanCanvas::instructionTickLabels() const
{
    QStringList out;
    for (int v : instructionTicks(m_model->plan().instructionCount, instructionTickTarget()))
        out << QString::number(v);
    return out;
}

QStringList MemoryPlanCanvas::byteTickLabels(std::size_t arena) const
{
    QStringList out;
    const MemoryPlan &plan = m_model->plan();
    if (arena >= plan.arenas.size())
        return out;
    for (const auto &[value, label] : byteTicks(plan.arenas[arena].size, byteTickTarget(arenaArea(arena).height())))
        out << label;
    return out;
}

void MemoryPlanCanvas::mouseMoveEvent(QMouseEvent *event)
{
    const int row = tensorAt(event->position());
    if (row < 0) {
        QToolTip::hideText();
        return;
    }
    const PlannedTensor &t = m_model->plan().tensors[std::size_t(row)];
    const QString text = tr("%%1 %2\n%3 at arena %4 offset %5\ninstructions %6 … %7, made by %8")
                             .arg(t.value)
                             .arg(m_model->index(row, MemoryPlanModel::Shape).data().toString(), bytesText(t.nbytes))
                             .arg(t.arena)
                             .arg(qulonglong(t.offset))
                             .arg(t.first)
                             .arg(t.last)
                             .arg(m_model->index(row, MemoryPlanModel::Producer).data().toString())
        + (t.device.isCpu() ? QString() : tr("\non %1").arg(toQString(deviceName(t.device))))
        + (t.external ? tr("\ninitial data in the .ptd (external)") : QString());
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void MemoryPlanCanvas::mousePressEvent(QMouseEvent *event)
{
    const int row = tensorAt(event->position());
    if (row >= 0)
        Q_EMIT tensorClicked(row);
}

MemoryView::MemoryView(QWidget *parent)
    : QWidget(parent)
    , m_model(new MemoryPlanModel(this))
    , m_canvas(new MemoryPlanCanvas(m_model, this))
    , m_figures(new QLabel(this))
    , m_table(new QTableView(this))
{
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures->setWordWrap(true);
    auto *proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(m_model);
    proxy->setSortRole(MemoryPlanModel::SortRole);
    m_table->setModel(proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(MemoryPlanModel::Value, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_split = new QSplitter(Qt::Vertical, this);
    auto *split = m_split;
    split->addWidget(m_canvas);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    m_table->setMinimumHeight(m_table->fontMetrics().height() * 5); // a header and a few rows, never a strip
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_figures);
    layout->addWidget(split, 1);
    connect(m_canvas, &MemoryPlanCanvas::tensorClicked, this, [this](int row) {
        m_table->selectRow(
            static_cast<QSortFilterProxyModel *>(m_table->model())->mapFromSource(m_model->index(row, 0)).row());
        Q_EMIT instructionActivated(m_model->plan().tensors[std::size_t(row)].first);
    });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        Q_EMIT instructionActivated(index.data(MemoryPlanModel::FirstInstructionRole).toInt());
    });
}

void MemoryView::setProgram(
    std::shared_ptr<const Program> program, const ProgramMethod *method, std::vector<AllocatorUsage> allocations)
{
    m_allocations = std::move(allocations);
    m_model->setPlan(std::move(program), method);
    m_table->resizeColumnsToContents();
    m_figures->setText(figuresText());
}

void MemoryView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // A wide, short dock (the bottom area at 1280×720) gives the table the side, not a strip
    // under the picture.
    const Qt::Orientation want = width() > 2 * height() ? Qt::Horizontal : Qt::Vertical;
    if (m_split->orientation() != want) {
        m_split->setOrientation(want);
        m_split->setSizes(want == Qt::Horizontal ? QList<int> { width() * 3 / 5, width() * 2 / 5 }
                                                 : QList<int> { height() * 3 / 4, height() / 4 });
    }
}

QString MemoryView::figuresText() const
{
    const ProgramMethod *m = m_model->method();
    if (!m)
        return tr("No program");
    const MemoryPlan &plan = m_model->plan();
    QStringList arenas;
    for (const ArenaUsage &a : plan.arenas)
        arenas << QString((a.peakInstruction < 0 // no planned tensor lives in it
                                  ? tr("arena %1: %2 (no planned tensors)").arg(a.id).arg(bytesText(a.size))
                                  : tr("arena %1: %2 (peak %3 at instruction %4, wasted %5)")
                                        .arg(a.id)
                                        .arg(bytesText(a.size), bytesText(a.peakLiveBytes))
                                        .arg(a.peakInstruction)
                                        .arg(bytesText(a.wastedBytes)))
            + (a.device.isCpu() ? QString() : tr(" on %1").arg(toQString(deviceName(a.device)))));
    std::uint64_t methodDelegateBytes = 0; // this method's, not the whole program's
    for (const ProgramDelegate &d : m->delegates())
        methodDelegateBytes += d.blobBytes;
    QString text = tr("<b>%1</b>: %2 instructions, %3 planned tensors. %4.<br>"
                      "Peak live <b>%5</b> at instruction %6 (%7), %8 tensors live; wasted %9 of %10. "
                      "%11 tensors share memory, %12 could share but do not.<br>"
                      "Constants: %13 tensors, %14 in the program; delegate blobs of this method: %15.")
                       .arg(toQString(m->name()).toHtmlEscaped())
                       .arg(plan.instructionCount)
                       .arg(plan.tensors.size())
                       .arg(arenas.join(QStringLiteral("; ")).toHtmlEscaped())
                       .arg(bytesText(plan.peakLiveBytes))
                       .arg(plan.peakInstruction)
                       .arg(plan.peakInstruction >= 0
                               ? toQString(m->instructionLabel(std::size_t(plan.peakInstruction))).toHtmlEscaped()
                               : QString())
                       .arg(plan.liveAtPeak.size())
                       .arg(bytesText(plan.wastedBytes), bytesText(plan.plannedBytes))
                       .arg(plan.sharingTensors)
                       .arg(plan.couldShareTensors)
                       .arg(plan.constantTensors)
                       .arg(bytesText(m_model->program()->constantBytes()), bytesText(methodDelegateBytes));
    if (m->externalCount() > 0) // weights in a .ptd (FlatTensor), named by fully qualified name
        text += tr("<br>External: %1 tensors, %2 in the .ptd (named data, not in the program)")
                    .arg(m->externalCount())
                    .arg(bytesText(m->externalBytes()));
    for (const AllocatorUsage &a : m_allocations)
        text += tr("<br>ETDump %1: %2 allocations, %3 (largest %4)")
                    .arg(toQString(a.allocator).toHtmlEscaped())
                    .arg(a.count)
                    .arg(bytesText(a.totalBytes), bytesText(a.largestBytes));
    return text;
}

void MemoryView::selectValue(int value)
{
    const int row = m_model->rowOfValue(value);
    if (row >= 0)
        m_table->selectRow(
            static_cast<QSortFilterProxyModel *>(m_table->model())->mapFromSource(m_model->index(row, 0)).row());
}

} // namespace etscope
