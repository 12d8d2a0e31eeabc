#include "modulerollupview.h"

#include "costbardelegate.h"
#include "modelroles.h"
#include "modulerollupmodel.h"
#include "qtstrings.h"
#include "treeviewutil.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

namespace etscope {

ModuleRollupView::ModuleRollupView(QWidget *parent)
    : QWidget(parent)
    , m_model(new ModuleRollupModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SortRole);
    m_view = new QTreeView(this);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(ModuleRollupModel::TotalColumn, Qt::DescendingOrder);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setItemDelegateForColumn(ModuleRollupModel::TotalColumn, new CostBarDelegate(m_view));
    m_view->header()->resizeSection(ModuleRollupModel::ModuleColumn, 220);
    m_view->setToolTip(tr("Double-click a module to filter the events to it"));
    TreeViewUtil::addCopyAndColumnActions(m_view, ModuleRollupModel::ModuleColumn, ModuleRollupModel::ModuleColumn);
    m_hint = new QLabel(tr("Open an ETRecord together with the ETDump to see latency per nn.Module."), this);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_caption = new QLabel(this);
    m_caption->setContentsMargins(4, 2, 4, 0);
    m_caption->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_caption);
    layout->addWidget(m_hint);
    layout->addWidget(m_view, 1);
    m_view->hide();
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &index) {
        const QModelIndex source = m_proxy->mapToSource(index.siblingAtColumn(0));
        Q_EMIT moduleActivated(source.data(SortRole).toString());
    });
}

QString ModuleRollupView::caption() const
{
    return m_caption->text();
}

void ModuleRollupView::setSession(const std::shared_ptr<const Session> &session, const ScopedBlocks *scoped)
{
    m_model->setSession(session, scoped ? &scoped->blocks : nullptr);
    const bool named = scoped && !scoped->whole;
    m_caption->setText(named ? tr("Average latency per nn.Module over %1").arg(toQString(scoped->label)) : QString());
    m_caption->setVisible(named && !m_model->isEmpty());
    m_view->setVisible(!m_model->isEmpty());
    m_hint->setVisible(m_model->isEmpty());
    m_view->expandToDepth(1);
}

} // namespace etscope
