#pragma once

#include "sessioncontroller.h"

#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <functional>

class QMainWindow;
namespace etscope {
struct Session;
}
class QMenu;
class QWidget;

namespace etscope {

// The window's small modal dialogs and menus, kept out of MainWindow.

// "recorded prefix = local folder" lines of the Source Roots setting.
QList<QPair<QString, QString>> parseSourceRoots(const QStringList &lines);
// View ▸ Source Roots…: edits the mapping (saved to QSettings "sourceRoots" when `persist`).
// `unresolved`: folders of recorded stack frames that exist neither as recorded nor mapped
// (offered as prefixes to map; Browse… picks the local folder).
void editSourceRoots(QWidget *parent, bool persist, const QStringList &unresolved = {});
// The folders of the session's stack frames whose files cannot be found here, most frames first.
QStringList unresolvedSourceFolders(const Session *session);
// Loads the saved mapping into the source viewer.
void loadSourceRoots();

// Every shortcut of the window's actions, "Ctrl+O\tOpen…" per line, sorted.
QString shortcutsText(const QWidget *window);
// Help ▸ Keyboard Shortcuts.
void showShortcuts(QWidget *window);
// Help ▸ About etscope.
void showAbout(QWidget *parent);
// The Help menu (Keyboard Shortcuts, About etscope, About Qt), added last to the menu bar.
QMenu *addHelpMenu(QMainWindow *window);

// File ▸ Open Recent: one entry per set (files joined by '\n'), named by the ETDump's folder and
// file names, full paths in the tooltip; `open` gets the set's files.
void fillRecentMenu(QMenu *menu, const QStringList &recent, const std::function<void(const QStringList &)> &open);

// A yes/no question box over `parent`, for SessionController::setConfirmer.
SessionController::Confirmer dialogConfirmer(QWidget *parent);

} // namespace etscope
