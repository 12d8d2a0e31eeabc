// etscope-cli runs, run as a user runs it: the JSON of every case equals the figures
// tests/tools/gen_runs_expected.py computed with numpy from the raw events (runscases.h), the
// text form says the same, and wrong options get one line and the documented exit code.
#include "../analysis/runscases.h"
#include "clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <fstream>

namespace {

using etscope::test::CliRun;

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

QStringList argsOf(const etscope::test::RunsCase &c)
{
    QStringList a { u"runs"_qs, u"--etdump"_qs, q(c.etdump) };
    if (!c.program.empty())
        a << u"--program"_qs << q(c.program);
    for (const std::string &ptd : c.data)
        a << u"--data"_qs << q(ptd);
    if (c.prefillRuns)
        a << u"--prefill-runs"_qs << QString::number(*c.prefillRuns);
    if (c.promptTokens)
        a << u"--prompt-tokens"_qs << QString::number(*c.promptTokens);
    if (!c.phaseBy.empty())
        a << u"--phase-by"_qs << q(c.phaseBy);
    if (!c.sharesBy.empty())
        a << u"--shares-by"_qs << q(c.sharesBy);
    else
        a << u"--raw-backend-names"_qs; // the cases without one are by the events' names
    return a;
}

etscope::test::RunsCase llm()
{
    return etscope::test::runsCases().front();
}

} // namespace

class TstRunsCli : public QObject
{
    Q_OBJECT

private slots:
    void json_data()
    {
        QTest::addColumn<int>("index");
        const auto cases = etscope::test::runsCases();
        for (std::size_t i = 0; i < cases.size(); ++i)
            QTest::newRow(cases[i].name.c_str()) << int(i);
    }
    void json()
    {
        QFETCH(int, index);
        const auto c = etscope::test::runsCases()[std::size_t(index)];
        const CliRun r = etscope::test::runCli(argsOf(c) << u"--json"_qs << u"-"_qs);
        QCOMPARE(r.code, 0);
        // Warnings only (the session's: a run no method fits is said), never an error.
        for (const QByteArray &line : r.err.split('\n'))
            QVERIFY2(line.isEmpty() || line.startsWith("etscope-cli: warning: "), r.err.constData());
        const auto actual = nlohmann::json::parse(r.out.toStdString());
        const std::string m = etscope::test::jsonMismatch(etscope::test::runsExpected(c.name), actual);
        QVERIFY2(m.empty(), m.c_str());
    }

    // The text form with the JSON written to a file beside it: the same figures, rounded.
    void textAndJsonFile()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(u"runs.json"_qs);
        const CliRun r = etscope::test::runCli(argsOf(llm()) << u"--json"_qs << out);
        QCOMPARE(r.code, 0);
        const auto expected = etscope::test::runsExpected("llm_program");
        std::ifstream f(out.toStdString());
        const std::string m = etscope::test::jsonMismatch(expected, nlohmann::json::parse(f));
        QVERIFY2(m.empty(), m.c_str());
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains(u"phases by method"_qs), r.out.constData());
        QVERIFY(text.contains(QStringLiteral("time to first token: %1 ms")
                                  .arg(expected["time_to_first_token_ms"].get<double>(), 0, 'g', 4)));
        QVERIFY(text.contains(u"decode: 49 runs (1 warm-up, 1 outliers)"_qs));
        QVERIFY(text.contains(u"no method matches"_qs));
        QVERIFY(text.contains(u"ambiguous: prefill_forward, kv_forward"_qs));
        // The top row of the decode shares (numpy: mm.out, 48 calls).
        QVERIFY(text.contains(QRegularExpression(u"\n  mm\\.out +[0-9.]+ +43\\.80% +48 +0\\.0%\n"_qs)));
    }

    void errors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const QStringList base { u"runs"_qs, u"--etdump"_qs, q(llm().etdump) };
        QTest::newRow("method without program")
            << (base + QStringList { u"--method"_qs, u"kv_forward"_qs }) << 1 << u"--method needs the program"_qs;
        QTest::newRow("phase-by method without program") << (base + QStringList { u"--phase-by"_qs, u"method"_qs }) << 1
                                                         << u"--phase-by method needs the program"_qs;
        QTest::newRow("unknown method") << (base
            + QStringList { u"--program"_qs, q(llm().program), u"--method"_qs, u"generate"_qs })
                                        << 1 << u"no method named 'generate'"_qs;
        QTest::newRow("bad rule") << (base + QStringList { u"--phase-by"_qs, u"tokens"_qs }) << 2 << u"--phase-by"_qs;
        QTest::newRow("two rules") << (base
            + QStringList { u"--phase-by"_qs, u"duration"_qs, u"--prefill-runs"_qs, u"2"_qs })
                                   << 2 << u"excludes"_qs;
        QTest::newRow("not a program") << (base + QStringList { u"--program"_qs, q(llm().etdump) }) << 1
                                       << q(llm().etdump);
        QTest::newRow("no such program") << (base + QStringList { u"--program"_qs, u"/nonexistent/p.pte"_qs }) << 1
                                         << u"/nonexistent/p.pte: no such file"_qs;
        QTest::newRow("data without program")
            << (base + QStringList { u"--data"_qs, q(etscope::test::testData("runtime/llm_decoder/llm_decoder.ptd")) })
            << 1 << u"--data needs the program"_qs;
    }
    // A weights file that is not the program's is left out with the program's first missing name
    // (tok_embeddings.weight, the first external tensor of llm_decoder.program.json); the runs
    // are still attributed (issue 35: leave out, don't refuse).
    void dataOfAnotherProgramLeftOut()
    {
        const std::string decoder = etscope::test::testData("runtime/llm_decoder/llm_decoder.pte");
        const CliRun r = etscope::test::runCli({ u"runs"_qs, u"--etdump"_qs,
            q(etscope::test::testData("runtime/llm_decoder/profile/etdump.etdp")), u"--program"_qs, q(decoder),
            u"--data"_qs, q(etscope::test::testData("program/ptd/external.ptd")), u"--json"_qs, u"-"_qs });
        QCOMPARE(r.code, 0);
        QVERIFY2(QString::fromUtf8(r.err).contains(u"left out"_qs), r.err.constData());
        QVERIFY(QString::fromUtf8(r.err).contains(u"external tensor 'tok_embeddings.weight'"_qs));
        QCOMPARE(QString::fromStdString(nlohmann::json::parse(r.out.toStdString())["phase_rule"].get<std::string>()),
            u"method"_qs);
    }
    void errors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        const CliRun r = etscope::test::runCli(args);
        QCOMPARE(r.code, code);
        QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
        QVERIFY(r.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TstRunsCli)
#include "tst_runscli.moc"
