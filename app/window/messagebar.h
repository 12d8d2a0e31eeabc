#pragma once

#include "sessioncontroller.h"

#include <QFrame>

class QLabel;
class QProgressBar;
class QStatusBar;
class QToolButton;

namespace etscope {

// The one place for news above the table (like KMessageWidget): an info, warning or error line,
// coloured by kind, selectable, dismissed with its ✕.
class MessageBar : public QFrame
{
    Q_OBJECT
public:
    explicit MessageBar(QWidget *parent = nullptr);
    void showMessage(MessageKind kind, const QString &text);
    // Warnings that stay under every newer message until replaced (a session's warnings: a suspect
    // debug buffer or a mismatched ETRecord must not vanish behind the next notice); shown now.
    void setStanding(const QString &text);
    QString text() const; // "" while hidden
    // The error shown now, without the standing warnings under it; "" when none is shown.
    QString error() const;

Q_SIGNALS:
    void dismissed();

private:
    QLabel *m_label;
    QString m_standing;
    MessageKind m_kind = MessageKind::Info;
    QString m_message;
};

// The status bar's loading progress: a bar (0–1000, with the stage) and a Cancel button, shown
// while the controller loads; "Loading …" while it starts.
class LoadProgress : public QObject
{
    Q_OBJECT
public:
    LoadProgress(QStatusBar *statusBar, SessionController *controller);

private:
    QProgressBar *m_bar;
    QToolButton *m_cancel;
};

} // namespace etscope
