#pragma once

#include "session/scope.h"
#include "session/session.h"

#include <QWidget>

#include <memory>

class QDialog;
class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTreeWidget;
class QTreeWidgetItem;

namespace etscope {

class ExplainedPage;
class StackTraceView;

// Everything known about one event: statistics and raw values, identity, stack traces as
// clickable frames, the module hierarchy, debug data summaries and delegate metadata.
class DetailsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);

    // The statistics and raw values answer for the runs `scoped` holds of the event's block (the
    // whole recording without one), each run named as every view names it (model/runnames.h).
    void setEvent(
        std::shared_ptr<const Session> session, int blockIndex, int eventIndex, const ScopedBlocks *scoped = nullptr);
    // A block row: its runs and events, and the per-allocator summary of its allocation events.
    void setBlock(std::shared_ptr<const Session> session, int blockIndex);
    void clear();
    // Appends a section of key/value rows to the properties (information from other sources,
    // e.g. the program's view of the event), expanded.
    void addSection(const QString &title, const QList<QPair<QString, QString>> &rows);

    // For tests: what the panel currently shows.
    int rawValueCount() const;
    int frameCount() const;
    // Why tab `tab` (Statistics 0, Stack trace 1, Modules 2, Debug data 3, Delegate metadata 4)
    // shows no content; "" when it shows some.
    QString tabExplanation(int tab) const;
    int debugValueCount() const;
    QString title() const;
    QTreeWidget *propertiesTree() const { return m_properties; }
    QTreeWidget *debugTree() const { return m_debug; }
    QTreeWidget *framesTree() const;
    QString metadataText() const;
    // Every value of the tensor behind a Debug data row, 1000 per page (double-click on the row).
    QDialog *openTensorValues(QTreeWidgetItem *item);
    QWidget *lastSourceViewer() const;

Q_SIGNALS:
    // Emitted when a frame is activated whose file does not exist locally.
    void frameUnavailable(const QString &message);

private:
    void fillProperties(const EventBlock &block, const Event &e, const Event &timed,
        const std::vector<QString> &runNames, const QString &over);
    // The node of its delegate's decoded payload a backend event ran (the program's), if placed.
    void fillDelegateNode(int blockIndex, int eventIndex);
    void fillModules(const Event &e);
    void fillDebugData(const Session &session, const Event &e);
    void fillMetadata(const Event &e, std::size_t block);
    void explainEmptyTabs(const Event &e);

    std::shared_ptr<const Session> m_session;
    QLabel *m_title = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTreeWidget *m_properties = nullptr;
    StackTraceView *m_frames = nullptr;
    QTreeWidget *m_modules = nullptr;
    QTreeWidget *m_debug = nullptr;
    QPlainTextEdit *m_metadata = nullptr;
    QTreeWidgetItem *m_rawItem = nullptr;
    std::vector<TensorRef> m_tensorRefs; // behind the Debug data rows (UserRole = index)
    ExplainedPage *m_tracePage = nullptr;
    ExplainedPage *m_modulesPage = nullptr;
    ExplainedPage *m_debugPage = nullptr;
    ExplainedPage *m_metadataPage = nullptr;
};

} // namespace etscope
