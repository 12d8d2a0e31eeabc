#include "messagebar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QStatusBar>
#include <QToolButton>

namespace etscope {

MessageBar::MessageBar(QWidget *parent)
    : QFrame(parent)
    , m_label(new QLabel(this))
{
    setFrameShape(QFrame::StyledPanel);
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *close = new QToolButton(this);
    close->setAutoRaise(true);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        Q_EMIT dismissed();
    });
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_label, 1);
    layout->addWidget(close);
    hide();
}

void MessageBar::setStanding(const QString &text)
{
    m_standing = text;
    if (!text.isEmpty())
        showMessage(MessageKind::Warning, text);
}

void MessageBar::showMessage(MessageKind kind, const QString &message)
{
    m_kind = kind;
    m_message = message;
    const bool addStanding = !m_standing.isEmpty() && !message.contains(m_standing);
    const QString text = addStanding ? message + QLatin1Char('\n') + m_standing : message;
    if (addStanding && kind == MessageKind::Info)
        kind = MessageKind::Warning;
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    switch (kind) {
    case MessageKind::Warning: // loud, in the desktop's brightness
        setStyleSheet(dark
                ? QStringLiteral("QFrame { background: #4a3b10; border: 1px solid #8a7020; border-radius: 3px; }"
                                 " QLabel { border: none; color: #ffe9a8; }")
                : QStringLiteral("QFrame { background: #fff3cd; border: 1px solid #e0c060; border-radius: 3px; }"
                                 " QLabel { border: none; color: #5c4400; }"));
        break;
    case MessageKind::Error:
        setStyleSheet(QStringLiteral("QFrame { background: #fbe3e3; border: 1px solid #e0a0a0; border-radius: 3px; }"
                                     " QLabel { border: none; color: #6b1010; }"));
        break;
    default:
        setStyleSheet(QStringLiteral("QFrame { background: #e6f0fb; border: 1px solid #a9c5e8; border-radius: 3px; }"
                                     " QLabel { border: none; color: #14365e; }"));
    }
    m_label->setText(text);
    m_label->setToolTip(text);
    show();
}

QString MessageBar::error() const
{
    return !isHidden() && m_kind == MessageKind::Error ? m_message : QString();
}

QString MessageBar::text() const
{
    return isHidden() ? QString() : m_label->text();
}

LoadProgress::LoadProgress(QStatusBar *statusBar, SessionController *controller)
    : QObject(statusBar)
    , m_bar(new QProgressBar(statusBar))
    , m_cancel(new QToolButton(statusBar))
{
    m_bar->setRange(0, 1000);
    m_bar->setMaximumWidth(260);
    m_bar->setTextVisible(true);
    m_bar->hide();
    m_cancel->setText(tr("Cancel"));
    m_cancel->hide();
    connect(m_cancel, &QToolButton::clicked, controller, &SessionController::cancel);
    statusBar->addPermanentWidget(m_bar);
    statusBar->addPermanentWidget(m_cancel);
    connect(controller, &SessionController::loadStarted, this, [this, statusBar](const QString &etdump) {
        m_bar->setValue(0);
        m_bar->setFormat(tr("reading %p%"));
        m_bar->show();
        m_cancel->show();
        statusBar->showMessage(tr("Loading %1…").arg(etdump));
    });
    connect(controller, &SessionController::loadProgress, this, [this](int permille, const QString &stage) {
        m_bar->setValue(permille);
        m_bar->setFormat(stage + QStringLiteral(" %p%"));
    });
    connect(controller, &SessionController::loadFinished, this, [this, statusBar](bool ok) {
        m_bar->hide();
        m_cancel->hide();
        if (ok)
            statusBar->clearMessage();
    });
}

} // namespace etscope
