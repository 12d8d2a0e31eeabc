#pragma once

#include "panel.h"
#include "program/program.h"
#include "session/session.h"

#include <memory>

class QAction;
class QDockWidget;

namespace etscope {

class MemoryView;

// The "Memory" dock: the memory plan of a .pte program (File ▸ Open Program…), paired with the
// open ETDump by content (instruction ids and kernel names agree, else refused with the
// reason) and with its allocation events beside the plan. A click on a tensor selects the
// event of the instruction that makes it; selecting an event selects that instruction's output.
class MemoryPanel : public Panel
{
    Q_OBJECT
public:
    MemoryPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    // Opens a .pte (or the program inside a .bpte); false and a message in the window on failure.
    bool openProgram(const QString &path);
    MemoryView *view() const { return m_view; }
    // What the paired program says about an event's instruction: kind, operator and overload
    // (or delegate backend), each argument with its dtype, shape and place in memory. Empty
    // without a paired program or for events outside the instructions.
    QList<QPair<QString, QString>> programRows(int block, int event) const;

Q_SIGNALS:
    // The program and method paired with the open ETDump (null when none or refused).
    void programPaired(std::shared_ptr<const etscope::Program> program, const QString &method);

private:
    void show();
    void onSessionChanged(std::shared_ptr<const Session> session);
    void onInstructionActivated(int instruction);
    void onCurrentEvent(int block, int event);

    MemoryView *m_view;
    QDockWidget *m_dock;
    QAction *m_openAction;
    std::shared_ptr<const Program> m_program;
    std::shared_ptr<const Session> m_session;
    const ProgramMethod *m_method = nullptr;
    bool m_selecting = false;
};

} // namespace etscope
