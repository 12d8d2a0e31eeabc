// What users of hotspot / Perfetto expect from a profile table: Ctrl+C copies rows as TSV,
// context menus on rows and headers (column chooser), Esc clears the filter, recent files that
// say where they are, and a Help menu (always last) that lists the shortcuts.
#include "mainwindow.h"

#include "eventfilterproxy.h"
#include "eventtreemodel.h"
#include "modelroles.h"
#include "sourceviewer.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDialog>
#include <QDialogButtonBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace etscope {

QList<QPair<QString, QString>> parseSourceRoots(const QStringList &lines)
{
    QList<QPair<QString, QString>> out;
    for (const QString &line : lines) {
        const int eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0)
            continue;
        const QString recorded = line.left(eq).trimmed(), local = line.mid(eq + 1).trimmed();
        if (!recorded.isEmpty() && !local.isEmpty())
            out.append({ recorded, local });
    }
    return out;
}

void MainWindow::createUsabilityActions()
{
    m_tree->setSelectionMode(QAbstractItemView::ExtendedSelection);

    auto *copy = new QAction(tr("&Copy Rows"), m_tree);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setText(selectedRowsAsTsv()); });
    m_tree->addAction(copy);

    auto *clearFilter = new QAction(tr("Clear Filter"), m_filter);
    clearFilter->setShortcut(QKeySequence(Qt::Key_Escape));
    clearFilter->setShortcutContext(Qt::WidgetShortcut);
    connect(clearFilter, &QAction::triggered, this, [this] {
        m_filter->clear();
        applyFilter();
    });
    m_filter->addAction(clearFilter);

    // Row context menu.
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tree, &QWidget::customContextMenuRequested, this, [this, copy](const QPoint &pos) {
        const QModelIndex index = m_tree->indexAt(pos);
        QMenu menu(this);
        menu.addAction(copy);
        const QString name = index.siblingAtColumn(EventTreeModel::NameColumn).data().toString();
        if (index.isValid()) {
            connect(menu.addAction(tr("Copy Name")), &QAction::triggered, this,
                [name] { QGuiApplication::clipboard()->setText(name); });
            connect(menu.addAction(tr("Filter to \"%1\"").arg(name)), &QAction::triggered, this, [this, name] {
                m_filter->setText(name);
                applyFilter();
            });
        }
        menu.addSeparator();
        connect(menu.addAction(tr("Expand All")), &QAction::triggered, m_tree, &QTreeView::expandAll);
        connect(menu.addAction(tr("Collapse All")), &QAction::triggered, m_tree, &QTreeView::collapseAll);
        menu.exec(m_tree->viewport()->mapToGlobal(pos));
    });

    // Column chooser on the header.
    QHeaderView *header = m_tree->header();
    header->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(header, &QWidget::customContextMenuRequested, this, [this, header](const QPoint &pos) {
        QMenu menu(this);
        for (int c = 0; c < m_model->columnCount(); ++c) {
            QAction *a = menu.addAction(m_model->headerData(c, Qt::Horizontal).toString());
            a->setCheckable(true);
            a->setChecked(!header->isSectionHidden(c));
            a->setEnabled(c != EventTreeModel::NameColumn); // the tree column stays
            connect(a, &QAction::toggled, this, [header, c](bool on) { header->setSectionHidden(c, !on); });
        }
        menu.exec(header->mapToGlobal(pos));
    });

    // Recent files: the tooltip of each entry has the full paths.
    m_recentMenu->setToolTipsVisible(true);

    auto *shortcuts = new QAction(tr("&Keyboard Shortcuts"), this);
    connect(shortcuts, &QAction::triggered, this, [this] {
        QDialog dialog(this);
        dialog.setWindowTitle(tr("Keyboard shortcuts"));
        auto *text = new QPlainTextEdit(shortcutsText(), &dialog);
        text->setReadOnly(true);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto *layout = new QVBoxLayout(&dialog);
        layout->addWidget(text);
        layout->addWidget(buttons);
        dialog.resize(460, 420);
        dialog.exec();
    });
    m_helpMenu->insertAction(m_helpMenu->actions().value(0), shortcuts);

    // Source roots: "recorded prefix = local folder", one per line (QSettings "sourceRoots").
    if (m_options.persistSettings)
        SourceViewer::setSourceRoots(parseSourceRoots(QSettings().value(QStringLiteral("sourceRoots")).toStringList()));
    QMenu *view = nullptr;
    for (QAction *a : menuBar()->actions())
        if (a->menu() && a->menu()->title() == tr("&View"))
            view = a->menu();
    auto *roots = new QAction(tr("&Source Roots…"), this);
    roots->setToolTip(tr("Map the folder a model was exported from to a folder on this machine, so stack frames open"));
    connect(roots, &QAction::triggered, this, [this] {
        QDialog dialog(this);
        dialog.setWindowTitle(tr("Source roots"));
        auto *help = new QLabel(tr("One mapping per line: <i>recorded prefix</i> = <i>local folder</i><br/>"
                                   "e.g. <tt>/home/dev/models = /Users/me/src/models</tt>"),
            &dialog);
        auto *edit = new QPlainTextEdit(&dialog);
        QStringList lines;
        for (const auto &[recorded, local] : SourceViewer::sourceRoots())
            lines << recorded + QStringLiteral(" = ") + local;
        edit->setPlainText(lines.join(QLatin1Char('\n')));
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
        connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
        connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
        auto *layout = new QVBoxLayout(&dialog);
        layout->addWidget(help);
        layout->addWidget(edit, 1);
        layout->addWidget(buttons);
        dialog.resize(560, 300);
        if (dialog.exec() != QDialog::Accepted)
            return;
        const QStringList entries = edit->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        SourceViewer::setSourceRoots(parseSourceRoots(entries));
        if (m_options.persistSettings)
            QSettings().setValue(QStringLiteral("sourceRoots"), entries);
    });
    if (view)
        view->insertAction(m_viewMenu->menuAction(), roots);
    // Menus added later (Analysis, by other parts of the app) go before Help.
    menuBar()->installEventFilter(this);
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == menuBar() && event->type() == QEvent::ActionAdded && m_helpMenu) {
        const auto actions = menuBar()->actions();
        if (!actions.isEmpty() && actions.last() != m_helpMenu->menuAction()) {
            // Deferred: moving an action while Qt is still adding one is not allowed.
            QMetaObject::invokeMethod(
                this,
                [this] {
                    menuBar()->removeAction(m_helpMenu->menuAction());
                    menuBar()->addAction(m_helpMenu->menuAction());
                },
                Qt::QueuedConnection);
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

QString MainWindow::selectedRowsAsTsv() const
{
    QHeaderView *header = m_tree->header();
    std::vector<int> columns;
    for (int v = 0; v < header->count(); ++v) {
        const int logical = header->logicalIndex(v);
        if (!header->isSectionHidden(logical))
            columns.push_back(logical);
    }
    QModelIndexList rows = m_tree->selectionModel()->selectedRows();
    // Top-to-bottom as shown, whatever order they were clicked in.
    std::sort(rows.begin(), rows.end(), [this](const QModelIndex &a, const QModelIndex &b) {
        return m_tree->visualRect(a).top() < m_tree->visualRect(b).top();
    });
    QStringList lines;
    QStringList head;
    for (int c : columns)
        head << m_proxy->headerData(c, Qt::Horizontal).toString();
    lines << head.join(QLatin1Char('\t'));
    for (const QModelIndex &row : std::as_const(rows)) {
        QStringList cells;
        for (int c : columns)
            cells << row.siblingAtColumn(c).data().toString().replace(QLatin1Char('\t'), QLatin1Char(' '));
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString MainWindow::summaryText() const
{
    return m_summary->text();
}

QString MainWindow::shortcutsText() const
{
    QStringList lines;
    const auto actions = findChildren<QAction *>();
    for (const QAction *a : actions) {
        if (a->shortcut().isEmpty())
            continue;
        lines << a->shortcut().toString(QKeySequence::NativeText) + QLatin1Char('\t')
                + QString(a->text()).remove(QLatin1Char('&'));
    }
    lines << tr("Drop files\tOpen an ETDump with its companions");
    lines << tr("Wheel / drag\tZoom / pan the timeline");
    lines.sort();
    lines.removeDuplicates();
    return lines.join(QLatin1Char('\n'));
}

} // namespace etscope
