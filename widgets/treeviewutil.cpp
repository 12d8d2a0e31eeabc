#include "treeviewutil.h"

#include "modelroles.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTreeView>

#include <algorithm>
#include <vector>

namespace etscope::TreeViewUtil {

void setupResultsTree(QTreeView *tree)
{
    tree->setUniformRowHeights(true);
    tree->setAlternatingRowColors(true);
    tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    tree->setAllColumnsShowFocus(true);
    tree->header()->setSortIndicator(-1, Qt::AscendingOrder);
    tree->setSortingEnabled(true);
    tree->header()->setSectionsMovable(true);
    tree->header()->setStretchLastSection(false);
    tree->header()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

void addCopyAndColumnActions(QTreeView *tree, int fixedColumn, int nameColumn, MenuExtender extend)
{
    tree->setSelectionMode(QAbstractItemView::ExtendedSelection);

    auto *copy = new QAction(QObject::tr("&Copy Rows"), tree);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    QObject::connect(
        copy, &QAction::triggered, tree, [tree] { QGuiApplication::clipboard()->setText(selectedRowsAsTsv(tree)); });
    tree->addAction(copy);

    tree->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(tree, &QWidget::customContextMenuRequested, tree,
        [tree, copy, nameColumn, extend = std::move(extend)](const QPoint &pos) {
            const QModelIndex index = tree->indexAt(pos);
            QMenu menu(tree);
            menu.addAction(copy);
            if (index.isValid()) {
                const QString name = index.siblingAtColumn(nameColumn).data().toString();
                QObject::connect(menu.addAction(QObject::tr("Copy Name")), &QAction::triggered, tree,
                    [name] { QGuiApplication::clipboard()->setText(name); });
            }
            if (extend)
                extend(menu, index);
            menu.addSeparator();
            QObject::connect(
                menu.addAction(QObject::tr("Expand All")), &QAction::triggered, tree, &QTreeView::expandAll);
            QObject::connect(
                menu.addAction(QObject::tr("Collapse All")), &QAction::triggered, tree, &QTreeView::collapseAll);
            menu.exec(tree->viewport()->mapToGlobal(pos));
        });

    QHeaderView *header = tree->header();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    QObject::connect(
        header, &QWidget::customContextMenuRequested, tree, [tree, header, fixedColumn](const QPoint &pos) {
            QMenu menu(tree);
            const QAbstractItemModel *model = tree->model();
            for (int c = 0; model && c < model->columnCount(); ++c) {
                QAction *a = menu.addAction(model->headerData(c, Qt::Horizontal).toString());
                a->setCheckable(true);
                a->setChecked(!header->isSectionHidden(c));
                a->setEnabled(c != fixedColumn);
                QObject::connect(
                    a, &QAction::toggled, header, [header, c](bool on) { header->setSectionHidden(c, !on); });
            }
            menu.exec(header->mapToGlobal(pos));
        });
}

QString selectedRowsAsTsv(const QTreeView *tree)
{
    const QHeaderView *header = tree->header();
    std::vector<int> columns;
    for (int v = 0; v < header->count(); ++v) {
        const int logical = header->logicalIndex(v);
        if (!header->isSectionHidden(logical))
            columns.push_back(logical);
    }
    QModelIndexList rows = tree->selectionModel()->selectedRows();
    // Top-to-bottom as shown, whatever order they were clicked in.
    std::sort(rows.begin(), rows.end(), [tree](const QModelIndex &a, const QModelIndex &b) {
        return tree->visualRect(a).top() < tree->visualRect(b).top();
    });
    QStringList lines;
    QStringList head;
    for (int c : columns)
        head << tree->model()->headerData(c, Qt::Horizontal).toString();
    lines << head.join(QLatin1Char('\t'));
    for (const QModelIndex &row : std::as_const(rows)) {
        QStringList cells;
        for (int c : columns)
            cells << row.siblingAtColumn(c).data().toString().replace(QLatin1Char('\t'), QLatin1Char(' '));
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

void setupRowTable(QTableView *table, QSortFilterProxyModel *proxy, QAbstractItemModel *source)
{
    proxy->setSourceModel(source);
    proxy->setSortRole(SortRole);
    table->setModel(proxy);
    table->setSortingEnabled(true);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setWordWrap(false);
}

} // namespace etscope::TreeViewUtil
