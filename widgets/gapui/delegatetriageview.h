#pragma once

#include "analysis/numericgap.h"
#include "session/session.h"

#include <QWidget>

class QTreeWidget;

namespace etscope::gapui {

// "Which delegate partition lost accuracy, and what source is it?": the delegated rows of a gap
// table with backend, the operators they replaced, average latency and worst gap, worst first.
// Selecting a row emits the runtime event.
class DelegateTriageView : public QWidget
{
    Q_OBJECT
public:
    explicit DelegateTriageView(QWidget *parent = nullptr);
    void setData(const Session &session, const analysis::GapTable &table);
    QTreeWidget *tree() const { return m_tree; }

Q_SIGNALS:
    void eventSelected(int blockIndex, int eventIndex);

private:
    QTreeWidget *m_tree;
};

} // namespace etscope::gapui
