#include "historypage.h"

#include "historychart.h"
#include "historymodel.h"
#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"
#include "treeviewutil.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace etscope {

HistoryPage::HistoryPage(QWidget *parent)
    : QWidget(parent)
    , m_model(new HistoryModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_figures(new QLabel)
    , m_table(new QTableView)
    , m_chart(new HistoryChart)
    , m_changes(new QLabel)
    , m_split(new QSplitter(Qt::Horizontal))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_figures->setWordWrap(true);
    m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_figures);
    TreeViewUtil::setupRowTable(m_table, m_proxy, m_model);
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_chart, 1);
    m_changes->setWordWrap(true);
    m_changes->setTextInteractionFlags(Qt::TextBrowserInteraction);
    rightLayout->addWidget(m_changes);
    m_split->addWidget(m_table);
    m_split->addWidget(right);
    m_split->setStretchFactor(0, 2);
    m_split->setStretchFactor(1, 3);
    m_split->setChildrenCollapsible(false);
    layout->addWidget(m_split, 1);

    connect(
        m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex &current) {
            if (current.isValid())
                showRow(m_proxy->mapToSource(current).row());
        });
    connect(m_chart, &HistoryChart::recordingClicked, this, [this](std::size_t recording) {
        if (const History *h = m_model->historyOf(m_row); h && recording < h->recordings.size())
            Q_EMIT openRequested(toQString(h->recordings[recording].file));
    });
    connect(m_chart, &HistoryChart::changeClicked, this, [this](std::size_t change) {
        if (const History *h = m_model->historyOf(m_row))
            requestCompare(*h, change);
    });
    connect(m_changes, &QLabel::linkActivated, this, [this](const QString &link) {
        if (const History *h = m_model->historyOf(m_row))
            requestCompare(*h, link.toULongLong());
    });
    setMessage(tr("Analysis ▸ History… reads many recordings of one program (a folder, files, and optionally a "
                  "labels CSV giving each one's label and order) and finds when each operator got slower."));
}

void HistoryPage::setMessage(const QString &text)
{
    m_model->setHistories({});
    m_chart->setSeries(nullptr, 0);
    m_changes->clear();
    m_row = -1;
    m_figures->setText(text.toHtmlEscaped());
}

void HistoryPage::setHistories(std::vector<std::shared_ptr<const History>> histories)
{
    m_model->setHistories(std::move(histories));
    m_row = -1;
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the series in program order
    m_table->resizeColumnsToContents();
    // The table wide enough for its numbers, the chart the rest (the table's hint alone is narrow).
    const int width = std::max(m_split->width(), 800);
    m_split->setSizes({ width / 2, width / 2 });
    const auto &hs = m_model->histories();
    if (hs.empty() || !hs.front()) {
        setMessage(tr("No history."));
        return;
    }
    const History &h = *hs.front();
    std::size_t changes = 0;
    QStringList by;
    for (const auto &x : hs) {
        changes += x->changes.size();
        by << tr("%1 (%2)").arg(QString::fromLatin1(historyByName(x->by))).arg(x->series.size());
    }
    QStringList lines;
    lines << tr("<b>%1 recordings</b>, %2 program%3; series by %4; <b>%5 change point%6</b>")
                 .arg(h.recordings.size())
                 .arg(h.groups.size())
                 .arg(h.groups.size() == 1 ? QString() : QStringLiteral("s"))
                 .arg(by.join(QStringLiteral(", ")))
                 .arg(changes)
                 .arg(changes == 1 ? QString() : QStringLiteral("s"));
    lines.back() += tr(" (E-divisive means, permutation test: α = %1, %2 permutations, at least %3 recordings a "
                       "side). Click a point to open that recording, a change to compare the recordings on "
                       "either side.")
                        .arg(formatSignificant(h.options.alpha))
                        .arg(h.options.permutations)
                        .arg(h.options.minSegment);
    if (h.groups.size() > 1)
        lines << QStringLiteral("<span style='color:#cf222e'>%1</span>")
                     .arg(tr("The recordings are of %1 different programs: each program has its own series "
                             "([program N] …), never mixed.")
                              .arg(h.groups.size()));
    for (const std::string &w : h.warnings)
        lines << QStringLiteral("<span style='color:#9a6700'>%1</span>").arg(toQString(w).toHtmlEscaped());
    for (const std::string &e : h.errors)
        lines << QStringLiteral("<span style='color:#cf222e'>%1</span>").arg(toQString(e).toHtmlEscaped());
    m_figures->setText(lines.join(QStringLiteral("<br>")));
    // The first series with the largest change, else the first row.
    int first = m_model->rowCount() ? 0 : -1;
    double largest = 0;
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (const HistoryChange *c = m_model->largestChangeOf(r); c && std::abs(c->changePercent) > largest) {
            largest = std::abs(c->changePercent);
            first = r;
        }
    selectRow(first);
}

void HistoryPage::selectRow(int row)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->index(row, 0));
    if (index.isValid()) {
        m_table->setCurrentIndex(index);
        m_table->scrollTo(index);
    }
    showRow(row);
}

void HistoryPage::showRow(int row)
{
    if (row == m_row)
        return;
    m_row = row;
    const auto *r = m_model->rowAt(row);
    if (!r) {
        m_chart->setSeries(nullptr, 0);
        m_changes->clear();
        return;
    }
    m_chart->setSeries(m_model->histories()[r->history], r->series);
    const History &h = *m_model->histories()[r->history];
    QStringList lines;
    for (std::size_t c : r->changes)
        lines << QStringLiteral("%1 — <a href=\"%2\">compare %3 with %4</a>")
                     .arg(HistoryModel::changeText(h, h.changes[c]).toHtmlEscaped())
                     .arg(c)
                     .arg(toQString(h.recordings[h.changes[c].recordingBefore].label).toHtmlEscaped(),
                         toQString(h.recordings[h.changes[c].recordingAfter].label).toHtmlEscaped());
    m_changes->setText(
        lines.isEmpty() ? tr("No significant change in this series.") : lines.join(QStringLiteral("<br>")));
}

void HistoryPage::requestCompare(const History &h, std::size_t change)
{
    if (change >= h.changes.size())
        return;
    const HistoryChange &c = h.changes[change];
    Q_EMIT compareRequested(
        toQString(h.recordings[c.recordingBefore].file), toQString(h.recordings[c.recordingAfter].file));
}

QString HistoryPage::figuresText() const
{
    return m_figures->text();
}

QString HistoryPage::changesText() const
{
    return m_changes->text();
}

} // namespace etscope
