#include "sourceviewer.h"

#include "pythonhighlighter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QPaintEvent>
#include <QPainter>
#include <QPlainTextEdit>
#include <QTextBlock>
#include <QVBoxLayout>

namespace etscope {

namespace {
// Only to reach the protected viewport margins that make room for the line numbers.
class Editor : public QPlainTextEdit
{
public:
    using QPlainTextEdit::QPlainTextEdit;
    using QPlainTextEdit::setViewportMargins;
};

QList<QPair<QString, QString>> &roots()
{
    static QList<QPair<QString, QString>> r;
    return r;
}
} // namespace

// Line numbers left of the text, painted for the visible blocks only.
class SourceViewer::Gutter : public QWidget
{
public:
    explicit Gutter(QPlainTextEdit *editor)
        : QWidget(editor)
        , m_editor(editor)
    {
        connect(editor, &QPlainTextEdit::blockCountChanged, this, [this] { updateWidth(); });
        connect(editor, &QPlainTextEdit::updateRequest, this, [this](const QRect &r, int dy) {
            if (dy)
                scroll(0, dy);
            else
                update(0, r.y(), width(), r.height());
        });
        editor->installEventFilter(this);
        updateWidth();
    }
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == m_editor && event->type() == QEvent::Resize)
            place();
        return QWidget::eventFilter(watched, event);
    }
    int gutterWidth() const
    {
        const int digits = QString::number(std::max(1, m_editor->blockCount())).size();
        return 12 + m_editor->fontMetrics().horizontalAdvance(QLatin1Char('9')) * std::max(3, digits);
    }
    void updateWidth()
    {
        static_cast<Editor *>(m_editor)->setViewportMargins(gutterWidth(), 0, 0, 0);
        place();
    }
    void place()
    {
        const QRect cr = m_editor->contentsRect();
        setGeometry(QRect(cr.left(), cr.top(), gutterWidth(), cr.height()));
    }
    int target = -1; // 0-based block highlighted

protected:
    void paintEvent(QPaintEvent *event) override
    {
        QPainter p(this);
        p.fillRect(event->rect(), palette().alternateBase());
        // Offsets through the viewport: the editor's own helpers are protected.
        QTextBlock block = m_editor->cursorForPosition(QPoint(0, 0)).block();
        const int offset = m_editor->viewport()->geometry().top() - geometry().top();
        while (block.isValid()) {
            const QRect r = m_editor->cursorRect(QTextCursor(block));
            const int top = r.top() + offset;
            if (top > event->rect().bottom())
                break;
            QFont f = font();
            f.setBold(block.blockNumber() == target);
            p.setFont(f);
            p.setPen(block.blockNumber() == target ? palette().color(QPalette::Text)
                                                   : palette().color(QPalette::PlaceholderText));
            p.drawText(0, top, width() - 6, r.height(), Qt::AlignRight | Qt::AlignVCenter,
                QString::number(block.blockNumber() + 1));
            block = block.next();
        }
    }

private:
    QPlainTextEdit *m_editor;
};

void SourceViewer::setSourceRoots(const QList<QPair<QString, QString>> &r)
{
    roots() = r;
}

QList<QPair<QString, QString>> SourceViewer::sourceRoots()
{
    return roots();
}

QString SourceViewer::resolve(const QString &recordedPath)
{
    if (QFileInfo::exists(recordedPath))
        return recordedPath;
    for (const auto &[recorded, local] : std::as_const(roots())) {
        if (recorded.isEmpty() || !recordedPath.startsWith(recorded))
            continue;
        QString rest = recordedPath.mid(recorded.size());
        while (rest.startsWith(QLatin1Char('/')) || rest.startsWith(QLatin1Char('\\')))
            rest.remove(0, 1);
        const QString candidate = QDir(local).filePath(rest);
        if (QFileInfo::exists(candidate))
            return candidate;
    }
    return {};
}

int SourceViewer::gutterWidth() const
{
    return m_gutter ? m_gutter->width() : 0;
}

SourceViewer::SourceViewer(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Source"));
    resize(900, 640);
    m_path = new QLabel(this);
    m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_editor = new Editor(this);
    m_editor->setReadOnly(true);
    m_editor->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_editor->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new PythonHighlighter(m_editor->document());
    m_gutter = new Gutter(m_editor);
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
    m_editor->setExtraSelections({ sel });
    m_gutter->target = block.blockNumber();
    m_gutter->updateWidth();
    m_gutter->show();
    // Centred once the editor has its final size (on show), and now for callers that never show it.
    m_editor->centerCursor();
    QMetaObject::invokeMethod(
        m_editor, [e = m_editor] { e->centerCursor(); }, Qt::QueuedConnection);
    return true;
}

int SourceViewer::currentLine() const
{
    return m_editor->textCursor().blockNumber() + 1;
}

} // namespace etscope
