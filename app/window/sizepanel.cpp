#include "sizepanel.h"

#include "backgroundjob.h"
#include "filedialogs.h"
#include "qtstrings.h"
#include "sessioncontroller.h"
#include "sizemodel.h"
#include "treemapwidget.h"
#include "treeviewutil.h"

#include "export/reportprogramdiff.h"
#include "modelroles.h"
#include "program/programdiff.h"
#include "program/programsize.h"

#include <QAction>
#include <QDockWidget>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

namespace etscope {

SizePanel::SizePanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_model(new SizeModel(this))
    , m_treemap(new TreemapWidget)
    , m_tree(new QTreeView)
    , m_status(new QLabel)
    , m_compare(new QPushButton(tr("Compare with…")))
    , m_diff(new QTextBrowser)
    , m_tabs(new QTabWidget)
    , m_compareAction(new QAction(tr("Compare Program &With…"), this))
    , m_sizeJob(new BackgroundJob(this))
    , m_diffJob(new BackgroundJob(this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_status, 1);
    bar->addWidget(m_compare);
    layout->addLayout(bar);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_tree->setModel(m_model);
    TreeViewUtil::setupResultsTree(m_tree);
    TreeViewUtil::addCopyAndColumnActions(m_tree);
    m_tree->setUniformRowHeights(true);
    // The part's name gets what the numbers leave (they keep their width); long names scroll.
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_tree->header()->setStretchLastSection(false);
    m_tree->setColumnWidth(SizeModel::Name, 300);
    for (int c = SizeModel::Bytes; c < SizeModel::ColumnCount; ++c)
        m_tree->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_treemap->setModel(m_model, SizeModel::Bytes, SortRole);
    m_treemap->setValueUnit(tr(" bytes"));
    m_treemap->setSelectionModel(m_tree->selectionModel());
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, m_tree,
        [this](const QModelIndex &current) { m_tree->scrollTo(current); });

    auto *split = new QSplitter(Qt::Horizontal);
    split->addWidget(m_treemap);
    split->addWidget(m_tree);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({ 560, 520 }); // in proportion: the map a little wider than the table
    m_tabs->addTab(split, tr("Size"));
    m_diff->setOpenLinks(false);
    m_diff->document()->setDefaultStyleSheet(QStringLiteral(
        "table{border-collapse:collapse;margin:4px 0}th,td{border:1px solid #d0d7de;padding:2px 6px}"
        "th{background:#f6f8fa}td.n{text-align:right}.muted{color:#656d76}.warn{color:#9a6700}h2{font-size:15px}"
        "h3{font-size:13px}"));
    m_diff->setPlaceholderText(tr("Compare this program with another build of the model: File ▸ Compare Program "
                                  "With… or the button above."));
    m_tabs->addTab(m_diff, tr("Program diff"));
    layout->addWidget(m_tabs, 1);
    m_dock = makeDock(page, tr("Size"), QStringLiteral("SizeDock"));

    m_compareAction->setStatusTip(
        tr("Compare the program with another build of the model: sizes, delegation, constants, memory plan"));
    connect(m_compareAction, &QAction::triggered, this, &SizePanel::ask);
    connect(m_compare, &QPushButton::clicked, this, &SizePanel::ask);
    connect(controller, &SessionController::sessionChanged, this, &SizePanel::onSessionChanged);
    onSessionChanged(nullptr);
}

QList<Panel::Dock> SizePanel::docks() const
{
    return { Dock { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> SizePanel::menuActions(Menu menu) const
{
    return menu == Menu::File ? QList<QAction *> { m_compareAction } : QList<QAction *> {};
}

QList<Panel::Chart> SizePanel::charts() const
{
    return { { QStringLiteral("size"), tr("Size treemap…"), m_treemap,
        [this] { return m_program ? QString() : tr("open a program (.pte) first"); } } };
}

QString SizePanel::statusText() const
{
    return m_status->text();
}

void SizePanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    const bool changed = !session || !session->program || session->program != m_program;
    m_program = session ? session->program : nullptr;
    m_compare->setEnabled(m_program != nullptr);
    m_compareAction->setEnabled(m_program != nullptr);
    if (!changed)
        return;
    m_diffJob->cancel();
    m_diff->clear();
    m_diffHtml.clear();
    if (!m_program) {
        m_sizeJob->cancel();
        m_model->setReport({});
        // Why the view is empty, in one line.
        const QString why = session && session->hasWarning(SessionWarningKind::ProgramMismatch)
            ? tr("No program shown: %1")
                  .arg(toQString(session->warningsOf(SessionWarningKind::ProgramMismatch).front()))
            : tr("No program: open a .pte (alone or with its ETDump, and its .ptd) to see where its bytes go.");
        m_status->setText(why);
        m_treemap->setEmptyText(why);
        return;
    }
    m_status->setText(tr("Measuring %1…").arg(toQString(m_program->path())));
    m_sizeJob->start([program = m_program](BackgroundJob::Control &) { return programSize(*program); },
        [this](SizeReport r) {
            const std::size_t parts = r.parts.size(), dataFiles = r.dataFiles.size();
            m_model->setReport(std::move(r));
            const QModelIndex file = m_model->index(0, SizeModel::Name);
            QString text = tr("%1: %2 bytes in %3 top-level parts, adding up to the file exactly")
                               .arg(file.data().toString(), m_model->index(0, SizeModel::Bytes).data().toString())
                               .arg(parts);
            if (dataFiles > 0)
                text += tr("; with %n .ptd file(s)", nullptr, int(dataFiles));
            m_status->setText(text + QLatin1Char('.'));
            m_tree->expandToDepth(0);
            m_dock->show();
            Q_EMIT sizeReady();
        });
}

void SizePanel::ask()
{
    if (!m_program)
        return;
    const QString path = askOpenFileName(
        m_dock->window(), tr("Compare with another build"), tr("Programs (*.pte *.bpte);;All files (*)"));
    if (!path.isEmpty())
        compareWith(path);
}

SizePanel::DiffOutcome SizePanel::diff(std::shared_ptr<const Program> a, const QString &programB)
{
    DiffOutcome o;
    auto b = Program::openAny(toStdString(programB));
    if (!b) {
        o.error = toQString(b.error().message());
        return o;
    }
    const ProgramDiff d = diffPrograms(*a, **b);
    o.comparable = d.comparable;
    o.html = toQString(programDiffSection(d)); // the report's section (core/export/reportprogramdiff.h)
    return o;
}

void SizePanel::showDiff(const DiffOutcome &o, const QString &programB)
{
    if (!o.error.isEmpty()) {
        m_controller->notify(MessageKind::Error, tr("Compare program: %1").arg(o.error));
        Q_EMIT diffReady(false);
        return;
    }
    m_diffHtml = o.html;
    m_diff->setHtml(o.html);
    m_tabs->setCurrentWidget(m_diff);
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock);
    if (!o.comparable)
        m_controller->notify(MessageKind::Warning,
            tr("Compare program: %1 is not a build of the same model; no difference is shown.")
                .arg(QFileInfo(programB).fileName()));
    Q_EMIT diffReady(true);
}

void SizePanel::compareWith(const QString &programB)
{
    if (!m_program)
        return;
    m_diff->setPlainText(tr("Comparing with %1…").arg(programB));
    m_tabs->setCurrentWidget(m_diff);
    m_diffJob->start([a = m_program, programB](BackgroundJob::Control &) { return diff(a, programB); },
        [this, programB](DiffOutcome o) { showDiff(o, programB); });
}

bool SizePanel::compareWithSync(const QString &programB, QString *error)
{
    m_diffJob->cancel();
    if (!m_program) {
        if (error)
            *error = tr("no program to compare");
        return false;
    }
    const DiffOutcome o = diff(m_program, programB);
    showDiff(o, programB);
    if (error)
        *error = o.error;
    return o.error.isEmpty();
}

} // namespace etscope
