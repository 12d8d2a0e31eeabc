#include "common/memory.h"
#include "comparedocks.h"
#include "compareview.h"
#include "eventtableview.h"
#include "filesniffer.h"
#include "gapdocks.h"
#include "graphdock.h"
#include "graphview.h"
#include "historypanel.h"
#include "mainwindow.h"
#include "recordingspanel.h"
#include "theme.h"
#include "timecontrols.h"

#include "etdump/etdumpfile.h"
#include "qtstrings.h"
#include "savefile.h"

#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QFileInfo>
#include <QPixmap>
#include <QTreeView>

#include <cstdio>
#include <string_view>

namespace {

// Renders the window once the files are loaded; exit status tells scripts whether it worked.
int takeScreenshot(const QString &out, const QString &select, const QString &unit, QSize windowSize,
    const QStringList &files, const QStringList &reference, const QStringList &compareFiles, const QStringList &history,
    const QString &labels, const QStringList &sideBySide)
{
    etscope::MainWindow::Options options;
    options.persistSettings = false;
    etscope::MainWindow window(options);
    if (auto t = etscope::parseTimeScale(unit.toStdString()))
        window.timeControls()->setTargetUnit(*t);
    window.resize(windowSize); // by default 1500×920: what a user sees first
    window.show();
    QString error;
    QList<QStringList> recordings = etscope::splitRecordings(files);
    QStringList compare = compareFiles;
    if (recordings.size() > 1 && compare.isEmpty())
        compare = recordings.takeAt(1); // two ETDumps: a comparison, as in the window
    const QStringList sessionFiles = recordings.value(0);
    if (!sessionFiles.isEmpty() && !window.controller()->openFilesSync(sessionFiles, &error)) {
        std::fprintf(stderr, "etscope: %s\n", qPrintable(error));
        return 1;
    }
    if (!reference.isEmpty() && !window.gapDocks()->compareWith(reference, &error)) {
        std::fprintf(stderr, "etscope: %s\n", qPrintable(error));
        return 1;
    }
    if (!select.isEmpty() && !window.table()->selectEventByName(select)) {
        std::fprintf(stderr, "etscope: no event named '%s' in %s\n", qPrintable(select),
            qPrintable(files.join(QStringLiteral(", "))));
        return 1;
    }
    if (!history.isEmpty() && !window.historyPanel()->analyzeSync(history, labels, &error)) {
        std::fprintf(stderr, "etscope: %s\n", qPrintable(error));
        return 1;
    }
    if (!sideBySide.isEmpty() && !window.findChild<etscope::RecordingsPanel *>()->compareSync(sideBySide, &error)) {
        std::fprintf(stderr, "etscope: %s\n", qPrintable(error));
        return 1;
    }
    QWidget *target = &window;
    if (!compare.isEmpty()) {
        etscope::CompareDocks *cmp = window.compareDocks();
        if (!cmp->compareWithSync(compare, &error)) {
            std::fprintf(stderr, "etscope: %s\n", qPrintable(error));
            return 1;
        }
        // The compare view alone, at window size (docked it would share the window with the rest).
        cmp->dock()->setFloating(true);
        cmp->dock()->resize(windowSize);
        if (!select.isEmpty())
            for (int i = 0; i < int(cmp->view()->diff()->rows.size()); ++i)
                if (cmp->view()->diff()->rows[size_t(i)].eventName == select.toStdString()) {
                    cmp->view()->selectRow(i);
                    break;
                }
        target = cmp->view();
    }
    window.graphDock()->view()->waitForLayout(); // the graph lays out in the background
    QApplication::processEvents();
    const QPixmap pixmap = target->grab();
    QByteArray png;
    QBuffer buffer(&png);
    const QString failed = buffer.open(QIODevice::WriteOnly) && pixmap.save(&buffer, "PNG")
        ? etscope::saveFile(out, png)
        : out + QStringLiteral(": cannot encode the screenshot as PNG");
    if (!failed.isEmpty()) {
        std::fprintf(stderr, "etscope: cannot write the screenshot: %s\n", qPrintable(failed));
        return 1;
    }
    return 0;
}

// --help and --version only print; they must work without a display (over ssh, in CI), so they
// get the offscreen platform unless the user chose one.
bool onlyPrints(int argc, char **argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--")
            break;
        if (arg == "-h" || arg == "--help" || arg == "-?" || arg == "--help-all" || arg == "-v" || arg == "--version")
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char **argv)
{
    etscope::reexecWithHeapTunables(argv);
    if (onlyPrints(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("etscope"));
    QApplication::setApplicationName(QStringLiteral("etscope"));
    QApplication::setApplicationVersion(QStringLiteral(ETSCOPE_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("io.github.etscope.etscope"));
    if (!onlyPrints(argc, argv))
        etscope::applySystemColorScheme(); // dark when the desktop is dark

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Inspector for ExecuTorch ETDump, debug buffer, ETRecord and BundledProgram files"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption screenshot(QStringLiteral("screenshot"),
        QStringLiteral("Load FILEs, render the main window to OUT.png and exit."), QStringLiteral("OUT.png"));
    const QCommandLineOption select(QStringLiteral("select"),
        QStringLiteral("With --screenshot: select the first event with this name."), QStringLiteral("EVENT_NAME"));
    const QCommandLineOption size(QStringLiteral("size"),
        QStringLiteral("With --screenshot: the window size in logical pixels (default 1500x920)."),
        QStringLiteral("WxH"));
    const QCommandLineOption unit(
        QStringLiteral("unit"), QStringLiteral("Display unit: ns, us, ms, s or cycles."), QStringLiteral("UNIT"));
    const QCommandLineOption reference(QStringLiteral("reference"),
        QStringLiteral("Reference for the numeric gap: a second ETDump and its debug buffer, or an AOT "
                       "outputs file (repeat for several files)."),
        QStringLiteral("FILE"));
    const QCommandLineOption compare(QStringLiteral("compare"),
        QStringLiteral("Compare the latency of FILEs (A) with this recording (B): an ETDump, optionally "
                       "with its ETRecord / debug buffer (repeat the option)."),
        QStringLiteral("FILE"));
    const QCommandLineOption history(QStringLiteral("history"),
        QStringLiteral("Show the History panel of these recordings: a folder (searched for *.etdp) or files "
                       "(repeat the option)."),
        QStringLiteral("PATH"));
    const QCommandLineOption labels(QStringLiteral("labels"),
        QStringLiteral("With --history: a CSV with columns file,label[,order] naming and ordering the recordings."),
        QStringLiteral("CSV"));
    const QCommandLineOption sideBySide(QStringLiteral("side-by-side"),
        QStringLiteral("Put these recordings (other devices or backends of the model) beside the open one: "
                       "Recordings side by side (repeat the option)."),
        QStringLiteral("FILE"));
    parser.addOption(sideBySide);
    parser.addOption(reference);
    parser.addOption(compare);
    parser.addOption(history);
    parser.addOption(labels);
    parser.addOption(screenshot);
    parser.addOption(select);
    parser.addOption(size);
    parser.addOption(unit);
    parser.addPositionalArgument(QStringLiteral("FILE"),
        QStringLiteral("ETDump and companion files, recognised by content."), QStringLiteral("[FILE…]"));
    parser.process(app);

    if (parser.isSet(screenshot)) {
        if (parser.positionalArguments().isEmpty() && !parser.isSet(history)) {
            std::fprintf(stderr, "etscope: --screenshot needs at least one FILE (or --history)\n");
            return 2;
        }
        QSize windowSize(1500, 920);
        if (parser.isSet(size)) {
            const QStringList wh = parser.value(size).split(QLatin1Char('x'));
            windowSize = wh.size() == 2 ? QSize(wh[0].toInt(), wh[1].toInt()) : QSize();
            if (windowSize.width() < 320 || windowSize.height() < 240) {
                std::fprintf(
                    stderr, "etscope: --size %s: expected WxH, at least 320x240\n", qPrintable(parser.value(size)));
                return 2;
            }
        }
        return takeScreenshot(parser.value(screenshot), parser.value(select), parser.value(unit), windowSize,
            parser.positionalArguments(), parser.values(reference), parser.values(compare), parser.values(history),
            parser.value(labels), parser.values(sideBySide));
    }

    etscope::MainWindow window;
    etscope::SessionController *controller = window.controller();
    if (const QStringList ref = parser.values(reference); !ref.isEmpty())
        QObject::connect(
            controller, &etscope::SessionController::loadFinished, window.gapDocks(),
            [gap = window.gapDocks(), ref](bool ok) {
                QString error;
                if (ok && !gap->compareWith(ref, &error))
                    std::fprintf(stderr, "etscope: %s\n", qPrintable(error));
            },
            Qt::SingleShotConnection);
    if (const QStringList others = parser.values(sideBySide); !others.isEmpty())
        QObject::connect(
            controller, &etscope::SessionController::loadFinished, &window,
            [&window, others](bool ok) {
                if (ok)
                    window.findChild<etscope::RecordingsPanel *>()->compare(others);
            },
            Qt::SingleShotConnection);
    if (auto t = etscope::parseTimeScale(parser.value(unit).toStdString()))
        window.timeControls()->setTargetUnit(*t);
    window.show();
    // Two ETDumps on the command line: the second recording is B of a comparison, never dropped.
    QStringList b = parser.values(compare);
    QList<QStringList> recordings = etscope::splitRecordings(parser.positionalArguments());
    if (recordings.size() > 1 && b.isEmpty())
        b = recordings.takeAt(1);
    for (int i = 1; i < recordings.size(); ++i)
        std::fprintf(stderr, "etscope: only two recordings are compared; ignored: %s\n",
            qPrintable(recordings[i].join(QStringLiteral(", "))));
    if (!recordings.isEmpty() && !recordings.first().isEmpty())
        controller->openFiles(recordings.first());
    if (!b.isEmpty())
        window.compareDocks()->compareWith(b); // loads B while A loads
    if (parser.isSet(history))
        window.historyPanel()->analyze(parser.values(history), parser.value(labels));
    return app.exec();
}
