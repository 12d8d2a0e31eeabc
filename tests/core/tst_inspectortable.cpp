// The CLI table and TSV must equal what the Python Inspector prints for the real fixtures.
// Expected files in tests/data/core/expected were produced by tests/tools/inspector_reference.py,
// an independent Python implementation of inspector-semantics.md §1-§4 over `flatc --json`
// decodes, rendered by real pandas (to_csv) and tabulate (fancy_grid). Regenerate with
// tests/tools/gen_inspector_expected.sh.
#include "events/eventblockbuilder.h"
#include "events/inspectortable.h"
#include "testpaths.h"

#include <QFile>
#include <QTest>

using namespace etscope;

namespace {
std::string readText(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return "<missing " + path + ">";
    return f.readAll().toStdString();
}
} // namespace

class TstInspectorTable : public QObject
{
    Q_OBJECT
private slots:
    void matchesInspector_data()
    {
        QTest::addColumn<QString>("fixture");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<QString>("target");
        auto add = [](const char *fixture, const char *expected, const char *target = "ms") {
            QTest::newRow(expected) << QString::fromLatin1(fixture) << QString::fromLatin1(expected)
                                    << QString::fromLatin1(target);
        };
        add("upstream/docs_tutorial.etdp", "docs_tutorial");
        add("upstream/docs_tutorial.etdp", "docs_tutorial_us", "us");
        add("runtime/add_pte_50runs/etdump.etdp", "add_pte_50runs");
        add("runtime/add_pte_intermediates/etdump.etdp", "add_pte_intermediates");
        add("runtime/bundled_program_50runs/etdump.etdp", "bundled_program_50runs");
        add("runtime/bundled_program_intermediates/etdump.etdp", "bundled_program_intermediates");
        add("runtime/bundled_program_outputs_only/etdump.etdp", "bundled_program_outputs_only");
        add("runtime/cnn_mlp_50runs/etdump.etdp", "cnn_mlp_50runs");
        add("runtime/cnn_mlp_50runs/etdump.etdp", "cnn_mlp_50runs_s", "s");
        add("runtime/cnn_mlp_intermediates/etdump.etdp", "cnn_mlp_intermediates");
        add("runtime/xnnpack_mlp_intermediates/etdump.etdp", "xnnpack_mlp_intermediates");
    }

    void matchesInspector()
    {
        QFETCH(QString, fixture);
        QFETCH(QString, expected);
        QFETCH(QString, target);
        auto file = readETDump(test::sharedFixture(fixture.toStdString()));
        QVERIFY2(file.ok(), file.ok() ? "" : file.error().message().c_str());
        InspectorOptions opt;
        opt.time.target = *parseTimeScale(target.toStdString());
        auto blocks = buildEventBlocks(**file, opt);
        QVERIFY(blocks.ok());
        const std::string base = test::testData("core/expected/" + expected.toStdString());
        QCOMPARE(formatFancyGrid(*blocks), readText(base + ".table.txt"));
        QCOMPARE(formatDelimited(*blocks, '\t'), readText(base + ".tsv"));
    }

    void pythonFloatRepr_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("repr");
        // Python 3.11 repr() of each value.
        QTest::newRow("tenth") << 0.1 << u"0.1"_qs;
        QTest::newRow("sum") << 0.1 + 0.2 << u"0.30000000000000004"_qs;
        QTest::newRow("int-valued") << 5.0 << u"5.0"_qs;
        QTest::newRow("small") << 1e-05 << u"1e-05"_qs;
        QTest::newRow("edge-small") << 0.0001 << u"0.0001"_qs;
        QTest::newRow("big") << 1e16 << u"1e+16"_qs;
        QTest::newRow("below-big") << 1234567890123456.0 << u"1234567890123456.0"_qs;
        QTest::newRow("negative") << -2.5e-07 << u"-2.5e-07"_qs;
        QTest::newRow("zero") << 0.0 << u"0.0"_qs;
    }

    void pythonFloatRepr()
    {
        QFETCH(double, value);
        QFETCH(QString, repr);
        QCOMPARE(QString::fromStdString(etscope::pythonFloatRepr(value)), repr);
    }

    void opTypesRendering()
    {
        QCOMPARE(opTypesText({}), std::string("[]"));
        QCOMPARE(opTypesText({ "aten.convolution.default" }), std::string("['aten.convolution.default']"));
        QCOMPARE(opTypesText({ "a", "b", "c", "d", "e" }), std::string("['a', 'b' ... 'e'] (5 total)"));
        QCOMPARE(pythonRepr("it's"), std::string("\"it's\""));
    }
};

QTEST_GUILESS_MAIN(TstInspectorTable)
#include "tst_inspectortable.moc"
