#pragma once

#include "analysis/runscompare.h"
#include "panel.h"

#include <QStringList>

#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QTableView;

namespace etscope {

class BackgroundJob;
class GroupedBarsChart;
class SideBySideModel;

// "Recordings side by side" (issue 38 item 4): the open recording and others of the same model
// (devices, backends) as grouped bars and one table — runs, time to first token, per-phase
// medians and tokens/s, coverage, per-phase operator shares — the figures `etscope-cli runs -e A
// -e B …` prints (analysis/runscompare.h), over the runs in the window's scope. Each other
// recording is read with the open session's program, .ptd files and time settings; a program that
// is not its own is left out and said so (SessionInputs::dropUnpairable).
class RecordingsPanel : public Panel
{
    Q_OBJECT
public:
    RecordingsPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    QList<Chart> charts() const override;

    // In the background, as the menu action does: the open recording first, then `others`.
    void compare(const QStringList &others);
    // On the calling thread (--screenshot, tests); false and `error` (one line) on failure.
    bool compareSync(const QStringList &others, QString *error = nullptr);

    SideBySideModel *model() const { return m_model; }
    GroupedBarsChart *chart() const { return m_chart; }
    QComboBox *figureBox() const { return m_figure; }
    QString notesText() const;

Q_SIGNALS:
    void comparisonReady(bool ok, const QString &error);

private:
    struct Outcome {
        std::vector<RecordingRuns> recordings;
        QStringList warnings;
        QString error;
    };
    static Outcome compute(const std::shared_ptr<const Session> &open, const Scope &scope, const QStringList &others);
    void show(const Outcome &o);
    void showFigure(int group);

    SideBySideModel *m_model;
    GroupedBarsChart *m_chart;
    QComboBox *m_figure;
    QLabel *m_notes;
    QTableView *m_table;
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
};

} // namespace etscope
