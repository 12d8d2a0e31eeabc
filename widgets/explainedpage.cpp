#include "explainedpage.h"

#include <QLabel>

namespace etscope {

ExplainedPage::ExplainedPage(QWidget *content, QWidget *parent)
    : QStackedWidget(parent)
    , m_content(content)
    , m_note(new QLabel(this))
{
    m_note->setObjectName(QStringLiteral("ExplainedPageNote"));
    m_note->setAlignment(Qt::AlignCenter);
    m_note->setWordWrap(true);
    m_note->setMargin(12);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    addWidget(content);
    addWidget(m_note);
}

void ExplainedPage::explain(const QString &why)
{
    m_note->setText(why);
    setCurrentWidget(why.isEmpty() ? m_content : static_cast<QWidget *>(m_note));
}

QString ExplainedPage::explanation() const
{
    return currentWidget() == m_note ? m_note->text() : QString();
}

} // namespace etscope
