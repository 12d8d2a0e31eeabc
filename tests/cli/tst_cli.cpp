// End-to-end: the etscope-cli binary on real fixtures and on bad input.
#include "clirun.h"
#include "testpaths.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace {

using Run = etscope::test::CliRun;
Run run(const QStringList &args)
{
    return etscope::test::runCli(args);
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

QString fixture(const char *rel)
{
    return QString::fromStdString(etscope::test::sharedFixture(rel));
}
QString expected(const char *name)
{
    return QString::fromStdString(etscope::test::testData(std::string("core/expected/") + name));
}
} // namespace

class TstCli : public QObject
{
    Q_OBJECT
private slots:
    // 0 ok, 1 bad input, 2 usage, 3 gate tripped, 4 internal error (documented in --help).
    void exitCodes()
    {
        const Run help = run({ u"--help"_qs });
        QCOMPARE(help.code, 0);
        QVERIFY2(
            help.out.contains("Exit status: 0 ok, 1 bad input, 2 usage error, 3 gate tripped"), help.out.constData());
        QCOMPARE(run({}).code, 2); // no command: the help, as a usage error
        QCOMPARE(run({ u"no-such-command"_qs }).code, 2);
        QCOMPARE(run({ u"table"_qs, u"--no-such-option"_qs }).code, 2);
        QCOMPARE(run({ u"table"_qs }).code, 2); // --etdump is required
        QCOMPARE(run({ u"table"_qs, u"--etdump"_qs, fixture("upstream/docs_tutorial.etdp"), u"--target-time-scale"_qs,
                         u"hours"_qs })
                     .code,
            2); // not one of ns, us, ms, s, cycles
        QCOMPARE(run({ u"table"_qs, u"--etdump"_qs, u"/nonexistent/x.etdp"_qs }).code, 1);
    }

    void table()
    {
        // Expected file: independent Python reference (tests/tools/inspector_reference.py).
        const Run r = run({ u"table"_qs, u"--etdump"_qs, fixture("upstream/docs_tutorial.etdp") });
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, readFile(expected("docs_tutorial.table.txt")));
    }

    void tsvToFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(u"t.tsv"_qs);
        const Run r = run({ u"tsv"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_50runs/etdump.etdp"), u"-o"_qs, out });
        QCOMPARE(r.code, 0);
        QCOMPARE(readFile(out), readFile(expected("cnn_mlp_50runs.tsv")));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1); // no temp file left behind
    }

    // -o onto something that is not a regular file (here a FIFO; /dev/null is the common case)
    // writes through it: the atomic rename used for files would replace it with a regular file.
    void outputToFifoWritesThrough()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(u"out.fifo"_qs);
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0);
        // A writer end of our own lets the reader open at once and see EOF once we close it,
        // even if the program never opens the FIFO (the reader would otherwise hang).
        const int keepOpen = ::open(QFile::encodeName(fifo).constData(), O_RDWR);
        QVERIFY(keepOpen >= 0);
        QByteArray received;
        std::thread reader([&] {
            QFile f(fifo);
            if (f.open(QIODevice::ReadOnly))
                received = f.readAll(); // until every writer has closed its end
        });
        const Run r = run({ u"tsv"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_50runs/etdump.etdp"), u"-o"_qs, fifo });
        ::close(keepOpen);
        reader.join();
        QCOMPARE(r.code, 0);
        QCOMPARE(received, readFile(expected("cnn_mlp_50runs.tsv")));
        struct stat st;
        QVERIFY(::stat(QFile::encodeName(fifo).constData(), &st) == 0);
        QVERIFY(S_ISFIFO(st.st_mode)); // still the FIFO
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::System).size(), 1); // no temp file
    }

    void targetScale()
    {
        const Run r = run(
            { u"tsv"_qs, u"--etdump"_qs, fixture("upstream/docs_tutorial.etdp"), u"--target-time-scale"_qs, u"us"_qs });
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, readFile(expected("docs_tutorial_us.tsv")));
    }

    void json()
    {
        const Run r = run({ u"table"_qs, u"--json"_qs, u"--etdump"_qs, fixture("upstream/docs_tutorial.etdp") });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("\"event_name\": \"native_call_convolution.out\""));
        QVERIFY(r.out.contains("\"avg\": 0.544783")); // §12 of inspector-semantics.md
    }

    void outputs()
    {
        const Run r = run({ u"outputs"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_intermediates/etdump.etdp"),
            u"--debug-buffer"_qs, fixture("runtime/cnn_mlp_intermediates/debug_output.bin") });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("run outputs: 2"));
        QVERIFY(r.out.contains("int64[1] @131056  min 3  max 3")); // argmax 3 (fixture README)
    }

    void badInput()
    {
        QTemporaryDir dir;
        const QString empty = dir.filePath(u"empty.etdp"_qs);
        QFile f(empty);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const Run r = run({ u"table"_qs, u"--etdump"_qs, empty });
        QCOMPARE(r.code, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY(r.err.startsWith("etscope-cli: " + empty.toUtf8() + ": "));
        const Run wrong = run({ u"table"_qs, u"--etdump"_qs, fixture("runtime/add_pte_50runs/add.pte") });
        QCOMPARE(wrong.code, 1);
        QVERIFY(wrong.err.contains("not an ETDump"));
        const Run buf = run({ u"outputs"_qs, u"--etdump"_qs, fixture("runtime/cnn_mlp_intermediates/etdump.etdp"),
            u"--debug-buffer"_qs, fixture("upstream/docs_tutorial.etdp") });
        // A buffer that cannot hold the ETDump's tensors is refused as a whole (issue 15).
        QCOMPARE(buf.code, 1);
        QVERIFY(buf.err.contains("not the debug buffer of"));
        QCOMPARE(buf.err.count('\n'), 1);
    }

    void etrecordColumns()
    {
        // The sample ETRecord was generated from a traced PyTorch model whose first layer is
        // self.stem.conv (tests/tools/gen_etrecord_fixtures.py), for the same 28-instruction
        // program as the real cnn_mlp ETDump (instruction 0 = convolution).
        const QString dir = QStringLiteral(ETSCOPE_SOURCE_DIR "/resources/samples/cnn_mlp_50runs/");
        const Run r = run({ u"tsv"_qs, u"--modules"_qs, u"--etdump"_qs, dir + u"etdump.etdp"_qs, u"--etrecord"_qs,
            dir + u"etrecord.bin"_qs });
        QCOMPARE(r.code, 0);
        const QList<QByteArray> lines = r.out.split('\n');
        QVERIFY(lines[0].endsWith("\tstart_time\tmodule"));
        const QList<QByteArray> conv = lines[3].split('\t');
        QCOMPARE(conv[2], QByteArray("native_call_convolution.out"));
        QCOMPARE(conv[9], QByteArray("['aten.convolution.default']"));
        QCOMPARE(conv[13], QByteArray("L['self'].stem.conv"));
    }

    void version()
    {
        const Run r = run({ u"--version"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("etscope-cli "));
        QVERIFY(r.out.contains("ED00"));
    }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
