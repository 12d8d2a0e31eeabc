// BackgroundJob: the one way the GUI runs work off its thread. A newer job supersedes an older
// one (only the newest result arrives), cancel() drops the result, progress arrives on the
// owner's thread, and waitForFinished() really waits for a cancelled job.
#include "backgroundjob.h"
#include "treeviewutil.h"

#include <QHeaderView>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QThread>
#include <QTreeView>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <thread>

using namespace etscope;
using namespace std::chrono_literals;

class TstBackgroundJob : public QObject
{
    Q_OBJECT
private slots:
    void newestResultOnly()
    {
        BackgroundJob job;
        std::atomic<bool> release { false };
        QList<int> results;
        // The first job blocks until released, long after the second was started.
        job.start(
            [&release](BackgroundJob::Control &) {
                while (!release)
                    std::this_thread::sleep_for(1ms);
                return 1;
            },
            [&results](int r) { results << r; });
        const quint64 second
            = job.start([](BackgroundJob::Control &) { return 2; }, [&results](int r) { results << r; });
        QCOMPARE(job.currentId(), second);
        QTRY_COMPARE(results, QList<int> { 2 });
        release = true;
        job.waitForFinished();
        QTest::qWait(50); // a late result of the first job would arrive here
        QCOMPARE(results, QList<int> { 2 });
        QVERIFY(!job.isRunning());
    }

    void cancelDropsTheResultAndWaits()
    {
        BackgroundJob job;
        std::atomic<bool> sawCancel { false };
        bool done = false;
        job.start(
            [&sawCancel](BackgroundJob::Control &c) {
                while (c.setProgress(10))
                    std::this_thread::sleep_for(1ms);
                sawCancel = c.isCancelled() && c.cancelFlag()->load();
                return 0;
            },
            [&done](int) { done = true; });
        QVERIFY(job.isRunning());
        QVERIFY(job.cancel());
        QVERIFY(!job.cancel()); // nothing left to cancel
        job.waitForFinished();
        QVERIFY(sawCancel); // the work saw the flag and returned before waitForFinished did
        QTest::qWait(50);
        QVERIFY(!done);
    }

    void progressOnTheOwnersThread()
    {
        BackgroundJob job;
        QSignalSpy progress(&job, &BackgroundJob::progress);
        QThread *owner = QThread::currentThread();
        QThread *seen = nullptr;
        connect(&job, &BackgroundJob::progress, this, [&seen] { seen = QThread::currentThread(); });
        bool done = false;
        job.start(
            [](BackgroundJob::Control &c) {
                c.setProgress(500, QStringLiteral("half"));
                std::this_thread::sleep_for(20ms); // let the watcher deliver it before finishing
                c.setProgress(1000, QStringLiteral("all"));
                return 0;
            },
            [&done](int) { done = true; });
        QTRY_VERIFY(done);
        QVERIFY(progress.size() >= 1);
        QCOMPARE(seen, owner);
        const int last = progress.last().at(0).toInt();
        QVERIFY2(last == 500 || last == 1000, qPrintable(QString::number(last)));
    }

    // Ctrl+C on any tree: header line, then the selected rows top to bottom, visible columns
    // in view order (a column moved to the front comes first; a hidden one is left out).
    void copyRowsAsTsv()
    {
        QStandardItemModel model(3, 3);
        model.setHorizontalHeaderLabels({ QStringLiteral("name"), QStringLiteral("avg"), QStringLiteral("note") });
        const char *cells[3][3] = { { "conv", "0.5", "a\tb" }, { "relu", "0.1", "x" }, { "add", "0.2", "y" } };
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                model.setItem(r, c, new QStandardItem(QString::fromLatin1(cells[r][c])));
        QTreeView tree;
        tree.setModel(&model);
        TreeViewUtil::addCopyAndColumnActions(&tree, 0, 0);
        tree.resize(400, 300);
        tree.show();
        QVERIFY(QTest::qWaitForWindowExposed(&tree));
        QCOMPARE(tree.selectionMode(), QAbstractItemView::ExtendedSelection);
        tree.header()->moveSection(1, 0); // avg first
        // Selected bottom row first: the copy is still in display order.
        tree.selectionModel()->select(model.index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        tree.selectionModel()->select(model.index(0, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QCOMPARE(
            TreeViewUtil::selectedRowsAsTsv(&tree), QStringLiteral("avg\tname\tnote\n0.5\tconv\ta b\n0.2\tadd\ty\n"));
        tree.header()->setSectionHidden(2, true);
        QCOMPARE(TreeViewUtil::selectedRowsAsTsv(&tree), QStringLiteral("avg\tname\n0.5\tconv\n0.2\tadd\n"));
    }
};

QTEST_MAIN(TstBackgroundJob)
#include "tst_backgroundjob.moc"
