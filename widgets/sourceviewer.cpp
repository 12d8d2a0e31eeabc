#include "sourceviewer.h"

#include "pythonhighlighter.h"

#include <QFile>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QVBoxLayout>

namespace etscope {

SourceViewer::SourceViewer(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Source"));
    resize(900, 640);
    m_path = new QLabel(this);
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_editor = new QPlainTextEdit(this);
    m_editor->setReadOnly(true);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new PythonHighlighter(m_editor->document());
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_path);
    layout->addWidget(m_editor, 1);
}

bool SourceViewer::openFile(const QString &path, int line)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    // Source files are small; cap anyway so a mistaken frame path cannot pull in a huge file.
    const QByteArray bytes = file.read(8 * 1024 * 1024);
    m_editor->setPlainText(QString::fromUtf8(bytes));
    m_path->setText(path + QStringLiteral(":") + QString::number(line));
    setWindowTitle(tr("Source — %1").arg(path));

    const QTextBlock block = m_editor->document()->findBlockByNumber(std::max(0, line - 1));
    QTextCursor cursor(block);
    m_editor->setTextCursor(cursor);
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(QColor(0xff, 0xf0, 0xa0));
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = cursor;
    m_editor->setExtraSelections({sel});
    m_editor->centerCursor();
    return true;
}

int SourceViewer::currentLine() const
{
    return m_editor->textCursor().blockNumber() + 1;
}

} // namespace etscope
