#pragma once

#include <QStackedWidget>

class QLabel;

namespace etscope {

// A tab's content, or one sentence saying why it has none ("No ETRecord: stack traces come from
// the ETRecord …"), so that no tab sits empty without a word.
class ExplainedPage : public QStackedWidget
{
    Q_OBJECT
public:
    explicit ExplainedPage(QWidget *content, QWidget *parent = nullptr);
    // Shows `why` instead of the content; an empty `why` shows the content.
    void explain(const QString &why);
    QString explanation() const; // "" while the content shows
    QWidget *content() const { return m_content; }

private:
    QWidget *m_content;
    QLabel *m_note;
};

} // namespace etscope
