// etscope-cli graph / modules end to end. Expected node lists come from etrecord_expected.json
// (written by tests/tools/gen_etrecord_fixtures.py); the module tree shape from the model the
// generator traced (stem, blocks.0, head, classifier with their children).
#include "clirun.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

namespace {
const QString kData = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/etrecord/");
const QString kRuntime = QStringLiteral(ETSCOPE_SHARED_DIR "/fixtures/runtime/");

struct Run {
    int code = -1;
    QStringList out;
    QString err;
};

Run run(const QStringList &args)
{
    const etscope::test::CliRun r = etscope::test::runCli(args);
    return { r.code, QString::fromUtf8(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts), QString::fromUtf8(r.err) };
}
} // namespace

class TestETRecordCli : public QObject
{
    Q_OBJECT
private slots:
    void graphListsEveryNode()
    {
        QFile f(kData + QStringLiteral("etrecord_expected.json"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonArray nodes = QJsonDocument::fromJson(f.readAll())
                                     .object()
                                     .value(QStringLiteral("cnn_mlp_etrecord.bin"))
                                     .toObject()
                                     .value(QStringLiteral("forward_nodes"))
                                     .toArray();
        const Run r = run({ QStringLiteral("graph"), kData + QStringLiteral("cnn_mlp_etrecord.bin") });
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out.size(), nodes.size() + 2); // title + header + one line per node
        for (int i = 0; i < nodes.size(); ++i) {
            const QJsonObject n = nodes[i].toObject();
            const QStringList cols = r.out[i + 2].split(QLatin1Char(' '), Qt::SkipEmptyParts);
            QCOMPARE(cols.value(0), n.value(QStringLiteral("name")).toString());
            QCOMPARE(cols.value(1), n.value(QStringLiteral("op")).toString());
            QVERIFY(r.out[i + 2].contains(QStringLiteral("  %1  ").arg(n.value(QStringLiteral("handle")).toInteger())));
            QVERIFY(cols.last().startsWith(QStringLiteral("cnn_mlp.py:")));
        }
    }

    void graphErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("malformed JSON") << QStringList { QStringLiteral("graph"),
            kData + QStringLiteral("hostile_malformed_json_etrecord.bin") };
        QTest::newRow("unknown method") << QStringList { QStringLiteral("graph"),
            kData + QStringLiteral("cnn_mlp_etrecord.bin"), QStringLiteral("-m"), QStringLiteral("nope") };
        QTest::newRow("not an ETRecord") << QStringList { QStringLiteral("graph"),
            kData + QStringLiteral("torchsave_tensors.pt") };
    }
    void graphErrors()
    {
        QFETCH(QStringList, args);
        const Run r = run(args);
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.contains(QFileInfo(args[1]).fileName()), qPrintable(r.err));
    }

    void modulesTree()
    {
        const Run r = run(
            { QStringLiteral("modules"), QStringLiteral("-e"), kRuntime + QStringLiteral("cnn_mlp_50runs/etdump.etdp"),
                QStringLiteral("-r"), kData + QStringLiteral("cnn_mlp_etrecord.bin") });
        QCOMPARE(r.code, 0);
        QStringList shape;
        for (const QString &line : r.out) {
            const int indent = int(line.size() - line.trimmed().size()) / 2;
            shape << QString(indent, QLatin1Char('.')) + line.trimmed().section(QLatin1Char(' '), 0, 0);
        }
        QCOMPARE(shape,
            (QStringList { QStringLiteral("model"), QStringLiteral(".stem"), QStringLiteral("..stem.conv"),
                QStringLiteral(".blocks"), QStringLiteral("..blocks.0"), QStringLiteral("...blocks.0.conv"),
                QStringLiteral("...blocks.0.dw"), QStringLiteral(".head"), QStringLiteral("..head.fc1"),
                QStringLiteral("..head.norm"), QStringLiteral("..head.fc2"), QStringLiteral(".classifier") }));
        QVERIFY(r.out[0].contains(QStringLiteral(" ms ")));
    }
};

QTEST_GUILESS_MAIN(TestETRecordCli)
#include "tst_etrecordcli.moc"
