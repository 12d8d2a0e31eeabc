#pragma once

#include <QString>

#include <functional>

class QMenu;
class QModelIndex;
class QTreeView;

namespace etscope {

// Every result tree of the window behaves the same (after hotspot's ResultsUtil and
// CopyableTreeView): Ctrl+C copies the selected rows as TSV, the header's context menu chooses
// the columns, the rows' context menu copies and expands.
namespace TreeViewUtil {

// Header and view setup of a sortable profile table: uniform rows, alternating colours, whole-row
// extended selection, movable left-aligned sections, unsorted until the user clicks a header.
void setupResultsTree(QTreeView *tree);

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
