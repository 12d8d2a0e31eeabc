#pragma once

#include "panel.h"
#include "session/session.h"

#include <memory>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTabWidget;

namespace etscope {

class MemoryView;

// The "Program" dock: the session's program (a .pte opened alone or with its ETDump, or the
// program of a BundledProgram) — the memory plan of the method shown, with the ETDump's
// allocation events beside it, and the program's overview (methods, inputs and outputs,
// delegates and their compile specs). A method selector switches methods; a click on a tensor
// selects the event of the instruction that makes it; selecting an event selects that
// instruction's output.
class MemoryPanel : public Panel
{
    Q_OBJECT
public:
    MemoryPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    MemoryView *view() const { return m_view; }
    QComboBox *methodBox() const { return m_methodBox; }
    QString overviewText() const;
    QString pairingText() const;
    // Writes the memory picture (SVG, from the core's renderer) or the planned tensors (TSV).
    bool exportPlan(const QString &path, QString *error = nullptr) const;

private:
    void onSessionChanged(std::shared_ptr<const Session> session);
    void onInstructionActivated(int instruction);
    void onCurrentEvent(int block, int event);

    MemoryView *m_view;
    QComboBox *m_methodBox;
    QLabel *m_pairing;
    QPushButton *m_export;
    QPlainTextEdit *m_overview;
    QTabWidget *m_tabs;
    QDockWidget *m_dock;
    QAction *m_openAction;
    std::shared_ptr<const Session> m_session;
    std::string m_shownProgram; // the program whose dock was raised last (raised once per program)
    bool m_selecting = false;
};

} // namespace etscope
