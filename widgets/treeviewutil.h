#pragma once

#include <QString>

#include <functional>

class QMenu;
class QModelIndex;
class QTreeView;
class QTableView;
class QAbstractItemModel;
class QSortFilterProxyModel;

namespace etscope {

// Every result tree of the window behaves the same (after hotspot's ResultsUtil and
// CopyableTreeView): Ctrl+C copies the selected rows as TSV, the header's context menu chooses
// the columns, the rows' context menu copies and expands.
namespace TreeViewUtil {

// Header and view setup of a sortable profile table: uniform rows, alternating colours, whole-row
// extended selection, movable left-aligned sections, unsorted until the user clicks a header.
void setupResultsTree(QTreeView *tree);

// A table of one row per item (runs, series, tensors): `source` through `proxy`, sorted by
// SortRole on a header click, one row selected at a time, compact rows, the last column stretched.
void setupRowTable(QTableView *table, QSortFilterProxyModel *proxy, QAbstractItemModel *source);

// Adds Copy Rows (Ctrl+C), the column chooser on the header (`fixedColumn`, the tree column,
// cannot be hidden) and a row context menu: Copy Rows, Copy Name (of `nameColumn`), whatever
// `extend` adds for the clicked index, then Expand All / Collapse All.
using MenuExtender = std::function<void(QMenu &menu, const QModelIndex &index)>;
void addCopyAndColumnActions(QTreeView *tree, int fixedColumn = 0, int nameColumn = 0, MenuExtender extend = {});

// The selected rows as Ctrl+C puts them on the clipboard: a header line, then one tab-separated
// line per row (top to bottom as shown) with the visible columns in view order.
QString selectedRowsAsTsv(const QTreeView *tree);

} // namespace TreeViewUtil
} // namespace etscope
