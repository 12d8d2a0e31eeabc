#pragma once

#include "analysis/history.h"
#include "panel.h"

#include <QStringList>

#include <memory>
#include <vector>

class QAction;
class QDockWidget;

namespace etscope {

class BackgroundJob;
class HistoryPage;

// "History": many recordings of one program over time (analysis/history.h, docs/history.md) —
// per operator, per method and the total, each recording's p50 with its spread and the change
// points found by E-divisive means. Analysis ▸ History… asks for a folder or files and an
// optional labels CSV and analyses them in the background. A click on a point opens that
// recording as the window's session; a click on a change opens the recording before it and
// compares it with the one after (File ▸ Compare with…'s route).
class HistoryPanel : public Panel
{
    Q_OBJECT
public:
    HistoryPanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    QList<Chart> charts() const override;

    // In the background, as the menu action does.
    void analyze(const QStringList &recordings, const QString &labelsCsv);
    // On the calling thread (--screenshot, tests); false and `error` (one line) on failure.
    bool analyzeSync(const QStringList &recordings, const QString &labelsCsv, QString *error = nullptr);
    HistoryPage *page() const { return m_page; }
    QDockWidget *dock() const { return m_dock; }

Q_SIGNALS:
    void historyReady(bool ok, const QString &error);

private:
    struct Outcome {
        std::vector<std::shared_ptr<const History>> histories;
        QString error;
    };
    static Outcome compute(const QStringList &recordings, const QString &labelsCsv, const TimeConversion &time);
    void show(const Outcome &o);
    void ask();

    HistoryPage *m_page;
    QDockWidget *m_dock;
    QAction *m_action;
    BackgroundJob *m_job;
    QStringList m_lastRecordings;
    QString m_lastLabels;
};

} // namespace etscope
