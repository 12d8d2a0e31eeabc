#pragma once

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace etscope::evalgap {
struct GraphDiff;
}

namespace etscope::gapui {

// The aligned layers of a graph-against-graph comparison (evalgap/graphdiff.h), a row per layer:
// its A and B nodes, the rule that aligned them, the gap coloured by the noise rule and the first
// parting in bold; under the table the nodes no rule aligns (never paired by guess) and the
// comparison's warnings.
class GraphDiffTable : public QWidget
{
    Q_OBJECT
public:
    explicit GraphDiffTable(QWidget *parent = nullptr);
    // Shows `diff`'s layers and scrolls to where the graphs part.
    void setDiff(const evalgap::GraphDiff &diff);
    void clear();
    // Makes aligned layer `row` (index into GraphDiff::rows) current and scrolls to it; true when
    // it already was current (currentLayerChanged() is then not emitted).
    bool selectLayer(int row);
    QTreeWidget *tree() const { return m_table; }

Q_SIGNALS:
    // The current row changed to aligned layer `row` (index into GraphDiff::rows).
    void currentLayerChanged(int row);

private:
    QTreeWidget *m_table;
    QLabel *m_unaligned;
};

} // namespace etscope::gapui
