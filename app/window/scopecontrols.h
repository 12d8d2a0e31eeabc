#pragma once

#include "session/scope.h"

#include <QObject>

#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QToolBar;

namespace etscope {

class SessionController;

// The toolbar's scope: which method and phase every view answers for (session/scope.h). It
// offers what the recording holds (scopeChoices) and shows what the scope selects ("64 runs",
// the rule that decided the phases in its tooltip); a recording of one method and one phase
// has nothing to choose and the control stays out of the way.
class ScopeControls : public QObject
{
    Q_OBJECT
public:
    ScopeControls(SessionController *controller, QToolBar *toolBar);

    QComboBox *methodBox() const { return m_method; }
    QComboBox *phaseBox() const { return m_phase; }
    QString runsText() const;

private:
    void fill();
    void fillPhases(const Scope &scope);
    void show(const std::shared_ptr<const ScopedBlocks> &scoped);
    void apply();

    SessionController *m_controller;
    QComboBox *m_method;
    QComboBox *m_phase;
    QLabel *m_runs;
    std::vector<Phase> m_phases; // the recording's
    QList<QAction *> m_actions; // the control's widgets in the toolbar
    bool m_filling = false;
};

} // namespace etscope
