#pragma once

#include "analysis/latencydiff.h"
#include "panel.h"
#include "session/session.h"
#include "sessioncontroller.h"

#include <QElapsedTimer>
#include <QStringList>

#include <memory>

class QDockWidget;

namespace etscope {

class BackgroundJob;
class CompareView;

// Latency A/B in the main window: File ▸ Compare with… (or a Shift-drop) loads recording B in
// the background while A is (or keeps being) the window's session, computes the diff off the
// GUI thread, and shows the compare view in a dock. Selecting a row selects A's event in the
// main window; the compare view shows both sides' stack traces and modules.
class CompareDocks : public Panel
{
    Q_OBJECT
public:
    CompareDocks(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;

    // Background: B is sniffed by content (ETDump + optional debug buffer / ETRecord).
    void compareWith(const QStringList &bFiles);
    // Same on the calling thread (screenshots, tests); A must be loaded.
    bool compareWithSync(const QStringList &bFiles, QString *error = nullptr);

    CompareView *view() const { return m_view; }
    QDockWidget *dock() const { return m_dock; }
    qint64 lastCompareMs() const { return m_lastMs; } // request -> view filled

Q_SIGNALS:
    void comparisonReady(bool ok, const QString &error);

private:
    struct Outcome;
    static Outcome compute(std::shared_ptr<const Session> a, const LoadOutcome &b, const Scope &scope);
    void tryDiff();
    bool composeB(const QStringList &bFiles, SessionInputs *inputs, QString *error) const;
    void show(const Outcome &o);
    void chooseFiles();
    void onSessionChanged(std::shared_ptr<const Session> session);

    CompareView *m_view = nullptr;
    QDockWidget *m_dock = nullptr;
    QAction *m_compareAction = nullptr;
    BackgroundJob *m_job = nullptr; // loads B, then computes the diff
    std::shared_ptr<LoadOutcome> m_loadedB; // B loaded, waiting for A
    bool m_busy = false;
    QElapsedTimer m_clock;
    qint64 m_lastMs = -1;
};

} // namespace etscope
