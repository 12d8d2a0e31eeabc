#include "memorypanel.h"
#include "filedialogs.h"

#include "memoryview.h"
#include "program/memoryplan.h"
#include "sessioncontroller.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>

namespace etscope {

MemoryPanel::MemoryPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_view(new MemoryView)
    , m_dock(makeDock(m_view, tr("Memory"), QStringLiteral("MemoryDock")))
    , m_openAction(new QAction(tr("Open &Program (.pte)…"), this))
{
    m_openAction->setToolTip(tr("Show the memory plan of the program this ETDump was recorded from"));
    connect(m_openAction, &QAction::triggered, this, [this] {
        const QString path
            = askOpenFileName(m_view->window(), tr("ExecuTorch program"), tr("Programs (*.pte *.bpte);;All files (*)"));
        if (!path.isEmpty())
            openProgram(path);
    });
    connect(controller, &SessionController::sessionChanged, this, &MemoryPanel::onSessionChanged);
    connect(m_view, &MemoryView::instructionActivated, this, &MemoryPanel::onInstructionActivated);
    connect(selection, &EventSelection::currentEventChanged, this, &MemoryPanel::onCurrentEvent);
}

QList<Panel::Dock> MemoryPanel::docks() const
{
    return { Dock { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

QList<QAction *> MemoryPanel::menuActions(Menu menu) const
{
    return menu == Menu::File ? QList<QAction *> { m_openAction } : QList<QAction *> {};
}

bool MemoryPanel::openProgram(const QString &path)
{
    auto program = Program::openAny(path.toStdString());
    if (!program) {
        m_controller->notify(MessageKind::Error, QString::fromStdString(program.error().message()));
        return false;
    }
    m_program = *program;
    m_method = nullptr;
    show();
    return m_method != nullptr;
}

// Pairs the program with the open ETDump (when there is one) and shows the plan.
void MemoryPanel::show()
{
    if (!m_program)
        return;
    std::vector<AllocatorUsage> allocations;
    const ProgramMethod *method = m_program->methods().empty() ? nullptr : &m_program->methods()[0];
    if (m_session && m_session->etdump) {
        const ProgramPairing pairing = pairProgramWithETDump(*m_program, *m_session->etdump);
        if (!pairing.method) {
            m_controller->notify(MessageKind::Error,
                QStringLiteral("%1: program does not match %2: %3")
                    .arg(QString::fromStdString(m_program->path()), QString::fromStdString(m_session->etdump->path),
                        QString::fromStdString(pairing.reason)));
            m_method = nullptr;
            m_view->setProgram(nullptr, nullptr);
            Q_EMIT programPaired(nullptr, {});
            return;
        }
        method = pairing.method;
        allocations = allocatorUsage(*m_session->etdump);
    }
    m_method = method;
    m_view->setProgram(m_program, method, std::move(allocations));
    Q_EMIT programPaired(m_program, method ? QString::fromStdString(method->name()) : QString());
    m_dock->show();
    m_dock->raise();
    Q_EMIT needsRoom(m_dock); // the arena chart under three lines of summary needs the height
}

void MemoryPanel::onSessionChanged(std::shared_ptr<const Session> session)
{
    m_session = std::move(session);
    show();
}

void MemoryPanel::onInstructionActivated(int instruction)
{
    if (!m_session || instruction < 0)
        return;
    // The kernel (or delegate) event of that instruction, in the first block that has one.
    for (std::size_t b = 0; b < m_session->blocks.size(); ++b) {
        const auto &events = m_session->blocks[b].events;
        for (std::size_t e = 0; e < events.size(); ++e) {
            const Event &ev = events[e];
            if (ev.chainIndex == 0 && ev.instructionId == instruction && !ev.isFramework() && !ev.isDelegatedOp) {
                m_selecting = true;
                m_selection->selectEvent(int(b), int(e));
                m_selecting = false;
                return;
            }
        }
    }
}

QList<QPair<QString, QString>> MemoryPanel::programRows(int block, int event) const
{
    QList<QPair<QString, QString>> rows;
    if (!m_session || !m_method || block < 0 || event < 0 || std::size_t(block) >= m_session->blocks.size())
        return rows;
    const auto &events = m_session->blocks[std::size_t(block)].events;
    if (std::size_t(event) >= events.size())
        return rows;
    const Event &ev = events[std::size_t(event)];
    if (ev.chainIndex != 0 || ev.instructionId < 0 || std::size_t(ev.instructionId) >= m_method->instructionCount())
        return rows;
    const std::size_t k = std::size_t(ev.instructionId);
    const ProgramInstruction ins = m_method->instruction(k);
    rows.append(
        { tr("instruction"), QStringLiteral("%1 (%2)").arg(k).arg(QString::fromUtf8(instructionKindName(ins.kind))) });
    if (ins.kind == InstructionKind::KernelCall) {
        const ProgramOperator &op = m_method->operators()[std::size_t(ins.operatorIndex)];
        rows.append({ tr("operator"), QString::fromStdString(op.name) });
        rows.append({ tr("overload"), QString::fromStdString(op.overload) });
    } else if (ins.kind == InstructionKind::DelegateCall) {
        rows.append({ tr("backend"), QString::fromStdString(m_method->instructionLabel(k)) });
    }
    const auto values = ins.valuesUsed();
    for (std::size_t i = 0; i < values.size(); ++i)
        rows.append({ tr("argument %1").arg(i),
            QStringLiteral("%%1 %2").arg(values[i]).arg(
                QString::fromStdString(describeValueWithPlace(m_method->value(std::size_t(values[i]))))) });
    return rows;
}

void MemoryPanel::onCurrentEvent(int block, int event)
{
    if (m_selecting || !m_session || !m_method || block < 0 || event < 0
        || std::size_t(block) >= m_session->blocks.size())
        return;
    const auto &events = m_session->blocks[std::size_t(block)].events;
    if (std::size_t(event) >= events.size())
        return;
    const Event &ev = events[std::size_t(event)];
    if (ev.chainIndex != 0 || ev.instructionId < 0 || std::size_t(ev.instructionId) >= m_method->instructionCount())
        return;
    // Out-variant kernels and delegates write their last argument.
    const ProgramInstruction ins = m_method->instruction(std::size_t(ev.instructionId));
    if (!ins.args.empty())
        m_view->selectValue(ins.args.back());
}

} // namespace etscope
