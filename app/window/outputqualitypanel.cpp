#include "outputqualitypanel.h"

#include "compareresultschart.h"
#include "sessioncontroller.h"

#include "analysis/compareresults.h"
#include "analysis/referenceset.h"

#include <QDockWidget>

namespace etscope {

OutputQualityPanel::OutputQualityPanel(SessionController *controller, EventSelection *selection, QObject *parent)
    : Panel(controller, selection, parent)
    , m_chart(new gapui::CompareResultsChart)
    , m_dock(makeDock(m_chart, tr("Output quality"), QStringLiteral("CompareResultsDock")))
{
    connect(controller, &SessionController::sessionChanged, this, &OutputQualityPanel::onSessionChanged);
}

QList<Panel::Dock> OutputQualityPanel::docks() const
{
    return { { m_dock, Qt::BottomDockWidgetArea, Placement::Tab, true } };
}

void OutputQualityPanel::onSessionChanged(const std::shared_ptr<const Session> &session)
{
    m_dock->hide();
    if (!session || session->inputs.bundledProgram.empty() || !session->debugBuffer)
        return;
    analysis::ReferenceInputs ref;
    ref.bundledProgram = session->inputs.bundledProgram;
    auto set = analysis::loadReference(ref);
    auto run = analysis::sessionRunOutputs(*session, -1);
    if (!set || !run || run->empty())
        return;
    m_chart->setResults(analysis::compareResults(set->finalOutputs, *run));
    m_dock->show();
}

} // namespace etscope
