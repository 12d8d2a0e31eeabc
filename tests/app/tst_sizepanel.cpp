// The Size panel built alone (test::PanelHost): the real XNNPACK program of the runtime
// (runtime/xnnpack_mlp_intermediates/xnn_mlp.pte) measured, its treemap beside its tree with one
// selection, zoom and back; a session without a program says why it is empty; the program
// compared with another build. Expected values: the top-level parts of
// tests/data/program/expected_size.json (hand count by tests/tools/gen_size_expected.py); the
// three authored builds of tests/tools/gen_delegate_payloads.py (diff_builds: one model,
// fp32 in one XNNPACK delegate of 3 nodes, int8 adding two Convert nodes, fp32 split in two
// delegates around a portable aten::relu.out; their file sizes from the file system).
#include "modelroles.h"
#include "panelhost.h"
#include "sizemodel.h"
#include "sizepanel.h"
#include "testpaths.h"
#include "treemapwidget.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

#include <cmath>

using namespace etscope;

namespace {

QString fixture(const char *relative)
{
    return QString::fromStdString(test::sharedFixture(relative));
}

QString delegates(const char *name)
{
    return QString::fromStdString(test::testData(std::string("program/delegates/") + name));
}

bool openAndMeasure(test::PanelHost<SizePanel> &host, const QStringList &files)
{
    QSignalSpy ready(host.panel, &SizePanel::sizeReady);
    if (!host.open(files))
        return false;
    return ready.count() > 0 || ready.wait(10000);
}

} // namespace

class TestSizePanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void treemapAndTree()
    {
        test::PanelHost<SizePanel> host;
        host.host.resize(1280, 720);
        host.host.show();
        QVERIFY(openAndMeasure(host, { fixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte") }));
        SizePanel *p = host.panel;
        QVERIFY(p->dock()->isVisible());
        QVERIFY2(p->statusText().startsWith(u"xnn_mlp.pte: 140,344 bytes in 6 top-level parts"_qs),
            qPrintable(p->statusText()));
        TreemapWidget *map = p->treemap();
        map->resize(900, 560);
        const QModelIndex file = p->model()->index(0, 0);
        QCOMPARE(map->rootIndex(), file);
        QCOMPARE(map->breadcrumb(), QStringList { u"xnn_mlp.pte"_qs });

        // Areas in proportion to bytes: the two payloads (100,432 and 36,664 bytes, hand count).
        const QModelIndex d0 = p->model()->index(3, 0, file), d1 = p->model()->index(5, 0, file);
        const QRectF r0 = map->rectOf(d0), r1 = map->rectOf(d1);
        QVERIFY(!r0.isEmpty() && !r1.isEmpty());
        const double ratio = (r0.width() * r0.height()) / (r1.width() * r1.height());
        QVERIFY2(std::abs(ratio - 100432.0 / 36664.0) < 0.03 * ratio, qPrintable(QString::number(ratio)));

        // A click selects the part in the tree; the map outlines the tree's current row.
        const QModelIndex hit = map->indexAt(r1.center());
        QVERIFY(hit.isValid());
        QTest::mouseClick(map, Qt::LeftButton, {}, r1.center().toPoint());
        QCOMPARE(p->tree()->currentIndex().siblingAtColumn(0), hit);

        // A double-click zooms into the payload; the breadcrumb goes back.
        QTest::mouseDClick(map, Qt::LeftButton, {}, map->rectOf(d0).center().toPoint());
        QCOMPARE(map->rootIndex(), d0);
        QCOMPARE(map->breadcrumb().size(), 2);
        QCOMPARE(map->breadcrumb().at(1), d0.data().toString());
        const QModelIndex constants = p->model()->index(3, 0, d0); // 99,328 of 100,432 bytes
        QCOMPARE(constants.data().toString(), u"constant data"_qs);
        const QRectF rc = map->rectOf(constants);
        const QRectF whole = map->rect().adjusted(1, 1, -1, -1);
        QVERIFY2(rc.width() * rc.height() > 0.9 * whole.width() * whole.height(),
            qPrintable(QStringLiteral("%1x%2").arg(rc.width()).arg(rc.height())));
        QVERIFY(map->back());
        QCOMPARE(map->rootIndex(), file);
        QVERIFY(!map->back());

        // Selecting a part in the tree that the map does not show zooms the map to its parent:
        // zoomed into the second payload, the first payload's constant data is out of view.
        map->setRootIndex(d1);
        p->tree()->setCurrentIndex(constants);
        QCOMPARE(map->rootIndex(), d0);
    }

    void emptyWithoutProgram()
    {
        test::PanelHost<SizePanel> host;
        QVERIFY(host.open({ fixture("runtime/cnn_mlp_50runs/etdump.etdp") }));
        QCOMPARE(host.panel->model()->rowCount(), 0);
        QVERIFY2(host.panel->statusText().startsWith(u"No program"_qs), qPrintable(host.panel->statusText()));
        QVERIFY(!host.panel->charts().front().unavailable().isEmpty());
    }

    void programWithData()
    {
        test::PanelHost<SizePanel> host;
        const QString ptd = QString::fromStdString(test::testData("program/ptd/external.ptd"));
        QVERIFY(openAndMeasure(host, { QStringLiteral(ETSCOPE_PROGRAM_BUILD_DIR "/external.pte"), ptd }));
        SizeModel *m = host.panel->model();
        QCOMPARE(m->rowCount(), 2); // the .pte and its .ptd
        const QModelIndex data = m->index(1, 0);
        QCOMPARE(data.data().toString(), u"external.ptd"_qs);
        const qulonglong bytes = m->index(1, SizeModel::Bytes).data(SortRole).toULongLong();
        QCOMPARE(bytes, qulonglong(QFileInfo(ptd).size()));
        qulonglong sum = 0;
        for (int r = 0; r < m->rowCount(data); ++r)
            sum += m->index(r, SizeModel::Bytes, data).data(SortRole).toULongLong();
        QCOMPARE(sum, bytes);
        QCOMPARE(host.panel->treemap()->breadcrumb(), QStringList { u"All files"_qs });
    }

    void programDiff()
    {
        test::PanelHost<SizePanel> host;
        QVERIFY(openAndMeasure(host, { delegates("diff_fp32.pte") }));
        QString error;
        QVERIFY2(host.panel->compareWithSync(delegates("diff_int8.pte"), &error), qPrintable(error));
        const QString html = host.panel->diffHtml();
        QCOMPARE(host.panel->tabs()->currentIndex(), 1);
        const qint64 a = QFileInfo(delegates("diff_fp32.pte")).size(), b = QFileInfo(delegates("diff_int8.pte")).size();
        QVERIFY2(html.contains(QStringLiteral("%1 → %2 bytes").arg(a).arg(b)), qPrintable(html));
        // The int8 build quantizes inside the delegate: two Convert nodes more (0 → 2).
        QVERIFY(html.contains(
            u"<td>delegated node</td><td>XNNPACK:Convert</td><td class=\"n\" data-v=\"0\">0</td><td class=\"n\" data-v=\"2\">2</td>"_qs));

        // Split into two delegates around a portable relu.
        QVERIFY(host.panel->compareWithSync(delegates("diff_fp32_split.pte")));
        QVERIFY(host.panel->diffHtml().contains(u"XnnpackBackend: 1 -&gt; 2 delegate calls, 3 -&gt; 2 nodes"_qs)
            || host.panel->diffHtml().contains(u"XnnpackBackend: 1 -> 2 delegate calls, 3 -> 2 nodes"_qs));
        QVERIFY(host.panel->diffHtml().contains(u"<td>portable kernel</td><td>aten::relu.out</td>"_qs));
    }

    void unrelatedRefused()
    {
        test::PanelHost<SizePanel> host;
        QVERIFY(openAndMeasure(host, { fixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte") }));
        QVERIFY(host.panel->compareWithSync(delegates("diff_fp32.pte")));
        const QString html = host.panel->diffHtml();
        QVERIFY2(html.contains(u"not builds of one model"_qs), qPrintable(html));
        QVERIFY(html.contains(u"program-diff-refusal"_qs));
        QVERIFY(!html.contains(u"program-diff-size"_qs)); // no difference shown
    }
};

QTEST_MAIN(TestSizePanel)
#include "tst_sizepanel.moc"
