#pragma once

#include "panel.h"
#include "session/session.h"

#include <memory>

class QAction;
class QDockWidget;
class QLabel;
class QPushButton;
class QTabWidget;
class QTextBrowser;
class QTreeView;

namespace etscope {

class BackgroundJob;
class SizeModel;
class TreemapWidget;

// "Size": every byte of the session's program (core/program/programsize.h, as `etscope-cli
// size` lists them) — a treemap beside the tree of parts with their bytes and shares, one
// selection for both — and the program compared with another build of the model (File ▸
// Compare Program With…, as `etscope-cli program-diff` computes it, shown with the HTML
// report's section). Without a program it says why it is empty.
class SizePanel : public Panel
{
    Q_OBJECT
public:
    SizePanel(SessionController *controller, EventSelection *selection, QObject *parent = nullptr);
    QList<Dock> docks() const override;
    QList<QAction *> menuActions(Menu menu) const override;
    QList<Chart> charts() const override;

    // The session's program (A) against `programB`: in the background, as the menu action does,
    // or on the calling thread (tests, --screenshot); false and `error` when B cannot be read.
    void compareWith(const QString &programB);
    bool compareWithSync(const QString &programB, QString *error = nullptr);

    SizeModel *model() const { return m_model; }
    TreemapWidget *treemap() const { return m_treemap; }
    QTreeView *tree() const { return m_tree; }
    QTabWidget *tabs() const { return m_tabs; }
    QString statusText() const;
    QString diffHtml() const { return m_diffHtml; }
    QDockWidget *dock() const { return m_dock; }

Q_SIGNALS:
    void sizeReady();
    void diffReady(bool ok);

private:
    struct DiffOutcome {
        QString html; // the report's section; empty on error
        QString error;
        bool comparable = false;
    };
    static DiffOutcome diff(std::shared_ptr<const Program> a, const QString &programB);
    void showDiff(const DiffOutcome &o, const QString &programB);
    void onSessionChanged(std::shared_ptr<const Session> session);
    void ask();

    SizeModel *m_model;
    TreemapWidget *m_treemap;
    QTreeView *m_tree;
    QLabel *m_status;
    QPushButton *m_compare;
    QTextBrowser *m_diff;
    QTabWidget *m_tabs;
    QDockWidget *m_dock;
    QAction *m_compareAction;
    BackgroundJob *m_sizeJob, *m_diffJob;
    std::shared_ptr<const Program> m_program;
    QString m_diffHtml;
};

} // namespace etscope
