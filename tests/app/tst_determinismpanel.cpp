// The Determinism panel (issue 38 item 2), built alone (test::PanelHost), on the real runtime
// recordings of tests/data/runtime: determinism_corrupt (the det_mlp program run 20 times with
// aten::mm.out's output perturbed on rows 0..31 × cols 32..63 on Execute runs 3, 7, 19: its
// README, and determinism.truth.json computed with numpy by tests/tools/gen_determinism_truth.py)
// and determinism_repeat (the same 20 runs with portable kernels, bit-exact). The sentence, the
// tile and the runs are the README's, written here by hand; the heatmap's counts are those of
// tests/data/determinism/determinism_maps_expected.json (numpy, tests/tools/gen_determinism_maps.py).
// A recording without a debug buffer and one whose buffer holds a single run are said so.
#include "determinismmodel.h"
#include "determinismpanel.h"
#include "panelhost.h"
#include "runstrip.h"
#include "varyingheatmap.h"
#include "windowtest.h"

#include <QDockWidget>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QtTest>

using namespace etscope;

namespace {

QStringList recording(const char *fixture)
{
    const QString dir = test::testDataPath("runtime/") + QString::fromLatin1(fixture) + u'/';
    return { dir + u"etdump.etdp"_qs, dir + u"debug_output.bin"_qs };
}

bool near(double a, double b)
{
    return std::abs(a - b) < 1e-6;
}

} // namespace

class TstDeterminismPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void corruptedTile()
    {
        test::PanelHost<DeterminismPanel> h;
        h.host.resize(1280, 720);
        h.host.show();
        QSignalSpy ready(h.panel, &DeterminismPanel::reportReady);
        QSignalSpy mapped(h.panel, &DeterminismPanel::mapReady);
        QSignalSpy selected(&h.selection, &EventSelection::selectionRequested);
        QVERIFY(h.open(recording("determinism_corrupt")));
        QVERIFY(ready.wait(20000));
        QCOMPARE(h.panel->sentence(),
            u"op #2 (native_call_mm.out) varies on runs 3, 7, 19 in a 32×32 tile (rows 0–31, cols 32–63 of 64×64; "
            "1024 elements)"_qs);
        QVERIFY(h.host.findChild<QDockWidget *>(u"DeterminismDock"_qs)->isVisible());
        // The first varying tensor is selected: its row, its strip row, its heatmap.
        QVERIFY(mapped.wait(20000));
        auto *proxy = qobject_cast<QSortFilterProxyModel *>(h.panel->table()->model());
        QCOMPARE(proxy->rowCount(), 7);
        QCOMPARE(proxy->mapToSource(h.panel->table()->currentIndex()).row(), 2);
        QCOMPARE(h.panel->strip()->currentTensor(), 2);
        const VaryingMap &m = *h.panel->heatmap()->map();
        QCOMPARE(m.position, std::size_t(2));
        QCOMPARE(m.gridRows, std::int64_t(64));
        QCOMPARE(m.gridCols, std::int64_t(64));
        QCOMPARE(m.maxCount, 3u);
        QCOMPARE(m.at(0, 32), 3u);
        QCOMPARE(m.at(31, 63), 3u);
        QCOMPARE(m.at(32, 32), 0u);
        QCOMPARE(m.at(0, 31), 0u);
        // The outlined tile: the right half of the top half of the grid.
        const QRectF g = h.panel->heatmap()->gridRect(), tile = h.panel->heatmap()->tileRect();
        QVERIFY(!g.isEmpty());
        QVERIFY(near(tile.left(), g.left() + g.width() / 2));
        QVERIFY(near(tile.right(), g.right()));
        QVERIFY(near(tile.top(), g.top()));
        QVERIFY(near(tile.bottom(), g.top() + g.height() / 2));
        QCOMPARE(h.panel->heatmap()->cellAt(tile.center()), QPoint(48, 16));
        // The operator event that logged it is selected: instruction 2, native_call_mm.out.
        QVERIFY(!selected.isEmpty());
        const auto pos = selected.last().at(0).value<std::vector<EventPosition>>().at(0);
        const Event &ev = h.controller.session()->blocks[std::size_t(pos.block)].events[std::size_t(pos.event)];
        QCOMPARE(ev.instructionId, 2);
        QCOMPARE(QString::fromUtf8(ev.name.data(), qsizetype(ev.name.size())), u"native_call_mm.out"_qs);
        // The strip marks runs 3, 7, 19 on mm.out and nothing on relu (instruction 1).
        RunStrip *strip = h.panel->strip();
        QCOMPARE(strip->cellAt(strip->cellRect(7, 2).center()), QPoint(7, 2));
        QVERIFY(h.panel->report()->tensors[2].runsDiffer == (std::vector<std::size_t> { 3, 7, 19 }));
        QVERIFY(h.panel->report()->tensors[1].runsDiffer.empty());

        // A row of the table: addmm (instruction 4), its tile rows 0..31 × cols 0..15 of 64×16
        // (determinism.truth.json: 512 elements).
        h.panel->table()->setCurrentIndex(proxy->mapFromSource(proxy->sourceModel()->index(4, 0)));
        QVERIFY(mapped.wait(20000));
        const VaryingMap &m4 = *h.panel->heatmap()->map();
        QCOMPARE(m4.position, std::size_t(4));
        QCOMPARE(m4.rows, std::int64_t(64));
        QCOMPARE(m4.cols, std::int64_t(16));
        const QRectF g4 = h.panel->heatmap()->gridRect(), tile4 = h.panel->heatmap()->tileRect();
        QVERIFY(near(tile4.left(), g4.left()));
        QVERIFY(near(tile4.right(), g4.right()));
        QVERIFY(near(tile4.bottom(), g4.top() + g4.height() / 2));
        // A click on the strip's row of relu selects it: nothing varies there.
        QTest::mouseClick(strip, Qt::LeftButton, {}, strip->cellRect(0, 1).center().toPoint());
        QVERIFY(mapped.wait(20000));
        QCOMPARE(h.panel->heatmap()->map()->position, std::size_t(1));
        QCOMPARE(h.panel->heatmap()->map()->maxCount, 0u);
        QVERIFY(h.panel->heatmap()->tileRect().isEmpty());
        QVERIFY(h.panel->heatmap()->caption().endsWith(u" — no element varies"_qs));
        if (const QByteArray shot = qgetenv("ETSCOPE_DETERMINISM_SHOT"); !shot.isEmpty()) {
            h.panel->selectTensor(2);
            QVERIFY(mapped.wait(20000));
            h.host.grab().save(QString::fromLocal8Bit(shot));
        }
    }

    void bitExactRuns()
    {
        test::PanelHost<DeterminismPanel> h;
        QSignalSpy ready(h.panel, &DeterminismPanel::reportReady);
        QVERIFY(h.open(recording("determinism_repeat")));
        QVERIFY(ready.wait(20000));
        QCOMPARE(h.panel->sentence(), u"deterministic: all 7 logged tensors are bit-exact over 20 runs"_qs);
        QCOMPARE(h.panel->table()->model()->rowCount(), 7);
        for (const TensorDeterminism &t : h.panel->report()->tensors)
            QCOMPARE(t.distinct, std::size_t(1));
    }

    // Never blank, never misleading: what is missing is said in one line.
    void nothingToCompare()
    {
        test::PanelHost<DeterminismPanel> h;
        QVERIFY(h.panel->sentence().startsWith(u"Open a recording"_qs));
        QVERIFY(h.open({ recording("determinism_corrupt").at(0) }));
        QVERIFY(h.panel->sentence().startsWith(u"No debug buffer with this recording"_qs));
        QCOMPARE(h.panel->table()->model()->rowCount(), 0);
        // One Execute run with its intermediates (the shared fixture's README): one run.
        QVERIFY(h.open({ test::fixturePath("runtime/cnn_mlp_intermediates/etdump.etdp"),
            test::fixturePath("runtime/cnn_mlp_intermediates/debug_output.bin") }));
        QTRY_VERIFY_WITH_TIMEOUT(h.panel->sentence().startsWith(u"The debug buffer holds one run"_qs), 20000);
        QCOMPARE(h.panel->table()->model()->rowCount(), 0);
        QVERIFY(!h.host.findChild<QDockWidget *>(u"DeterminismDock"_qs)->isVisible());
    }
};

QTEST_MAIN(TstDeterminismPanel)
#include "tst_determinismpanel.moc"
