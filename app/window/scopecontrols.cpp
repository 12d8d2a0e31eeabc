#include "scopecontrols.h"

#include "qtstrings.h"
#include "runnames.h"
#include "sessioncontroller.h"

#include <QComboBox>
#include <QLabel>
#include <QToolBar>

#include <algorithm>

namespace etscope {

ScopeControls::ScopeControls(SessionController *controller, QToolBar *toolBar)
    : QObject(toolBar)
    , m_controller(controller)
    , m_method(new QComboBox(toolBar))
    , m_phase(new QComboBox(toolBar))
    , m_runs(new QLabel(toolBar))
{
    m_method->setObjectName(QStringLiteral("ScopeMethodBox"));
    m_phase->setObjectName(QStringLiteral("ScopePhaseBox"));
    m_method->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_method->setToolTip(tr("Scope: the method whose runs every view answers for"));
    m_phase->setToolTip(tr("Scope: the phase whose runs every view answers for (prefill, decode, warm-up, …)"));
    m_runs->setContentsMargins(4, 0, 4, 0);
    auto *label = new QLabel(tr("Scope"), toolBar);
    label->setContentsMargins(4, 0, 4, 0);
    m_actions << toolBar->addWidget(label) << toolBar->addWidget(m_method) << toolBar->addWidget(m_phase)
              << toolBar->addWidget(m_runs);
    connect(m_method, &QComboBox::currentIndexChanged, this, &ScopeControls::apply);
    connect(m_phase, &QComboBox::currentIndexChanged, this, &ScopeControls::apply);
    connect(controller, &SessionController::sessionChanged, this, &ScopeControls::fill);
    connect(controller, &SessionController::scopeChanged, this, &ScopeControls::show);
    fill();
}

QString ScopeControls::runsText() const
{
    return m_runs->text();
}

void ScopeControls::fill()
{
    m_filling = true;
    m_method->clear();
    m_phase->clear();
    const auto &session = m_controller->session();
    ScopeChoices choices;
    if (session && session->etdump)
        choices = scopeChoices(*session);
    m_method->addItem(tr("every method"), QString());
    for (const std::string &m : choices.methods)
        m_method->addItem(toQString(m), toQString(m));
    m_phases = choices.phases;
    const Scope &scope = m_controller->scope();
    m_method->setCurrentIndex(std::max(0, m_method->findData(toQString(scope.method))));
    fillPhases(scope);
    m_filling = false;
    const bool matters = m_controller->scopeMatters();
    for (QAction *a : std::as_const(m_actions))
        a->setVisible(matters);
    m_method->setEnabled(choices.methods.size() > 1 || !scope.method.empty());
}

void ScopeControls::fillPhases(const Scope &scope)
{
    // The phases the chosen method's runs have (decode_forward: decode), every phase first.
    const bool was = m_filling;
    m_filling = true;
    m_phase->clear();
    const auto &session = m_controller->session();
    for (Phase p : m_phases) {
        const Scope candidate { scope.method, p, scope.firstRun, scope.lastRun };
        const bool present = p == Phase::All
            || (session
                && std::any_of(session->runTable.runs.begin(), session->runTable.runs.end(),
                    [&](const SessionRun &r) { return runInScope(r, candidate); }));
        if (present)
            m_phase->insertItem(p == Phase::All ? 0 : m_phase->count(),
                p == Phase::All ? tr("every phase") : QString::fromLatin1(phaseName(p)), int(p));
    }
    m_phase->setCurrentIndex(std::max(0, m_phase->findData(int(scope.phase))));
    m_filling = was;
}

void ScopeControls::show(const std::shared_ptr<const ScopedBlocks> &scoped)
{
    if (!scoped) {
        m_runs->clear();
        return;
    }
    const Scope &scope = m_controller->scope();
    {
        const QSignalBlocker b1(m_method), b2(m_phase);
        m_method->setCurrentIndex(std::max(0, m_method->findData(toQString(scope.method))));
        fillPhases(scope);
    }
    m_runs->setText(scoped->runCount == 1 ? tr("1 run") : tr("%1 runs").arg(scoped->runCount));
    m_runs->setToolTip(
        QStringLiteral("%1\n%2\n%3").arg(toQString(scoped->label), toQString(scoped->ruleLine), runNumbering()));
}

void ScopeControls::apply()
{
    if (m_filling)
        return;
    Scope scope = m_controller->scope();
    const std::string method = m_method->currentData().toString().toStdString();
    scope.phase = Phase(m_phase->currentData().toInt());
    if (method != scope.method) {
        scope.method = method;
        fillPhases(scope); // keeps the phase when the method has it, else every phase
        scope.phase = Phase(m_phase->currentData().toInt());
    }
    if (!m_controller->setScope(scope)) // no run in that scope: the controls show the one kept
        show(m_controller->scoped());
}

} // namespace etscope
