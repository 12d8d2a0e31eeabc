#pragma once

#include <QPalette>
#include <QString>

namespace etscope {

// Follows the desktop's light/dark preference. Qt 6.4 has no colour-scheme API, so the
// preference is read from (first match wins): ETSCOPE_COLOR_SCHEME=dark|light, GTK_THEME
// ("Adwaita:dark"), the GNOME/XDG setting color-scheme=prefer-dark, and finally the palette
// the platform theme already gave (KDE and qt6ct hand over a dark palette themselves).
bool systemPrefersDark();
// Fusion colours for dark mode, readable with the app's charts and highlights.
QPalette darkPalette();
// Applies darkPalette() with the Fusion style when the system prefers dark and the platform
// palette is still light. Returns true when it switched.
bool applySystemColorScheme();

} // namespace etscope
