#pragma once

#include "session/scope.h"
#include "session/session.h"

#include <QWidget>

#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTreeView;

namespace etscope {

class ModuleRollupModel;

// Where the time goes per nn.Module (needs an ETRecord). Activating a module asks the main
// window to filter the event tree down to that module's events.
class ModuleRollupView : public QWidget
{
    Q_OBJECT
public:
    explicit ModuleRollupView(QWidget *parent = nullptr);

    // Over the runs `scoped` holds (the whole recording when null), named above the tree.
    void setSession(const std::shared_ptr<const Session> &session, const ScopedBlocks *scoped = nullptr);
    QString caption() const;
    ModuleRollupModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }

Q_SIGNALS:
    void moduleActivated(const QString &displayPath);

private:
    ModuleRollupModel *m_model = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QTreeView *m_view = nullptr;
    QLabel *m_hint = nullptr;
    QLabel *m_caption = nullptr;
};

} // namespace etscope
