#pragma once

#include "graph/graphlayout.h"
#include "graph/programgraph.h"

#include <QPointer>
#include <QWidget>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;
class QProgressBar;
class QToolButton;

namespace etscope {

class BackgroundJob;
class GraphCanvas;
class GraphLegend;

// The exported program as a graph: Graphviz layout computed on a worker thread (cancellable,
// the last picture stays until the new one arrives), drawn with QGraphicsView. Module boxes
// expand/collapse on double-click; overlays colour the boxes; a click reports the operator
// node(s) so the window can select their events.
class GraphView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphView(QWidget *parent = nullptr);
    ~GraphView() override;

    void setGraph(std::shared_ptr<const graph::ProgramGraph> g, graph::OverlayData data);
    void setOverlayData(graph::OverlayData data); // same graph, new numbers (e.g. a gap table)
    // The runs the latency overlay is over ("decode_forward · decode · 64 runs"), named in its
    // legend; empty for the whole recording.
    void setRunsLabel(const QString &label);
    QString legendTitle() const;
    void clear(const QString &message);
    void setOverlay(graph::Overlay o);
    // Program entries offered in the toolbar (Edge program first); programRequested() asks the
    // owner to rebuild the graph for another entry or with graph inputs drawn as nodes.
    void setProgramChoices(const QStringList &entries, const QString &current, bool placeholders);
    graph::Overlay overlay() const { return m_overlay; }

    // Selects and centres the node of this event (expanding its modules when needed).
    bool centerOnEvent(int blockIndex, int eventIndex);
    bool centerOnNode(int opNode);
    // Search: exact node name, else first node whose name or op contains the text, else a module.
    bool jumpTo(const QString &text);

    void toggleGroup(int group);
    void expandAll();
    void collapseAll();
    void fit();

    // PNG or SVG (by suffix) of what the view shows, legend included. Empty string on success.
    // At `size` logical pixels: the whole graph, arranged and fitted for that size; as shown
    // when no size is given.
    QString exportImage(const QString &path, QSize size = {});

    // A fitted view picks the arrangement that shows the graph largest (graph::bestArrangement):
    // top to bottom or left to right, folded into rows or columns in a wide or tall view.
    // Graphs with more boxes than this keep one top-to-bottom drawing.
    static constexpr std::size_t kArrangeLimit = 400;
    static constexpr double kSceneMargin = 6; // points of room around the drawing
    // Pixel size of the operator names at the current zoom (12 px at 100 %).
    double nodeTextPixelSize() const;

    // For tests and scripts.
    bool isLayoutRunning() const { return m_running; }
    bool waitForLayout(int timeoutMs = 30000);
    void cancelLayout();
    const graph::ProgramGraph *programGraph() const { return m_graph.get(); }
    const graph::VisibleGraph &visible() const { return m_visible; }
    const graph::GraphLayout &layout() const { return m_layout; }
    const graph::Coloring &coloring() const { return m_colors; }
    const graph::OverlayData &overlayData() const { return m_data; }
    const graph::ExpansionState &expansion() const { return m_state; }
    int selectedItem() const { return m_selected; }
    QGraphicsView *canvas() const;
    QGraphicsScene *scene() const;
    QPointF itemCenter(int item) const; // scene coordinates
    // Clicks a visible item as the user would (selection + nodeClicked / groupClicked).
    void activateItem(int item);

Q_SIGNALS:
    void nodeClicked(int opNode);
    void groupClicked(int group);
    void layoutFinished();
    void programRequested(const QString &entry, bool placeholders);
    // An action of the view (Export…) failed: one line, the action and the reason; the panel
    // reports it where every GUI action's error goes (SessionController::notify).
    void actionFailed(const QString &message);

private:
    friend class GraphCanvas;
    void relayout();
    bool rearrange(); // for the current viewport; true when the scene was rebuilt
    void arrange(graph::FlowDirection direction, int segments);
    struct Pending;
    void onLayoutDone(const std::shared_ptr<Pending> &p);
    void rebuildScene();
    void recolor();
    void select(int item, bool center);
    void updateInfo();
    void moveSelection(int key);

    std::shared_ptr<const graph::ProgramGraph> m_graph;
    graph::OverlayData m_data;
    graph::ExpansionState m_state;
    graph::VisibleGraph m_visible;
    graph::GraphLayout m_layout; // what is drawn: one of the base layouts, maybe folded
    graph::GraphLayout m_baseTopToBottom;
    std::optional<graph::GraphLayout> m_baseLeftToRight; // small graphs only (kArrangeLimit)
    graph::Coloring m_colors;
    graph::Overlay m_overlay = graph::Overlay::Latency;
    int m_selected = -1;
    int m_cameFrom = -1; // keyboard: the box we just left
    int m_pendingNode = -1; // centre on this op node once the running layout is shown
    bool m_running = false;
    bool m_fitAfterLayout = true;
    BackgroundJob *m_job = nullptr;

    QWidget *m_body = nullptr;
    GraphCanvas *m_view = nullptr;
    QGraphicsScene *m_scene = nullptr;
    GraphLegend *m_legend = nullptr;
    QString m_runsLabel;
    QComboBox *m_overlayBox = nullptr;
    QComboBox *m_programBox = nullptr;
    QToolButton *m_inputsButton = nullptr;
    QLineEdit *m_search = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_info = nullptr;
    QProgressBar *m_busy = nullptr;
    QToolButton *m_cancelButton = nullptr;
    std::vector<class GraphNodeItem *> m_items;
};

} // namespace etscope
