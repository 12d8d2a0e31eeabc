// etscope-cli aot-ops / aot-intermediates end to end. Expected values: every node's output as
// computed by PyTorch 1.13 (tests/tools/gen_eval_fixtures.py, <case>_expected.pt); in those
// graphs node k (1-based, file order) carries debug handle k, so handle k must hold node k's
// outputs. The op table is checked against the operators the generator recorded.

#include "clirun.h"
#include "testpaths.h"

#include "etrecord/torchsave.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace etscope;

namespace {

const QString kCli = etscope::test::cliPath();

int runCli(const QStringList &args, QByteArray *out = nullptr, QByteArray *err = nullptr)
{
    QProcess p;
    p.start(kCli, args);
    if (!p.waitForFinished(60000))
        return -1;
    if (out)
        *out = p.readAllStandardOutput();
    if (err)
        *err = p.readAllStandardError();
    return p.exitCode();
}

} // namespace

class TestAotCli : public QObject
{
    Q_OBJECT

private slots:
    void aotOps();
    void aotIntermediates_data();
    void aotIntermediates();
    void noInputs();
};

void TestAotCli::aotOps()
{
    QByteArray out;
    QCOMPARE(
        runCli(
            { "aot-ops", "--etrecord", QString::fromStdString(test::testData("etrecord/cnn_mlp_etrecord.bin")) }, &out),
        0);
    const QString text = QString::fromUtf8(out);
    QVERIFY2(text.contains(QRegularExpression("aten.convolution.default +3 +yes")), qPrintable(text));
    QVERIFY(text.contains(QRegularExpression("aten._softmax.default +1 +yes")));
    QVERIFY(text.contains("19 of 19 operators have a kernel"));
}

void TestAotCli::aotIntermediates_data()
{
    QTest::addColumn<QString>("stem");
    QTest::addColumn<QString>("inputsOption");
    QTest::newRow("cnn (representative_inputs)") << "cnn"
                                                 << "";
    QTest::newRow("intpath (--inputs)") << "intpath"
                                        << "--inputs";
}

void TestAotCli::aotIntermediates()
{
    QFETCH(QString, stem);
    QFETCH(QString, inputsOption);
    QTemporaryDir dir;
    const QString json = dir.filePath("aot.json");
    const std::string base = test::testData("eval/" + stem.toStdString());
    QStringList args { "aot-intermediates", "--etrecord", QString::fromStdString(base + "_etrecord.bin"), "--json",
        json };
    if (!inputsOption.isEmpty())
        args << inputsOption << QString::fromStdString(base + "_inputs.pt");
    QByteArray err;
    QCOMPARE(runCli(args, nullptr, &err), 0);
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject doc = QJsonDocument::fromJson(f.readAll()).object();
    auto expected = loadTorchSave(base + "_expected.pt");
    QVERIFY(expected);
    const PyDict *dict = expected->dict();
    QCOMPARE(doc.size(), int(dict->items.size()));
    int handle = 0;
    for (const auto &[key, value] : dict->items) {
        ++handle;
        const QJsonObject entry = doc.value(QString::number(handle)).toObject();
        QCOMPARE(entry.value("nodes").toArray().at(0).toString().toStdString(), *key.str());
        const QJsonArray outs = entry.value("outputs").toArray();
        const auto *items = value.sequence();
        QCOMPARE(outs.size(), int(items->size()));
        for (int k = 0; k < outs.size(); ++k) {
            const PyTensor *t = (*items)[std::size_t(k)].tensor();
            const QJsonObject o = outs.at(k).toObject();
            QCOMPARE(o.value("dtype").toString().toStdString(), std::string(scalarTypeName(t->dtype)));
            QJsonArray shape = o.value("shape").toArray();
            QCOMPARE(shape.size(), int(t->sizes.size()));
            auto want = tensorValues(*t);
            QVERIFY(want);
            const QJsonArray got = o.value("values").toArray();
            QCOMPARE(got.size(), int(want->size()));
            for (int i = 0; i < got.size(); ++i) {
                const double a = got.at(i).toDouble(), b = (*want)[std::size_t(i)];
                QVERIFY2(std::abs(a - b) <= 1e-6 + 1e-5 * std::abs(b),
                    qPrintable(QStringLiteral("handle %1 output %2 element %3: %4 vs %5")
                                   .arg(handle)
                                   .arg(k)
                                   .arg(i)
                                   .arg(a)
                                   .arg(b)));
            }
        }
    }
}

void TestAotCli::noInputs()
{
    QByteArray err;
    QCOMPARE(runCli({ "aot-intermediates", "--etrecord",
                        QString::fromStdString(test::testData("etrecord/xnn_mlp_etrecord.bin")), "--json", "-" },
                 nullptr, &err),
        1);
    QVERIFY(err.contains("--bundled-program"));
}

QTEST_GUILESS_MAIN(TestAotCli)
#include "tst_aotcli.moc"
