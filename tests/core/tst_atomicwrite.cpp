// writeFileAtomically (core/common/atomicwrite.h), the one file write: the whole content or the
// old file untouched, never a leftover temporary; special files written in place.
#include "common/atomicwrite.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace etscope;

class TstAtomicWrite : public QObject
{
    Q_OBJECT
private slots:
    void writesWholeAndReplaces()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("out.tsv")).toStdString();
        QVERIFY(writeFileAtomically(path, "first\n"));
        QVERIFY(writeFileAtomically(path, [](const WriteSink &sink) -> Status {
            sink("a\t");
            sink("b\n");
            return Ok {};
        }));
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("a\tb\n"));
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp-etscope")));
    }

    void failureLeavesTheOldFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("out.json")).toStdString();
        QVERIFY(writeFileAtomically(path, "old"));
        const Status st = writeFileAtomically(path, [&](const WriteSink &sink) -> Status {
            sink("half of the new");
            return makeError(ErrorCode::Io, "input.etdp", "truncated");
        });
        QVERIFY(!st);
        QCOMPARE(st.error().message(), std::string("input.etdp: truncated")); // the producer's own error
        QFile f(QString::fromStdString(path));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), QByteArray("old"));
        QVERIFY(!QFile::exists(QString::fromStdString(path + ".tmp-etscope")));
    }

    void errorsNameTheFileAndTheReason()
    {
        const Status st = writeFileAtomically("/nonexistent-dir/out.tsv", "x");
        QVERIFY(!st);
        QCOMPARE(st.error().message(),
            std::string("/nonexistent-dir/out.tsv: cannot open for writing: No such file or directory"));
    }

    void specialFilesInPlace()
    {
        QVERIFY(writeFileAtomically("/dev/null", "discarded"));
        QVERIFY(QFile::exists(QStringLiteral("/dev/null"))); // still the device, not replaced
        QVERIFY(!QFile::exists(QStringLiteral("/dev/null.tmp-etscope")));
    }
};

QTEST_GUILESS_MAIN(TstAtomicWrite)
#include "tst_atomicwrite.moc"
