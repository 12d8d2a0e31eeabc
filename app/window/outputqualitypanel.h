#pragma once

#include "panel.h"
#include "session/session.h"

#include <memory>

namespace etscope {
namespace gapui {
class CompareResultsChart;
}

// Output quality: a BundledProgram opened with the run, its expected outputs against the run's
// outputs (the Inspector's compare_results), shown as soon as the session has both.
class OutputQualityPanel : public Panel
{
    Q_OBJECT
public:
    OutputQualityPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    gapui::CompareResultsChart *chart() const { return m_chart; }

private:
    void onSessionChanged(const std::shared_ptr<const Session> &session);

    gapui::CompareResultsChart *m_chart;
    QDockWidget *m_dock;
};

} // namespace etscope
