#include "memorypanel.h"
#include "filedialogs.h"

#include "memoryview.h"
#include "program/memoryplan.h"
#include "program/programexport.h"
#include "qtstrings.h"
#include "savefile.h"
#include "sessioncontroller.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

namespace etscope {

MemoryPanel::MemoryPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_view(new MemoryView)
    , m_methodBox(new QComboBox)
    , m_pairing(new QLabel)
    , m_export(new QPushButton(tr("Export…")))
    , m_overview(new QPlainTextEdit)
    , m_tabs(new QTabWidget)
    , m_openAction(new QAction(tr("Open &Program (.pte)…"), this))
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(2, 2, 2, 2);
    auto *bar = new QHBoxLayout;
    auto *methodLabel = new QLabel(tr("Method:"));
    bar->addWidget(methodLabel);
    bar->addWidget(m_methodBox);
    bar->addWidget(m_pairing, 1);
    bar->addWidget(m_export);
    layout->addLayout(bar);
    m_methodBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_methodBox->setToolTip(tr("The program's method shown here, in Details and in the instruction graph"));
    m_pairing->setWordWrap(true);
    m_export->setToolTip(tr("Save the memory picture (SVG) or the planned tensors (TSV)"));
    m_overview->setReadOnly(true);
    m_overview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_overview->setFont(QFont(QStringLiteral("monospace")));
    m_tabs->addTab(m_view, tr("Memory plan"));
    m_tabs->addTab(m_overview, tr("Overview"));
    layout->addWidget(m_tabs, 1);
    m_dock = makeDock(page, tr("Program"), QStringLiteral("MemoryDock"));

    m_openAction->setToolTip(tr("Open the program this ETDump was recorded from (or a program alone)"));
    connect(m_openAction, &QAction::triggered, this, [this] {
        const QString path
            = askOpenFileName(m_dock->window(), tr("ExecuTorch program"), tr("Programs (*.pte *.bpte);;All files (*)"));
        if (!path.isEmpty())
            m_controller->openFiles({ path }); // every input goes through the session
    });
    connect(m_methodBox, &QComboBox::activated, this,
        [this](int index) { m_controller->selectMethod(m_methodBox->itemText(index)); });
    connect(m_export, &QPushButton::clicked, this, [this] {
        if (!m_session || !m_session->method)
            return;
        const QString path = askSaveFileName(m_dock->window(), tr("Export memory plan"),
            toQString(m_session->method->name()) + QStringLiteral("-memory.svg"),
            tr("SVG picture (*.svg);;Tab-separated tensors (*.tsv)"));
        if (path.isEmpty())
            return;
        QString error;
        if (exportPlan(path, &error))
            m_controller->notify(MessageKind::Status, tr("Memory plan written to %1").arg(path), 6000);
        else
            m_controller->notify(MessageKind::Error, error);
    });
    connect(controller, &SessionController::sessionChanged, this, &MemoryPanel::onSessionChanged);
    connect(m_view, &MemoryView::instructionActivated, this, &MemoryPanel::onInstructionActivated);
    connect(selection, &EventSelection::currentEventChanged, this, &MemoryPanel::onCurrentEvent);
    onSessionChanged(nullptr);
}

QList<Panel::Dock> MemoryPanel::docks() const
{
    return { Dock { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> MemoryPanel::menuActions(Menu menu) const
{
    return menu == Menu::File ? QList<QAction *> { m_openAction } : QList<QAction *> {};
}

QString MemoryPanel::overviewText() const
{
    return m_overview->toPlainText();
}

QString MemoryPanel::pairingText() const
{
    return m_pairing->text();
}

bool MemoryPanel::exportPlan(const QString &path, QString *error) const
{
    if (!m_session || !m_session->method) {
        if (error)
            *error = tr("%1: no program to export").arg(path);
        return false;
    }
    const ProgramMethod &m = *m_session->method;
    const MemoryPlan plan = analyzeMemoryPlan(m);
    const std::string text
        = path.endsWith(QLatin1String(".tsv"), Qt::CaseInsensitive) ? memoryTsv(m, plan) : memorySvg(m, plan);
    const QString failed = saveFile(path, text); // written whole or not at all
    if (!failed.isEmpty() && error)
        *error = failed;
    return failed.isEmpty();
}

void MemoryPanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    const Session *s = m_session.get();
    const bool hasProgram = s && s->program && s->method;
    m_methodBox->clear();
    m_methodBox->setEnabled(hasProgram && s->program->methods().size() > 1);
    m_export->setEnabled(hasProgram);
    if (!hasProgram) {
        m_view->setProgram(nullptr, nullptr);
        m_overview->setPlainText(tr("No program. Open the .pte (or .bpte) this ETDump was recorded from, alone or "
                                    "with the ETDump, to see its methods, memory plan and instructions."));
        m_pairing->setText(s && s->hasWarning(SessionWarningKind::ProgramMismatch)
                ? toQString(s->warningsOf(SessionWarningKind::ProgramMismatch).front())
                : QString());
        return;
    }
    for (const ProgramMethod &m : s->program->methods())
        m_methodBox->addItem(toQString(m.name()));
    m_methodBox->setCurrentText(toQString(s->method->name()));
    // What the events have to do with the method shown, said where the plan is shown.
    if (!s->etdump)
        m_pairing->setText(tr("Program alone: no ETDump."));
    else if (s->methodPairedWithETDump) {
        // Which of the recording's runs executed the method shown (program/runattribution.h).
        std::size_t runs = 0, all = 0;
        for (std::size_t b = 0; b < s->runMethods.size() && b < s->blocks.size(); ++b) {
            if (s->runMethods[b].kind == RunAttribution::Kind::NoEvents)
                continue;
            all += s->blocks[b].runIndices.size();
            if (s->runMethods[b].fits(s->method->name()))
                runs += s->blocks[b].runIndices.size();
        }
        m_pairing->setText(runs == all
                ? tr("The ETDump's events match this method's instructions.")
                : tr("%1 of the ETDump's %2 runs executed this method; the others ran another one.")
                      .arg(runs)
                      .arg(all));
    } else {
        m_pairing->setText(tr("The ETDump ran another method: its events are not linked to this one."));
    }
    m_view->setProgram(s->program, s->method, s->etdump ? allocatorUsage(*s->etdump) : std::vector<AllocatorUsage> {});
    m_overview->setPlainText(toQString(programText(*s->program)));
    if (m_shownProgram != s->program->path()) {
        // A new program: bring the dock forward once, with the height its picture needs.
        m_shownProgram = s->program->path();
        m_dock->show();
        m_dock->raise();
        Q_EMIT needsRoom(m_dock);
    }
}

void MemoryPanel::onInstructionActivated(int instruction)
{
    if (!m_session || instruction < 0)
        return;
    if (const auto at = m_session->eventOfInstruction(std::size_t(instruction))) {
        m_selecting = true;
        m_selection->selectEvent(at->block, at->event);
        m_selecting = false;
    }
}

void MemoryPanel::onCurrentEvent(int block, int event)
{
    if (m_selecting || !m_session)
        return;
    const auto instruction = m_session->instructionOfEvent(block, event);
    if (!instruction)
        return;
    // Out-variant kernels and delegates write their last argument.
    const ProgramInstruction ins = m_session->method->instruction(*instruction);
    if (!ins.args.empty())
        m_view->selectValue(ins.args.back());
}

} // namespace etscope
