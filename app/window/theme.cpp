#include "theme.h"

#include <QApplication>
#include <QProcess>
#include <QStyleFactory>

namespace etscope {

namespace {
bool paletteIsDark(const QPalette &p)
{
    return p.color(QPalette::Window).lightness() < 128;
}
} // namespace

bool systemPrefersDark()
{
    const QString forced = qEnvironmentVariable("ETSCOPE_COLOR_SCHEME").toLower();
    if (forced == QLatin1String("dark"))
        return true;
    if (forced == QLatin1String("light"))
        return false;
    const QString gtk = qEnvironmentVariable("GTK_THEME").toLower();
    if (!gtk.isEmpty())
        return gtk.contains(QLatin1String(":dark")) || gtk.endsWith(QLatin1String("-dark"));
    // GNOME ≥ 42 and the XDG portal key; a missing gsettings simply fails to start.
    QProcess gsettings;
    gsettings.start(QStringLiteral("gsettings"),
        { QStringLiteral("get"), QStringLiteral("org.gnome.desktop.interface"), QStringLiteral("color-scheme") });
    if (gsettings.waitForFinished(500) && gsettings.exitCode() == 0)
        if (QString::fromUtf8(gsettings.readAllStandardOutput()).contains(QLatin1String("dark")))
            return true;
    return paletteIsDark(QApplication::palette());
}

QPalette darkPalette()
{
    QPalette p;
    const QColor window(0x2b, 0x2d, 0x31), base(0x1e, 0x1f, 0x22), text(0xe6, 0xe6, 0xe6), disabled(0x80, 0x80, 0x80);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x28, 0x2c));
    p.setColor(QPalette::ToolTipBase, QColor(0x32, 0x34, 0x39));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x60, 0x60));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3c, 0x41));
    p.setColor(QPalette::Midlight, QColor(0x33, 0x35, 0x3a));
    p.setColor(QPalette::Mid, QColor(0x4a, 0x4c, 0x52));
    p.setColor(QPalette::Dark, QColor(0x18, 0x19, 0x1b));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::Highlight, QColor(0x3b, 0x82, 0xc4));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    p.setColor(QPalette::LinkVisited, QColor(0xb0, 0x8c, 0xff));
    for (auto role : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
        p.setColor(QPalette::Disabled, role, disabled);
    return p;
}

bool applySystemColorScheme()
{
    if (!systemPrefersDark() || paletteIsDark(QApplication::palette()))
        return false;
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    QApplication::setPalette(darkPalette());
    return true;
}

} // namespace etscope
