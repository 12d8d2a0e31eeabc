#pragma once

#include "events/event.h"

#include <QPointer>
#include <QWidget>

class QPlainTextEdit;
class QTreeWidget;
class QTreeWidgetItem;

namespace etscope {

// The stack traces of an event's graph nodes: a tree of clickable frames over the same frames
// as text, both innermost (most recent call) first. A frame whose file exists here opens in the
// source viewer.
class StackTraceView : public QWidget
{
    Q_OBJECT
public:
    explicit StackTraceView(QWidget *parent = nullptr);
    void setNodes(const std::vector<LinkedNode> &nodes);
    void clear();

    // For tests: what the view shows.
    int frameCount() const;
    QTreeWidget *framesTree() const { return m_frames; }
    QString text() const;
    QWidget *lastSourceViewer() const { return m_lastViewer; }

Q_SIGNALS:
    // A frame was activated whose file does not exist locally.
    void frameUnavailable(const QString &message);

private:
    void activateFrame(QTreeWidgetItem *item);

    QTreeWidget *m_frames;
    QPlainTextEdit *m_text;
    QPointer<QWidget> m_lastViewer;
};

} // namespace etscope
