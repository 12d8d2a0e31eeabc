#pragma once

#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QStringList>

namespace etscope::test {

// Empty when the tags of `html` balance: every element closed, in order (void elements such as
// <meta> and self-closed SVG elements such as <rect/> aside; <script> and <style> content
// skipped). Otherwise the first mismatch. What html.parser-based checks would report as unbalanced.
inline QString tagBalanceError(const QString &html)
{
    static const QSet<QString> kVoid { u"meta"_qs, u"br"_qs, u"img"_qs, u"input"_qs, u"link"_qs, u"hr"_qs };
    static const QRegularExpression tag(u"<(/?)([a-zA-Z][a-zA-Z0-9]*)([^>]*)>"_qs);
    QStringList stack;
    qsizetype pos = 0;
    while (true) {
        const auto m = tag.match(html, pos);
        if (!m.hasMatch())
            break;
        pos = m.capturedEnd();
        const QString name = m.captured(2).toLower();
        const bool closing = !m.captured(1).isEmpty();
        if (closing) {
            if (stack.isEmpty() || stack.last() != name)
                return QStringLiteral("</%1> at %2 closes <%3>")
                    .arg(name)
                    .arg(m.capturedStart())
                    .arg(stack.isEmpty() ? QString() : stack.last());
            stack.removeLast();
            continue;
        }
        if (kVoid.contains(name) || m.captured(3).endsWith(u'/'))
            continue;
        if (name == u"script"_qs || name == u"style"_qs) {
            const auto end = html.indexOf(QStringLiteral("</%1>").arg(name), pos);
            if (end < 0)
                return u"unclosed "_qs + name;
            pos = end + name.size() + 3;
            continue;
        }
        stack.append(name);
    }
    return stack.isEmpty() ? QString() : u"unclosed: "_qs + stack.join(u' ');
}

} // namespace etscope::test
