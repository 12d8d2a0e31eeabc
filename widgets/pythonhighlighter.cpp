#include "pythonhighlighter.h"

namespace etscope {

namespace {
QTextCharFormat makeFormat(const QColor &color, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(color);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}
} // namespace

PythonHighlighter::PythonHighlighter(QTextDocument *parent)
    : QSyntaxHighlighter(parent)
{
    const QString keywords = QStringLiteral(
        "and|as|assert|async|await|break|class|continue|def|del|elif|else|except|finally|for|from|global|if|"
        "import|in|is|lambda|nonlocal|not|or|pass|raise|return|try|while|with|yield|None|True|False|self");
    m_rules.append({ QRegularExpression(QStringLiteral("\\b(") + keywords + QStringLiteral(")\\b")),
        makeFormat(QColor(0x1f, 0x4e, 0xa8), true) });
    m_rules.append({ QRegularExpression(QStringLiteral("\\b(print|len|range|super|isinstance|torch|nn|F)\\b")),
        makeFormat(QColor(0x7a, 0x3e, 0x9d)) });
    m_rules.append({ QRegularExpression(QStringLiteral("\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b")),
        makeFormat(QColor(0x0b, 0x7a, 0x75)) });
    m_rules.append({ QRegularExpression(QStringLiteral("^\\s*@[A-Za-z_.]+")), makeFormat(QColor(0xa0, 0x60, 0x00)) });
    m_rules.append({ QRegularExpression(QStringLiteral(R"("[^"\\]*(\\.[^"\\]*)*"|'[^'\\]*(\\.[^'\\]*)*')")),
        makeFormat(QColor(0x2e, 0x7d, 0x32)) });
    m_rules.append(
        { QRegularExpression(QStringLiteral("#[^\\n]*")), makeFormat(QColor(0x80, 0x80, 0x80), false, true) });
}

void PythonHighlighter::highlightBlock(const QString &text)
{
    for (const Rule &rule : std::as_const(m_rules)) {
        auto it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const auto m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), rule.format);
        }
    }
}

} // namespace etscope
