#include "dialogs.h"
#include "qtstrings.h"

#include "common/pathnames.h"

#include "session/session.h"
#include "sourceviewer.h"
#include "stacktrace.h"

#include "etdump/etdumpfile.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMainWindow>
#include <QMap>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSet>
#include <QSettings>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace etscope {

QList<QPair<QString, QString>> parseSourceRoots(const QStringList &lines)
{
    QList<QPair<QString, QString>> out;
    for (const QString &line : lines) {
        const int eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0)
            continue;
        const QString recorded = line.left(eq).trimmed(), local = line.mid(eq + 1).trimmed();
        if (!recorded.isEmpty() && !local.isEmpty())
            out.append({ recorded, local });
    }
    return out;
}

void loadSourceRoots()
{
    SourceViewer::setSourceRoots(parseSourceRoots(QSettings().value(QStringLiteral("sourceRoots")).toStringList()));
}

QStringList unresolvedSourceFolders(const Session *session)
{
    if (!session)
        return {};
    QMap<QString, int> frames; // folder -> frames in it that cannot be opened here
    QSet<QString> seenTraces;
    for (const EventBlock &b : session->blocks)
        for (const Event &e : b.events)
            for (const LinkedNode &n : e.linkedNodes()) {
                if (!n.stackTrace)
                    continue;
                const QString trace = toQString(*n.stackTrace);
                if (seenTraces.contains(trace))
                    continue;
                seenTraces.insert(trace);
                for (const StackFrame &f : parsePythonTraceback(trace))
                    if (!f.file.isEmpty() && SourceViewer::resolve(f.file).isEmpty())
                        ++frames[QFileInfo(f.file).path()];
            }
    QList<QPair<int, QString>> byCount;
    for (auto it = frames.cbegin(); it != frames.cend(); ++it)
        byCount.append({ -it.value(), it.key() });
    std::sort(byCount.begin(), byCount.end());
    QStringList out;
    for (const auto &[count, folder] : byCount)
        out << folder;
    return out;
}

void editSourceRoots(QWidget *parent, bool persist, const QStringList &unresolved)
{
    QDialog dialog(parent);
    dialog.setWindowTitle(QObject::tr("Source roots"));
    auto *help = new QLabel(QObject::tr("One mapping per line: <i>recorded prefix</i> = <i>local folder</i><br/>"
                                        "e.g. <tt>/home/dev/models = /Users/me/src/models</tt>"),
        &dialog);
    auto *edit = new QPlainTextEdit(&dialog);
    QStringList lines;
    for (const auto &[recorded, local] : SourceViewer::sourceRoots())
        lines << recorded + QStringLiteral(" = ") + local;
    edit->setPlainText(lines.join(QLatin1Char('\n')));
    // The recorded folders that no file here answers, to map one of them to a local folder.
    auto *prefixRow = new QHBoxLayout;
    auto *prefix = new QComboBox(&dialog);
    prefix->setEditable(true);
    prefix->addItems(unresolved);
    prefix->setToolTip(QObject::tr("Recorded folders whose source files cannot be found here"));
    auto *browse = new QPushButton(QObject::tr("Browse…"), &dialog);
    browse->setToolTip(QObject::tr("Choose the local folder the recorded folder maps to"));
    prefixRow->addWidget(new QLabel(unresolved.isEmpty() ? QObject::tr("Recorded folder:")
                                                         : QObject::tr("Not found here (%1):").arg(unresolved.size()),
        &dialog));
    prefixRow->addWidget(prefix, 1);
    prefixRow->addWidget(browse);
    QObject::connect(browse, &QPushButton::clicked, &dialog, [&dialog, edit, prefix] {
        const QString local
            = QFileDialog::getExistingDirectory(&dialog, QObject::tr("Local folder for %1").arg(prefix->currentText()));
        if (local.isEmpty() || prefix->currentText().trimmed().isEmpty())
            return;
        edit->appendPlainText(prefix->currentText().trimmed() + QStringLiteral(" = ") + local);
    });
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(help);
    layout->addWidget(edit, 1);
    layout->addLayout(prefixRow);
    layout->addWidget(buttons);
    dialog.resize(560, 300);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const QStringList entries = edit->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    SourceViewer::setSourceRoots(parseSourceRoots(entries));
    if (persist)
        QSettings().setValue(QStringLiteral("sourceRoots"), entries);
}

QString shortcutsText(const QWidget *window)
{
    QStringList lines;
    const auto actions = window->findChildren<QAction *>();
    for (const QAction *a : actions)
        if (!a->shortcut().isEmpty())
            lines << a->shortcut().toString(QKeySequence::NativeText) + QLatin1Char('\t')
                    + QString(a->text()).remove(QLatin1Char('&'));
    lines << QObject::tr("Drop files\tOpen an ETDump with its companions");
    lines << QObject::tr("Wheel / drag\tZoom / pan the timeline");
    // The graph view's own keys (it handles them itself, they are no actions).
    lines << QObject::tr("Graph: arrow keys\tMove the selection along the edges");
    lines << QObject::tr("Graph: + / −, wheel\tZoom");
    lines << QObject::tr("Graph: F\tFit the graph");
    lines << QObject::tr("Graph: Enter / Space\tOpen the selected node, expand or collapse a module");
    lines << QObject::tr("Graph: Shift+Enter\tCollapse the module around the selected node");
    lines << QObject::tr("Graph: double-click\tExpand or collapse a module");
    lines.sort();
    lines.removeDuplicates();
    return lines.join(QLatin1Char('\n'));
}

void showAbout(QWidget *parent)
{
    QMessageBox::about(parent, QObject::tr("About etscope"),
        QObject::tr("<h3>etscope %1</h3>"
                    "<p>Native inspector for ExecuTorch ETDump, debug buffer, ETRecord and BundledProgram files.</p>"
                    "<p>ETDump reader: %2<br/>Qt %3 (built against %4)</p>"
                    "<p>Drop files anywhere on the window. Ctrl+O opens, Ctrl+F filters, Ctrl+E exports the table.</p>")
            .arg(QCoreApplication::applicationVersion(), QString::fromUtf8(etdumpSchemaDescription()),
                QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)));
}

void showShortcuts(QWidget *window)
{
    QDialog dialog(window);
    dialog.setWindowTitle(QObject::tr("Keyboard shortcuts"));
    // Two columns, so a long key ("Ctrl+Shift+O") never runs into its action.
    auto *table = new QTreeWidget(&dialog);
    table->setObjectName(QStringLiteral("ShortcutsTable"));
    table->setRootIsDecorated(false);
    table->setHeaderLabels({ QObject::tr("Key"), QObject::tr("Does") });
    for (const QString &line : shortcutsText(window).split(QLatin1Char('\n')))
        new QTreeWidgetItem(table, line.split(QLatin1Char('\t')));
    table->resizeColumnToContents(0);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto *layout = new QVBoxLayout(&dialog);
    layout->addWidget(table);
    layout->addWidget(buttons);
    dialog.resize(620, 520);
    dialog.exec();
}

QMenu *addHelpMenu(QMainWindow *window)
{
    QMenu *help = window->menuBar()->addMenu(QObject::tr("&Help"));
    QObject::connect(help->addAction(QObject::tr("&Keyboard Shortcuts")), &QAction::triggered, window,
        [window] { showShortcuts(window); });
    auto *about = help->addAction(QObject::tr("&About etscope"));
    about->setShortcut(QKeySequence::HelpContents);
    QObject::connect(about, &QAction::triggered, window, [window] { showAbout(window); });
    QObject::connect(help->addAction(QObject::tr("About &Qt")), &QAction::triggered, qApp, &QApplication::aboutQt);
    return help;
}

void fillRecentMenu(QMenu *menu, const QStringList &recent, const std::function<void(const QStringList &)> &open)
{
    menu->clear();
    // Runs are often all called etdump.etdp and buffers debug_output.bin: every file is named by
    // the shortest part of its path that no other file of the list shares, so that two sets that
    // differ in any file read differently.
    std::vector<std::string> paths;
    for (const QString &entry : recent)
        for (const QString &f : entry.split(QLatin1Char('\n')))
            if (std::find(paths.begin(), paths.end(), f.toStdString()) == paths.end())
                paths.push_back(f.toStdString());
    const std::vector<std::string> distinct = distinguishingNames(paths);
    auto nameOf = [&](const QString &f) {
        const auto it = std::find(paths.begin(), paths.end(), f.toStdString());
        return toQString(distinct[std::size_t(it - paths.begin())]);
    };
    for (const QString &entry : recent) {
        const QStringList files = entry.split(QLatin1Char('\n'));
        QStringList names;
        for (const QString &f : files)
            names << nameOf(f);
        QAction *a = menu->addAction(names.join(QStringLiteral(" + ")));
        a->setToolTip(files.join(QLatin1Char('\n')));
        QObject::connect(a, &QAction::triggered, menu, [open, files] { open(files); });
    }
    menu->setEnabled(!recent.isEmpty());
}

SessionController::Confirmer dialogConfirmer(QWidget *parent)
{
    return [parent](const QString &title, const QString &text, SessionController::DefaultAnswer defaultAnswer) {
        return QMessageBox::question(parent, title, text, QMessageBox::Yes | QMessageBox::No,
                   defaultAnswer == SessionController::DefaultAnswer::Yes ? QMessageBox::Yes : QMessageBox::No)
            == QMessageBox::Yes;
    };
}

} // namespace etscope
