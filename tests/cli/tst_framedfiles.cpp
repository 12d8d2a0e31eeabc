// Files framed the ways other writers frame them (tests/data/framed, made by
// tests/tools/gen_framed_files.py): each holds the content of a real runtime file and must read to
// the same output as that file, byte for byte (the original's path replaced by the framed one's).
// Truth: the runtime's own file beside it; the framing is all that differs.
//  - *.prefixed.etdp: flatc's payload laid out for its own start (what upstream's Python serializer
//    writes), a 4-byte size prefix in front: 8-byte fields 4 bytes off the file's alignment;
//  - docs_tutorial.plain.etdp: the same payload without a prefix;
//  - cnn_mlp.eh18.pte: the program with the 0x18-byte extended header of exporters before 2025-09.
#include "clirun.h"
#include "testpaths.h"

#include <QTest>

using etscope::test::runCli;

namespace {

QString shared(const char *relative)
{
    return QString::fromStdString(etscope::test::sharedFixture(relative));
}

QString framed(const char *name)
{
    return QString::fromStdString(etscope::test::testData(std::string("framed/") + name));
}

// The CLI's output for `args` with FILE replaced by `file`, and `file`'s path written as FILE.
QByteArray output(QStringList args, const QString &file)
{
    args.replaceInStrings(QStringLiteral("FILE"), file);
    const auto r = runCli(args);
    if (r.code != 0)
        return "exit " + QByteArray::number(r.code) + ": " + r.err;
    return QByteArray(r.out).replace(file.toUtf8(), "FILE");
}

} // namespace

class TstFramedFiles : public QObject
{
    Q_OBJECT
private slots:
    void etdump_data()
    {
        QTest::addColumn<QString>("original");
        QTest::addColumn<QString>("reframed");
        QTest::addColumn<QString>("debugBuffer");
        QTest::newRow("docs_tutorial prefixed")
            << shared("upstream/docs_tutorial.etdp") << framed("docs_tutorial.prefixed.etdp") << QString();
        QTest::newRow("docs_tutorial plain")
            << shared("upstream/docs_tutorial.etdp") << framed("docs_tutorial.plain.etdp") << QString();
        QTest::newRow("cnn_mlp prefixed, with its debug buffer")
            << shared("runtime/cnn_mlp_intermediates/etdump.etdp") << framed("cnn_mlp.prefixed.etdp")
            << shared("runtime/cnn_mlp_intermediates/debug_output.bin");
    }

    void etdump()
    {
        QFETCH(QString, original);
        QFETCH(QString, reframed);
        QFETCH(QString, debugBuffer);
        QStringList extra;
        if (!debugBuffer.isEmpty())
            extra << QStringLiteral("--debug-buffer") << debugBuffer;
        for (const QString &command : { QStringLiteral("table"), QStringLiteral("tsv") }) {
            const QStringList args
                = QStringList { command, QStringLiteral("--etdump"), QStringLiteral("FILE") } + extra;
            const QByteArray expected = output(args, original);
            QVERIFY2(!expected.startsWith("exit "), expected.constData());
            QVERIFY(expected.size() > 200);
            QCOMPARE(output(args, reframed), expected);
        }
    }

    void olderExtendedHeader()
    {
        const QString original = shared("runtime/cnn_mlp_intermediates/cnn_mlp.pte");
        const QString reframed = framed("cnn_mlp.eh18.pte");
        for (const QStringList &args : { QStringList { QStringLiteral("program"), QStringLiteral("FILE") },
                 QStringList { QStringLiteral("program"), QStringLiteral("FILE"), QStringLiteral("--json"),
                     QStringLiteral("-") } }) {
            const QByteArray expected = output(args, original);
            QVERIFY2(!expected.startsWith("exit "), expected.constData());
            QCOMPARE(output(args, reframed), expected);
        }
    }
};

QTEST_GUILESS_MAIN(TstFramedFiles)
#include "tst_framedfiles.moc"
