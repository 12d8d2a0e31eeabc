#include "compareview.h"
#include "common/pathnames.h"
#include "filedialogs.h"

#include "analysis/latencydiffformat.h"
#include "diffcharts.h"
#include "difftreemodel.h"
#include "modelroles.h"
#include "qtstrings.h"
#include "savefile.h"
#include "treeviewutil.h"
#include "widgetexport.h"

#include <QCheckBox>
#include <QEvent>
#include <QFileDialog>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <iterator>

namespace etscope {

CompareView::CompareView(QWidget *parent)
    : QWidget(parent)
{
    m_model = new DiffTreeModel(this);
    m_proxy = new DiffFilterProxy(this);
    m_proxy->setSourceModel(m_model);

    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter rows (name, op type, backend, module)…"));
    m_filter->setClearButtonEnabled(true);
    m_changedOnly = new QCheckBox(tr("Changed only"), this);
    auto *exportTable = new QToolButton(this);
    exportTable->setText(tr("Export table…"));
    auto *exportChart = new QToolButton(this);
    exportChart->setText(tr("Export chart"));
    exportChart->setPopupMode(QToolButton::InstantPopup);
    auto *chartMenu = new QMenu(exportChart);
    exportChart->setMenu(chartMenu);

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner = new QLabel(this);
    m_banner->setObjectName(QStringLiteral("compareBanner"));
    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::RichText);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_banner->setStyleSheet(QStringLiteral(
        "QLabel#compareBanner { background: #fff3cd; color: #4d3b00; border: 1px solid #d9b44a; padding: 4px 8px; }"));
    m_banner->hide();

    m_tree = new QTreeView(this);
    m_tree->setModel(m_proxy);
    m_tree->setSortingEnabled(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setAlternatingRowColors(false);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->header()->setStretchLastSection(false);
    TreeViewUtil::addCopyAndColumnActions(m_tree, DiffTreeModel::Event, DiffTreeModel::Event);
    m_tree->viewport()->installEventFilter(this);
    connect(m_tree->header(), &QHeaderView::sectionResized, this, [this](int logical, int, int) {
        // A drag on the header (not a model reset or our own fitting) keeps the user's width.
        if (logical == DiffTreeModel::Event && !m_fittingColumns && QGuiApplication::mouseButtons() != Qt::NoButton)
            m_eventColumnSizedByUser = true;
    });

    m_waterfall = new DiffWaterfallChart(this);
    m_histogram = new DiffHistogramWidget(this);
    m_timelines = new DualTimelineWidget(this);
    m_details = new QPlainTextEdit(this);
    m_details->setReadOnly(true);
    m_details->setPlaceholderText(tr("Select a row: its events, stack trace and module in A and B."));

    auto *top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(m_changedOnly);
    top->addWidget(exportTable);
    top->addWidget(exportChart);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(top);
    leftLayout->addWidget(m_summary);
    leftLayout->addWidget(m_tree, 1);

    m_tabs = new QTabWidget(this);
    m_tabs->addTab(m_histogram, tr("A/B histogram"));
    m_tabs->addTab(m_details, tr("Details"));
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_waterfall);
    right->addWidget(m_tabs);
    right->setSizes({ 520, 480 });
    m_right = right;

    auto *upper = new QSplitter(Qt::Horizontal, this);
    upper->addWidget(left);
    upper->addWidget(right);
    upper->setSizes({ 1000, 600 });
    upper->setStretchFactor(0, 5);
    upper->setStretchFactor(1, 3);
    m_upper = upper;
    auto *main = new QSplitter(Qt::Vertical, this);
    main->addWidget(upper);
    main->addWidget(m_timelines);
    main->setSizes({ 800, 200 });
    m_main = main;
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_banner);
    layout->addWidget(main, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &t) {
        m_proxy->setFilterText(t);
        m_tree->expandAll();
    });
    connect(m_changedOnly, &QCheckBox::toggled, this, [this](bool on) {
        m_proxy->setChangedOnly(on);
        m_tree->expandAll();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &CompareView::onCurrentChanged);
    connect(m_waterfall, &DiffWaterfallChart::rowClicked, this, [this](int row) {
        m_selectingFromChart = true; // stay on the waterfall's tab
        selectRow(row);
        m_selectingFromChart = false;
    });
    connect(exportTable, &QToolButton::clicked, this, &CompareView::exportTableInteractive);
    connect(chartMenu->addAction(tr("Waterfall…")), &QAction::triggered, this,
        [this] { exportChartInteractive(m_waterfall, QStringLiteral("waterfall")); });
    connect(chartMenu->addAction(tr("A/B histogram…")), &QAction::triggered, this,
        [this] { exportChartInteractive(m_histogram, QStringLiteral("ab-histogram")); });
    connect(chartMenu->addAction(tr("Timelines…")), &QAction::triggered, this,
        [this] { exportChartInteractive(m_timelines, QStringLiteral("ab-timelines")); });
}

void CompareView::setScopeParts(std::vector<ScopeDiffPart> parts, std::vector<std::string> notes)
{
    m_parts = std::move(parts);
    m_partNotes = std::move(notes);
}

void CompareView::setComparison(
    std::shared_ptr<const Session> a, std::shared_ptr<const Session> b, std::shared_ptr<const LatencyDiff> diff)
{
    m_a = std::move(a);
    m_b = std::move(b);
    m_diff = std::move(diff);
    m_selected = -1;
    m_model->setDiff(m_diff);
    m_tree->sortByColumn(-1, Qt::AscendingOrder); // keep the ranked order until the user sorts
    m_tree->expandAll();
    arrangeColumns();
    m_waterfall->setDiff(m_diff);
    m_histogram->setRow(nullptr, {});
    m_timelines->setSessions(m_a, m_b);
    m_details->clear();
    if (!m_diff) {
        m_summary->clear();
        m_banner->clear();
        m_banner->hide();
        return;
    }
    // A and B by the shortest part of their paths that tells them apart (both are usually
    // etdump.etdp); the full paths in the tooltip.
    const std::vector<std::string> names
        = distinguishingNames({ m_a ? m_a->inputs.etdump : std::string(), m_b ? m_b->inputs.etdump : std::string() });
    m_summary->setToolTip(
        QStringLiteral("A: %1\nB: %2")
            .arg(m_a ? toQString(m_a->inputs.etdump) : QString(), m_b ? toQString(m_b->inputs.etdump) : QString()));
    // With runs of several methods or phases, one operator total per method and phase: a sum
    // over prefill and decode would mean nothing.
    QString totals;
    const QString unit = toQString(timeScaleName(m_diff->unit));
    if (m_parts.size() > 1 || (m_parts.size() == 1 && !m_parts.front().label.empty())) {
        QStringList each;
        for (const ScopeDiffPart &p : m_parts)
            each << (p.runsA && p.runsB
                    ? tr("%1 %2 → %3 %4")
                          .arg(toQString(p.label).toHtmlEscaped(), QString::number(p.total.a, 'g', 5),
                              QString::number(p.total.b, 'g', 5), unit)
                    : tr("%1 only in %2")
                          .arg(
                              toQString(p.label).toHtmlEscaped(), p.runsA ? QStringLiteral("A") : QStringLiteral("B")));
        totals = tr("operator totals: %1").arg(each.join(QStringLiteral("; ")));
    } else {
        totals = tr("operator total %1 → %2 %3")
                     .arg(QString::number(m_diff->total.a, 'g', 5), QString::number(m_diff->total.b, 'g', 5), unit);
    }
    QString text
        = tr("<b>A</b> %1 &nbsp; <b>B</b> %2 &nbsp; — %3 slower, %4 faster, %5 unchanged, %6 only in A, %7 only in B; "
             "%8")
              .arg(toQString(names[0]).toHtmlEscaped(), toQString(names[1]).toHtmlEscaped())
              .arg(m_diff->count(Verdict::Slower))
              .arg(m_diff->count(Verdict::Faster))
              .arg(m_diff->count(Verdict::Unchanged))
              .arg(m_diff->count(Verdict::OnlyA))
              .arg(m_diff->count(Verdict::OnlyB))
              .arg(totals);
    m_summary->setText(text);

    // The pairing of different programs and the limits of the verdicts stay in sight (issue 28).
    // One line for the pairing and why, one for the caveats; the consequence in the tooltip.
    QStringList lines;
    if (!m_diff->banner.empty()) {
        QString line = QStringLiteral("<b>%1</b>").arg(toQString(m_diff->banner).toHtmlEscaped());
        if (!m_diff->identity.reason.empty())
            line += QStringLiteral(" — ") + toQString(m_diff->identity.reason).toHtmlEscaped();
        lines << line;
    }
    for (const std::string &n : m_partNotes)
        lines << toQString(n).toHtmlEscaped();
    QStringList caveats;
    for (const std::string &c : m_diff->caveats)
        caveats << toQString(c).toHtmlEscaped();
    if (!caveats.isEmpty())
        lines << caveats.join(QStringLiteral(" · "));
    m_banner->setToolTip(m_diff->comparable()
            ? QString()
            : tr("A and B ran different programs: a verdict compares operators of unrelated programs, a hint "
                 "rather than a regression (etscope-cli diff --fail-if-slower refuses to gate them)."));
    m_banner->setText(lines.join(QStringLiteral("<br>")));
    m_banner->setVisible(!lines.isEmpty());
}

void CompareView::arrangeColumns()
{
    // Verdict, ratio, Δ and CI next to the name, so that at 1280 px they show without scrolling;
    // the medians, p and backend follow.
    QHeaderView *h = m_tree->header();
    const int order[] = { DiffTreeModel::Event, DiffTreeModel::Instruction, DiffTreeModel::Verdict,
        DiffTreeModel::Ratio, DiffTreeModel::Delta, DiffTreeModel::CI, DiffTreeModel::A, DiffTreeModel::B,
        DiffTreeModel::PValue, DiffTreeModel::Backend };
    for (int visual = 0; visual < int(std::size(order)); ++visual)
        h->moveSection(h->visualIndex(order[visual]), visual);
    for (int c = 1; c < DiffTreeModel::ColumnCount; ++c)
        m_tree->resizeColumnToContents(c);
    m_eventColumnSizedByUser = false;
    fitEventColumn();
}

void CompareView::fitEventColumn()
{
    // The name takes what the columns up to the CI leave (and up to B's median when that still
    // leaves it 260 px), within [180, 340] px, until the user sizes it.
    if (m_eventColumnSizedByUser)
        return;
    const QHeaderView *h = m_tree->header();
    auto widthOf = [h](std::initializer_list<int> columns) {
        int w = 0;
        for (int c : columns)
            w += h->isSectionHidden(c) ? 0 : h->sectionSize(c);
        return w;
    };
    const int essential = widthOf({ DiffTreeModel::Instruction, DiffTreeModel::Verdict, DiffTreeModel::Ratio,
        DiffTreeModel::Delta, DiffTreeModel::CI });
    const int medians = widthOf({ DiffTreeModel::A, DiffTreeModel::B });
    const int room = m_tree->viewport()->width() - 2;
    const int width = room - essential - medians >= 260 ? room - essential - medians : room - essential;
    m_fittingColumns = true;
    m_tree->header()->resizeSection(DiffTreeModel::Event, std::clamp(width, 180, 340));
    m_fittingColumns = false;
}

void CompareView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    if (isVisible())
        sizeSplitOnce();
    // Short (a 1280×720 window's bottom dock): waterfall, histogram, timelines and details share
    // one tab widget, so each chart gets the full height instead of a sliver each.
    setCompact(height() < kCompactBelow);
}

void CompareView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    sizeSplitOnce();
}

void CompareView::sizeSplitOnce()
{
    // The table gets 5/8 of the width the first time the view is shown with one (setSizes before
    // the first layout only holds for the size hints); then the stretch factors keep the ratio.
    if (m_splitSized || width() < 200)
        return;
    m_splitSized = true;
    m_upper->setSizes({ width() * 5 / 8, width() - width() * 5 / 8 });
}

void CompareView::setCompact(bool compact)
{
    if (compact == m_compact)
        return;
    m_compact = compact;
    QWidget *shown = m_tabs->currentWidget();
    if (compact) {
        m_tabs->insertTab(0, m_waterfall, tr("Waterfall"));
        m_tabs->insertTab(2, m_timelines, tr("Timelines"));
        m_tabs->setCurrentWidget(m_selected >= 0 ? shown : m_waterfall); // the overview until a row is chosen
    } else {
        m_tabs->removeTab(m_tabs->indexOf(m_waterfall));
        m_tabs->removeTab(m_tabs->indexOf(m_timelines));
        m_right->insertWidget(0, m_waterfall);
        m_main->addWidget(m_timelines);
        m_waterfall->show();
        m_timelines->show();
        m_right->setSizes({ 520, 480 });
        m_main->setSizes({ 800, 200 });
        if (shown == m_waterfall || shown == m_timelines)
            m_tabs->setCurrentWidget(m_histogram);
    }
}

bool CompareView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_tree->viewport() && event->type() == QEvent::Resize)
        fitEventColumn();
    return QWidget::eventFilter(watched, event);
}

bool CompareView::selectRow(int diffRow)
{
    const QModelIndex src = m_model->indexOfRow(diffRow);
    const QModelIndex idx = m_proxy->mapFromSource(src);
    if (!idx.isValid())
        return false;
    m_tree->setCurrentIndex(idx);
    m_tree->scrollTo(idx);
    return true;
}

QString CompareView::describeSide(
    const char *label, const std::shared_ptr<const Session> &s, const DiffSide &side) const
{
    QString out = QStringLiteral("%1: ").arg(QLatin1String(label));
    if (side.events.empty() || !s)
        return out + tr("(not in this recording)\n\n");
    out += toQString(side.label) + QLatin1Char('\n');
    if (side.perf)
        out += tr("  p10 %1  p50 %2  p90 %3  avg %4 over %5 runs\n")
                   .arg(side.perf->p10, 0, 'g', 6)
                   .arg(side.perf->p50, 0, 'g', 6)
                   .arg(side.perf->p90, 0, 'g', 6)
                   .arg(side.perf->avg, 0, 'g', 6)
                   .arg(side.perf->raw.size());
    for (const EventPos &p : side.events) {
        const Event &e = s->blocks[p.block].events[p.event];
        out += tr("  • %1 (instruction %2)").arg(toQString(e.name)).arg(e.instructionId);
        if (e.delegateBackendName())
            out += QStringLiteral(" [%1]").arg(toQString(*e.delegateBackendName()));
        out += QLatin1Char('\n');
        for (const LinkedNode &n : e.linkedNodes()) {
            out += QStringLiteral("    node %1\n").arg(toQString(n.nodeName));
            if (n.moduleStack && !n.moduleStack->empty()) {
                QStringList mods;
                for (const ModuleFrame &f : *n.moduleStack)
                    mods << toQString(f.path) + QStringLiteral(" (") + toQString(f.type) + QLatin1Char(')');
                out += QStringLiteral("    module: ") + mods.join(QStringLiteral(" › ")) + QLatin1Char('\n');
            }
            if (n.stackTrace)
                out += QStringLiteral("    stack trace:\n") + toQString(*n.stackTrace) + QLatin1Char('\n');
        }
    }
    return out + QLatin1Char('\n');
}

void CompareView::onCurrentChanged()
{
    const QModelIndex idx = m_tree->currentIndex();
    const int row = idx.isValid() ? idx.data(DiffTreeModel::DiffRowRole).toInt() : -1;
    if (!m_diff || row < 0 || size_t(row) >= m_diff->rows.size()) {
        m_selected = -1;
        return;
    }
    m_selected = row;
    if (m_compact && !m_selectingFromChart && m_tabs->currentWidget() == m_waterfall)
        m_tabs->setCurrentWidget(m_histogram); // the chosen row's distributions
    const DiffRow &r = m_diff->rows[size_t(row)];
    m_histogram->setRow(&r, toQString(timeScaleName(m_diff->unit)));
    m_timelines->highlight(r.a.events, r.b.events);
    QString text = tr("%1 — verdict %2%3, paired by %4\n")
                       .arg(toQString(r.eventName), QString::fromLatin1(verdictName(r.verdict)),
                           r.ratioOnly ? tr(" (ratio only: fewer than 5 runs)") : QString(),
                           QString::fromLatin1(pairingName(m_diff->pairing)));
    if (r.pValue)
        text += tr("Mann–Whitney p = %1%2; 95% bootstrap CI of Δ median [%3, %4]\n")
                    .arg(*r.pValue, 0, 'g', 3)
                    .arg(r.exactTest ? tr(" (exact)") : tr(" (normal approximation)"))
                    .arg(r.ci->low, 0, 'g', 4)
                    .arg(r.ci->high, 0, 'g', 4);
    text += QLatin1Char('\n') + describeSide("A", m_a, r.a) + describeSide("B", m_b, r.b);
    m_details->setPlainText(text);
    const auto first = [](const DiffSide &s) {
        return s.events.empty() ? std::pair<int, int>(-1, -1)
                                : std::pair<int, int>(int(s.events.front().block), int(s.events.front().event));
    };
    const auto [ba, ea] = first(r.a);
    const auto [bb, eb] = first(r.b);
    Q_EMIT rowSelected(row, ba, ea, bb, eb);
}

QString CompareView::exportTable(const QString &path) const
{
    if (!m_diff)
        return tr("%1: nothing to export (no comparison)").arg(path);
    const std::string text
        = formatDiffDelimited(*m_diff, path.endsWith(QStringLiteral(".csv"), Qt::CaseInsensitive) ? ',' : '\t');
    return saveFile(path, text);
}

void CompareView::exportTableInteractive()
{
    const QString path
        = askSaveFileName(this, tr("Export comparison"), QStringLiteral("diff.tsv"), tr("TSV (*.tsv);;CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const QString err = exportTable(path); !err.isEmpty())
        Q_EMIT actionFailed(tr("Export comparison: %1").arg(err));
}

void CompareView::exportChartInteractive(QWidget *chart, const QString &name)
{
    const auto target = askImageExport(this, tr("Export chart"), name + QStringLiteral(".png"));
    if (!target)
        return;
    if (const QString err = exportChartImage(chart, target->path, target->size, name); !err.isEmpty())
        Q_EMIT actionFailed(tr("Export chart: %1").arg(err));
}

} // namespace etscope
