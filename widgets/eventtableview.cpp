#include "eventtableview.h"

#include "costbardelegate.h"
#include "eventfilterproxy.h"
#include "eventtreemodel.h"
#include "modelroles.h"
#include "treeviewutil.h"

#include "events/inspectortable.h"
#include "savefile.h"

#include <QAction>
#include <QApplication>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace etscope {

namespace {
// The name, then in grey what tells rows of that name apart (NameDetailRole: "#3",
// "#3 convolution" for an OPERATOR_CALL), when the column has room for both; sorted
// OPERATOR_CALL rows no longer read the same. The detail is painted only: copies, filters
// and exports keep the Inspector's names.
class NameDetailDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const QString detail = index.data(NameDetailRole).toString();
        if (detail.isEmpty())
            return;
        QStyleOptionViewItem opt(option);
        initStyleOption(&opt, index);
        const QWidget *widget = option.widget;
        QStyle *style = widget ? widget->style() : QApplication::style();
        const QRect text = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
        const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
        const int used = opt.fontMetrics.horizontalAdvance(opt.text) + margin;
        const int room = text.width() - used - 2 * margin - 8;
        // At least the instruction ("#3 …"); the tooltip has the rest.
        if (room < opt.fontMetrics.horizontalAdvance(detail.section(QLatin1Char(' '), 0, 0) + QStringLiteral(" …")))
            return;
        QColor ink = (opt.state & QStyle::State_Selected) ? opt.palette.color(QPalette::HighlightedText)
                                                          : opt.palette.color(QPalette::Text);
        ink.setAlphaF(0.5);
        painter->save();
        painter->setFont(opt.font);
        painter->setPen(ink);
        painter->drawText(text.adjusted(used + 8, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
            opt.fontMetrics.elidedText(detail, Qt::ElideRight, room));
        painter->restore();
    }
};
} // namespace

EventTableView::EventTableView(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    auto *filterRow = new QHBoxLayout;
    m_filter = new QLineEdit(this);
    m_filter->setPlaceholderText(tr("Filter events by name, op type or module (Ctrl+F)"));
    m_filter->setClearButtonEnabled(true);
    m_filter->installEventFilter(this);
    m_regexButton = new QToolButton(this);
    m_regexButton->setText(QStringLiteral(".*"));
    m_regexButton->setCheckable(true);
    m_regexButton->setToolTip(tr("Treat the filter as a regular expression"));
    filterRow->addWidget(m_filter, 1);
    filterRow->addWidget(m_regexButton);
    layout->addLayout(filterRow);

    m_model = new EventTreeModel(this);
    m_proxy = new EventFilterProxy(this);
    m_proxy->setSourceModel(m_model);
    m_tree = new QTreeView(this);
    m_tree->setModel(m_proxy);
    TreeViewUtil::setupResultsTree(m_tree);
    m_tree->setItemDelegateForColumn(EventTreeModel::AvgColumn, new CostBarDelegate(m_tree));
    m_tree->setItemDelegateForColumn(EventTreeModel::NameColumn, new NameDetailDelegate(m_tree));
    layout->addWidget(m_tree, 1);

    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(300);
    connect(m_filterTimer, &QTimer::timeout, this, &EventTableView::applyFilter);
    connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_regexButton, &QToolButton::toggled, this, &EventTableView::applyFilter);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
        [this](const QModelIndex &current) { emitCurrent(current); });

    m_delegatedOnly = new QAction(tr("Delegated only"), this);
    m_hideFramework = new QAction(tr("Hide framework"), this);
    m_hideOperatorCalls = new QAction(tr("Hide OPERATOR_CALL"), this);
    for (QAction *a : { m_delegatedOnly, m_hideFramework, m_hideOperatorCalls }) {
        a->setCheckable(true);
        connect(a, &QAction::toggled, this, &EventTableView::applyFilter);
    }
    m_delegatedOnly->setToolTip(tr("Show only events logged by a delegate backend"));
    m_hideFramework->setToolTip(tr("Hide Method::init, Program::load_method and Method::execute"));
    m_hideOperatorCalls->setToolTip(tr("Hide OPERATOR_CALL rows (kernel + dispatch), as the Inspector's table does"));

    auto *clearFilter = new QAction(tr("Clear Filter"), m_filter);
    clearFilter->setShortcut(QKeySequence(Qt::Key_Escape));
    clearFilter->setShortcutContext(Qt::WidgetShortcut);
    connect(clearFilter, &QAction::triggered, this, [this] {
        m_filter->clear();
        applyFilter();
    });
    m_filter->addAction(clearFilter);

    TreeViewUtil::addCopyAndColumnActions(
        m_tree, EventTreeModel::NameColumn, EventTreeModel::NameColumn, [this](QMenu &menu, const QModelIndex &index) {
            if (!index.isValid())
                return;
            const QString name = index.siblingAtColumn(EventTreeModel::NameColumn).data().toString();
            connect(menu.addAction(tr("Filter to \"%1\"").arg(name)), &QAction::triggered, this, [this, name] {
                m_filter->setText(name);
                applyFilter();
            });
        });
}

void EventTableView::setSession(std::shared_ptr<const Session> session)
{
    // Keep the selection across unit changes of the same file.
    m_keep = {};
    if (m_session && session && m_session->inputs.etdump == session->inputs.etdump) {
        const QModelIndex cur = m_proxy->mapToSource(m_tree->currentIndex());
        m_keep.block = cur.data(BlockIndexRole).toInt();
        m_keep.event = cur.isValid() ? cur.data(EventIndexRole).toInt() : -1;
    }
    m_session = std::move(session);
    m_model->setSession(m_session);
    if (!m_session)
        return;
    // Expanding a million rows costs seconds; only open everything for ordinary sizes.
    if (countRecording(m_session->blocks).events <= 20000)
        m_tree->expandAll();
    else
        m_tree->expandToDepth(0);
    // Numbers are never cut: each statistic column is as wide as its widest value.
    for (int c = EventTreeModel::P10Column; c <= EventTreeModel::MaxColumn; ++c) {
        m_tree->resizeColumnToContents(c);
        m_tree->setColumnWidth(c, std::max(84, m_tree->columnWidth(c)));
    }
}

void EventTableView::selectStartEvent()
{
    if (!m_session)
        return;
    if (m_keep.block >= 0 && m_keep.event >= 0) {
        selectEvent(m_keep.block, m_keep.event);
        return;
    }
    if (const auto slowest = slowestKernel(m_session->blocks))
        selectEvent(slowest->block, slowest->event);
}

void EventTableView::selectEvent(int blockIndex, int eventIndex)
{
    QModelIndex source = m_model->indexForEvent(blockIndex, eventIndex);
    if (!source.isValid())
        return;
    QModelIndex proxyIndex = m_proxy->mapFromSource(source);
    if (!proxyIndex.isValid()) {
        // Filtered out: clear the filters rather than silently selecting nothing.
        m_filter->clear();
        for (QAction *a : { m_delegatedOnly, m_hideFramework, m_hideOperatorCalls })
            a->setChecked(false);
        applyFilter();
        proxyIndex = m_proxy->mapFromSource(source);
    }
    if (proxyIndex.isValid()) {
        m_tree->setCurrentIndex(proxyIndex);
        m_tree->scrollTo(proxyIndex);
    }
    // Also when the tree already had this index current (no currentChanged).
    emitCurrent(proxyIndex);
}

void EventTableView::selectEvents(const std::vector<EventPosition> &events)
{
    if (events.empty())
        return;
    selectEvent(events.front().block, events.front().event);
    QItemSelectionModel *selection = m_tree->selectionModel();
    for (std::size_t i = 1; i < events.size(); ++i) {
        const QModelIndex index = m_proxy->mapFromSource(m_model->indexForEvent(events[i].block, events[i].event));
        if (index.isValid())
            selection->select(index, QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
}

bool EventTableView::selectEventByName(const QString &name)
{
    if (!m_session)
        return false;
    const auto found = findEventByName(m_session->blocks, name.toStdString());
    if (found)
        selectEvent(found->block, found->event);
    return found.has_value();
}

void EventTableView::emitCurrent(const QModelIndex &proxyIndex)
{
    const QModelIndex source = m_proxy->mapToSource(proxyIndex);
    if (!source.isValid()) {
        Q_EMIT currentEventChanged(-1, -1);
        return;
    }
    const int block = source.data(BlockIndexRole).toInt();
    Q_EMIT currentEventChanged(block, m_model->eventAt(source) ? source.data(EventIndexRole).toInt() : -1);
}

void EventTableView::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

void EventTableView::setFilter(const QString &text)
{
    m_regexButton->setChecked(false);
    m_filter->setText(text);
    applyFilter();
}

void EventTableView::applyFilter()
{
    m_filterTimer->stop();
    // Re-filtering rebuilds the proxy's mapping, which collapses the view: remember what was
    // open and selected (as source indices, which survive) and put it back.
    std::vector<QPersistentModelIndex> expanded;
    std::vector<QModelIndex> stack { QModelIndex() };
    while (!stack.empty()) {
        const QModelIndex parent = stack.back();
        stack.pop_back();
        const int rows = m_proxy->rowCount(parent);
        for (int r = 0; r < rows; ++r) {
            const QModelIndex child = m_proxy->index(r, 0, parent);
            if (m_tree->isExpanded(child)) {
                expanded.emplace_back(m_proxy->mapToSource(child));
                stack.push_back(child);
            }
        }
    }
    const QPersistentModelIndex current(m_proxy->mapToSource(m_tree->currentIndex()));

    m_proxy->setDelegatedOnly(m_delegatedOnly->isChecked());
    m_proxy->setHideFramework(m_hideFramework->isChecked());
    m_proxy->setHideOperatorCalls(m_hideOperatorCalls->isChecked());
    m_proxy->setFilterText(m_filter->text(), m_regexButton->isChecked());
    m_filter->setStyleSheet(
        m_proxy->isFilterValid() ? QString() : QStringLiteral("QLineEdit { background: #fbe3e3; }"));
    m_filter->setToolTip(m_proxy->isFilterValid() ? QString() : tr("Invalid regular expression"));
    if (!m_filter->text().isEmpty() || m_delegatedOnly->isChecked()) {
        m_tree->expandAll();
    } else {
        for (const QPersistentModelIndex &source : expanded)
            if (const QModelIndex p = m_proxy->mapFromSource(source); p.isValid())
                m_tree->expand(p);
    }
    if (const QModelIndex p = m_proxy->mapFromSource(current); p.isValid()) {
        m_tree->selectionModel()->setCurrentIndex(p, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_tree->scrollTo(p);
    }
}

void EventTableView::setDefaultColumnWidths()
{
    QHeaderView *h = m_tree->header();
    h->resizeSection(EventTreeModel::NameColumn, 300);
    for (int c = EventTreeModel::P10Column; c <= EventTreeModel::MaxColumn; ++c)
        h->resizeSection(c, 84);
    h->resizeSection(EventTreeModel::OpTypesColumn, 200);
    h->resizeSection(EventTreeModel::DelegatedColumn, 72);
    h->resizeSection(EventTreeModel::BackendColumn, 110);
    h->resizeSection(EventTreeModel::DebugHandlesColumn, 100);
    h->resizeSection(EventTreeModel::ModuleColumn, 160);
    h->resizeSection(EventTreeModel::InstructionColumn, 56);
    h->resizeSection(EventTreeModel::RunsColumn, 52);
    h->resizeSection(EventTreeModel::BackendOpColumn, 180);
    // etscope's decoded backend operator reads best beside the ETRecord's op types (it is last in
    // the model so that saved header states of older versions keep their columns).
    h->moveSection(h->visualIndex(EventTreeModel::BackendOpColumn), h->visualIndex(EventTreeModel::OpTypesColumn) + 1);
    // The payload node it ran beside it.
    h->resizeSection(EventTreeModel::DelegateNodeColumn, 280);
    h->moveSection(
        h->visualIndex(EventTreeModel::DelegateNodeColumn), h->visualIndex(EventTreeModel::BackendOpColumn) + 1);
}

void EventTableView::restoreHeader(const QByteArray &state)
{
    QHeaderView *h = m_tree->header();
    if (!h->restoreState(state))
        return;
    // A state saved before the Delegate node column existed leaves it at the far end.
    const int node = h->visualIndex(EventTreeModel::DelegateNodeColumn);
    if (node == h->count() - 1 && node != h->visualIndex(EventTreeModel::BackendOpColumn) + 1) {
        h->moveSection(node, h->visualIndex(EventTreeModel::BackendOpColumn) + 1);
        h->resizeSection(EventTreeModel::DelegateNodeColumn, 280);
    }
}

bool EventTableView::exportVisibleRows(const QString &path, QString *error) const
{
    auto fail = [&](const QString &msg) {
        if (error)
            *error = msg;
        return false;
    };
    if (!m_session)
        return fail(path + tr(": nothing to export, no ETDump loaded"));
    const char sep = QFileInfo(path).suffix().compare(QStringLiteral("csv"), Qt::CaseInsensitive) == 0 ? ',' : '\t';
    // What is exported is what the table shows: with a filter on, only the rows it lets through.
    const bool filtered = !m_proxy->filterText().isEmpty() || m_proxy->delegatedOnly() || m_proxy->hideFramework()
        || m_proxy->hideOperatorCalls();
    const std::string text = filtered
        ? formatDelimited(
            filterEvents(m_session->blocks,
                [this](int b, int e) { return m_proxy->mapFromSource(m_model->indexForEvent(b, e)).isValid(); }),
            sep)
        : formatDelimited(m_session->blocks, sep);
    if (const QString failed = saveFile(path, text); !failed.isEmpty())
        return fail(failed);
    return true;
}

QString EventTableView::selectedRowsAsTsv() const
{
    return TreeViewUtil::selectedRowsAsTsv(m_tree);
}

bool EventTableView::eventFilter(QObject *watched, QEvent *event)
{
    // QLineEdit claims Ctrl+E (end of line) for itself; in the filter box it is the window's
    // "export the table" shortcut, so let it through.
    if (watched == m_filter && event->type() == QEvent::ShortcutOverride) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_E && key->modifiers() == Qt::ControlModifier) {
            event->ignore();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace etscope
