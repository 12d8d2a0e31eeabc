#include "tensorinspectorwidget.h"
#include "qtstrings.h"

#include <QAbstractScrollArea>
#include <QBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace etscope::gapui {

namespace {

TensorPairStats::Stats statsOf(std::int64_t n, const auto &get)
{
    TensorPairStats::Stats s;
    if (n == 0)
        return s;
    s.min = s.max = get(0);
    double sum = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = get(i);
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
        sum += v;
    }
    s.mean = sum / double(n);
    double sq = 0;
    for (std::int64_t i = 0; i < n; ++i)
        sq += (get(i) - s.mean) * (get(i) - s.mean);
    s.stddev = n > 1 ? std::sqrt(sq / double(n - 1)) : 0.0; // torch.std: unbiased
    return s;
}

QString shapeText(const analysis::NumTensor &t)
{
    QStringList dims;
    for (auto d : t.sizes)
        dims << QString::number(d);
    return QStringLiteral("%1[%2]").arg(
        toQString(std::string(scalarTypeName(t.dtype))), dims.join(QStringLiteral(", ")));
}

} // namespace

TensorPairStats computePairStats(
    const analysis::NumTensor &ref, const analysis::NumTensor &run, int bins, int worstCount)
{
    TensorPairStats st;
    if (ref.sizes != run.sizes) {
        st.message = QStringLiteral("shapes differ: %1 vs %2").arg(shapeText(ref), shapeText(run));
        return st;
    }
    st.comparable = true;
    const std::int64_t n = ref.numel;
    st.reference = statsOf(n, [&](std::int64_t i) { return ref.at(i); });
    st.runtime = statsOf(n, [&](std::int64_t i) { return run.at(i); });
    st.difference = statsOf(n, [&](std::int64_t i) { return run.at(i) - ref.at(i); });

    std::vector<double> logs;
    for (std::int64_t i = 0; i < n; ++i) {
        const double d = std::abs(run.at(i) - ref.at(i));
        if (d == 0)
            ++st.exactZeros;
        else if (std::isfinite(d))
            logs.push_back(std::log10(d));
    }
    st.histogram.assign(std::size_t(bins), 0);
    if (!logs.empty()) {
        st.histLo = *std::min_element(logs.begin(), logs.end());
        st.histHi = *std::max_element(logs.begin(), logs.end());
        const double w = std::max(1e-12, st.histHi - st.histLo);
        for (double l : logs)
            ++st.histogram[std::size_t(std::min(bins - 1, int((l - st.histLo) / w * bins)))];
    }

    std::vector<std::int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    const std::size_t k = std::min<std::size_t>(std::size_t(worstCount), order.size());
    auto absDiff = [&](std::int64_t i) {
        const double d = std::abs(run.at(i) - ref.at(i));
        return std::isnan(d) ? std::numeric_limits<double>::infinity() : d;
    };
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(k), order.end(),
        [&](std::int64_t a, std::int64_t b) { return absDiff(a) > absDiff(b); });
    for (std::size_t j = 0; j < k; ++j) {
        TensorPairStats::Worst w;
        std::int64_t flat = order[j];
        w.index.assign(ref.sizes.size(), 0);
        for (std::size_t d = ref.sizes.size(); d-- > 0;) {
            w.index[d] = flat % ref.sizes[d];
            flat /= ref.sizes[d];
        }
        w.reference = ref.at(order[j]);
        w.runtime = run.at(order[j]);
        w.absDiff = std::abs(w.runtime - w.reference);
        st.worst.push_back(std::move(w));
    }
    return st;
}

class TensorInspectorWidget::Histogram : public QWidget
{
public:
    explicit Histogram(QWidget *parent)
        : QWidget(parent)
    {
        setMinimumHeight(90);
    }
    const TensorPairStats *stats = nullptr;

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().base());
        p.setPen(palette().text().color());
        if (!stats || !stats->comparable) {
            p.drawText(rect(), Qt::AlignCenter, tr("no histogram"));
            return;
        }
        const auto &h = stats->histogram;
        const int top = 18, bottom = height() - 20;
        const int maxCount = std::max(1, *std::max_element(h.begin(), h.end()));
        const double bw = double(width() - 20) / double(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) {
            const int bh = int(double(bottom - top) * h[i] / maxCount);
            p.fillRect(QRectF(10 + bw * double(i), bottom - bh, bw - 1, bh), QColor(49, 130, 189));
        }
        p.drawText(QRect(10, 0, width() - 20, top), Qt::AlignLeft,
            tr("|runtime − reference|, log10 bins (%1 exact)").arg(stats->exactZeros));
        p.drawText(QRect(10, bottom + 2, width() - 20, 18), Qt::AlignLeft,
            QStringLiteral("1e%1").arg(stats->histLo, 0, 'f', 1));
        p.drawText(QRect(10, bottom + 2, width() - 20, 18), Qt::AlignRight,
            QStringLiteral("1e%1").arg(stats->histHi, 0, 'f', 1));
    }
};

TensorInspectorWidget::TensorInspectorWidget(QWidget *parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_statsTable(new QTableWidget(3, 4, this))
    , m_hist(new Histogram(this))
    , m_worstTable(new QTableWidget(0, 4, this))
{
    auto *lay = new QVBoxLayout(this);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_header->setWordWrap(true);
    lay->addWidget(m_header);
    m_statsTable->setHorizontalHeaderLabels({ tr("min"), tr("max"), tr("mean"), tr("std") });
    m_statsTable->setVerticalHeaderLabels({ tr("reference"), tr("runtime"), tr("difference") });
    m_statsTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Columns as wide as their numbers (never "-0.…"); the table scrolls when the dock is narrow.
    m_statsTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_statsTable->horizontalHeader()->setStretchLastSection(true);
    // Exactly its header and three rows: never a scroll bar for three numbers a column.
    m_statsTable->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_statsTable->verticalHeader()->setDefaultSectionSize(m_statsTable->fontMetrics().height() + 8);
    m_statsTable->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_worstTable->setHorizontalHeaderLabels({ tr("index"), tr("reference"), tr("runtime"), tr("|diff|") });
    m_worstTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_worstTable->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_worstTable->horizontalHeader()->setStretchLastSection(true);
    m_worstTable->setMinimumHeight(80);
    // Statistics, histogram and worst elements side by side in a wide, short dock (stacked they
    // need 350 px and showed a 150 px dock only the statistics), stacked otherwise.
    m_body = new QBoxLayout(QBoxLayout::TopToBottom);
    m_body->addWidget(m_statsTable);
    m_body->addWidget(m_hist);
    m_body->addWidget(m_worstTable, 1);
    lay->addLayout(m_body, 1);
    fitStatsTable();
}

QWidget *TensorInspectorWidget::histogram() const
{
    return m_hist;
}

bool TensorInspectorWidget::sideBySide() const
{
    return m_body->direction() == QBoxLayout::LeftToRight;
}

void TensorInspectorWidget::fitStatsTable()
{
    const int h = m_statsTable->horizontalHeader()->sizeHint().height()
        + 3 * m_statsTable->verticalHeader()->defaultSectionSize() + 2 * m_statsTable->frameWidth()
        + m_statsTable->horizontalScrollBar()->sizeHint().height(); // room for it when narrow
    m_statsTable->setFixedHeight(h);
}

void TensorInspectorWidget::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    // Inside a scroll area the widget is at least its minimum size: the room is the viewport's.
    QSize room = size();
    for (QWidget *p = parentWidget(); p; p = p->parentWidget())
        if (auto *area = qobject_cast<QAbstractScrollArea *>(p)) {
            room = area->viewport()->size();
            break;
        }
    const bool side = room.width() >= 600 && room.height() < kStackedHeight;
    if (side != sideBySide()) {
        m_body->setDirection(side ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
        m_body->setStretch(0, side ? 3 : 0);
        m_body->setStretch(1, side ? 2 : 0);
        m_body->setStretch(2, side ? 3 : 1);
        m_body->setAlignment(m_statsTable, side ? Qt::AlignTop : Qt::Alignment());
    }
}

void TensorInspectorWidget::setRow(const analysis::GapRow &row, int output)
{
    const auto &ref = row.reference.items;
    const auto &run = row.runtime.items;
    m_stats = {};
    if (output >= 0 && std::size_t(output) < ref.size() && std::size_t(output) < run.size())
        m_stats = computePairStats(ref[std::size_t(output)], run[std::size_t(output)]);
    else
        m_stats.message = tr("no tensor pair at output %1").arg(output);
    QString head = QStringLiteral("<b>%1</b> (instruction %2), output %3")
                       .arg(toQString(row.runtimeOps.empty() ? std::string() : row.runtimeOps.back()).toHtmlEscaped())
                       .arg(row.instructionId)
                       .arg(output);
    if (m_stats.comparable)
        head += QStringLiteral(": %1").arg(shapeText(ref[std::size_t(output)]));
    else
        head += QStringLiteral(": %1").arg(m_stats.message.toHtmlEscaped());
    m_header->setText(head);
    const TensorPairStats::Stats *rows[] = { &m_stats.reference, &m_stats.runtime, &m_stats.difference };
    for (int r = 0; r < 3; ++r) {
        const double vals[] = { rows[r]->min, rows[r]->max, rows[r]->mean, rows[r]->stddev };
        for (int c = 0; c < 4; ++c) {
            auto *item = new QTableWidgetItem(m_stats.comparable ? QString::number(vals[c], 'g', 6) : QString());
            if (m_stats.comparable)
                item->setToolTip(QString::number(vals[c], 'g', 17));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_statsTable->setItem(r, c, item);
        }
    }
    m_worstTable->setRowCount(int(m_stats.worst.size()));
    for (int i = 0; i < int(m_stats.worst.size()); ++i) {
        const auto &w = m_stats.worst[std::size_t(i)];
        QStringList idx;
        for (auto x : w.index)
            idx << QString::number(x);
        m_worstTable->setItem(i, 0, new QTableWidgetItem(QStringLiteral("[%1]").arg(idx.join(QStringLiteral(", ")))));
        m_worstTable->setItem(i, 1, new QTableWidgetItem(QString::number(w.reference, 'g', 8)));
        m_worstTable->setItem(i, 2, new QTableWidgetItem(QString::number(w.runtime, 'g', 8)));
        m_worstTable->setItem(i, 3, new QTableWidgetItem(QString::number(w.absDiff, 'g', 6)));
    }
    m_hist->stats = &m_stats;
    m_hist->update();
    fitStatsTable();
}

} // namespace etscope::gapui
