// The session holds every input (core/session/session.h): a program (.pte) opened alone or with
// its ETDump, the method shown, the one event↔instruction rule, and companions that do not belong
// left out with a warning of their kind instead of failing the load (interactive use) or failing
// it (the CLI). Expected values come from the fixture READMEs and program JSON (cnn_mlp: one
// method "forward", 28 instructions, gelu at instruction 9 per tests/data/program/
// expected_memory.json), from tests/data/program/two_methods.program.json (methods "forward" with
// 7 instructions and "step" with 8, counted in the JSON), and from `etscope-cli memory`'s
// established refusal text for add.pte against the cnn_mlp ETDump.
#include "session/session.h"
#include "testpaths.h"

#include <QTest>

#include <algorithm>

using namespace etscope;

namespace {
std::string rt(const std::string &relative)
{
    return test::sharedFixture("runtime/" + relative);
}

std::string authored(const std::string &name)
{
    return std::string(ETSCOPE_PROGRAM_BUILD_DIR) + "/" + name;
}
} // namespace

class TstSession : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void programAlone()
    {
        SessionInputs in;
        in.program = rt("cnn_mlp_50runs/cnn_mlp.pte");
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QVERIFY(!(*s)->etdump);
        QVERIFY((*s)->blocks.empty());
        QVERIFY((*s)->program);
        QVERIFY((*s)->method);
        QCOMPARE((*s)->method->name(), std::string("forward"));
        QCOMPARE((*s)->method->instructionCount(), std::size_t(28));
        QVERIFY(!(*s)->methodPairedWithETDump);
        QCOMPARE((*s)->primaryPath(), in.program);
        // No events: nothing links to an instruction.
        QVERIFY(!(*s)->eventOfInstruction(0));
    }

    void methodChosen()
    {
        SessionInputs in;
        in.program = authored("two_methods.pte");
        auto first = loadSession(in);
        QVERIFY2(first, first ? "" : first.error().message().c_str());
        QCOMPARE((*first)->program->methods().size(), std::size_t(2));
        QCOMPARE((*first)->method->name(), std::string("forward"));
        QCOMPARE((*first)->method->instructionCount(), std::size_t(7));
        in.method = "step";
        auto step = loadSession(in);
        QVERIFY(step);
        QCOMPARE((*step)->method->name(), std::string("step"));
        QCOMPARE((*step)->method->instructionCount(), std::size_t(8));
        in.method = "decode";
        auto none = loadSession(in);
        QVERIFY(!none);
        QCOMPARE(none.error().message(), in.program + ": no method named 'decode'");
    }

    // Weights in a .ptd (issue 29 item 1): the program opens alone with its data paired; a .ptd
    // that lacks a name is left out with the reason (interactive) or fails the load (CLI). The
    // refusal text is the one tests/program/tst_flattensor.cpp checks (tests/data/program/ptd).
    void programWithItsData()
    {
        SessionInputs in;
        in.program = authored("external.pte");
        in.programData = { test::testData("program/ptd/external.ptd") };
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QCOMPARE((*s)->program->dataFiles().size(), std::size_t(1));
        QVERIFY((*s)->warnings.empty());

        in.programData = { test::testData("program/ptd/missing_name.ptd") };
        const std::string why = in.program
            + ": external tensor 'linear.bias' (float32[3] (12 bytes), method 'forward' "
              "value 2) is not in "
            + in.programData.front();
        auto refused = loadSession(in);
        QVERIFY(!refused);
        QCOMPARE(refused.error().message(), why);
        in.dropUnpairable = true;
        auto dropped = loadSession(in);
        QVERIFY2(dropped, dropped ? "" : dropped.error().message().c_str());
        QVERIFY((*dropped)->program && (*dropped)->program->dataFiles().empty());
        QVERIFY((*dropped)->inputs.programData.empty());
        // The weights are what is left out (named), with the pairing's reason.
        QCOMPARE((*dropped)->warningsOf(SessionWarningKind::Dropped),
            std::vector<std::string> {
                "left out " + in.programData.front() + " (does not belong to the program): " + why });
    }

    void programPairedWithItsETDump()
    {
        SessionInputs in;
        in.etdump = rt("cnn_mlp_alloc_events/etdump.etdp");
        in.program = rt("cnn_mlp_alloc_events/cnn_mlp.pte");
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QVERIFY((*s)->program && (*s)->methodPairedWithETDump);
        // The kernel event of the gelu instruction, and back.
        int block = -1, event = -1;
        for (std::size_t b = 0; b < (*s)->blocks.size() && block < 0; ++b)
            for (std::size_t e = 0; e < (*s)->blocks[b].events.size(); ++e)
                if ((*s)->blocks[b].events[e].name == "native_call_gelu.out") {
                    block = int(b);
                    event = int(e);
                    break;
                }
        QVERIFY(block >= 0);
        QCOMPARE((*s)->instructionOfEvent(block, event).value_or(0), std::size_t(9));
        const auto back = (*s)->eventOfInstruction(9);
        QVERIFY(back);
        QCOMPARE((*s)->blocks[std::size_t(back->block)].events[std::size_t(back->event)].name,
            std::string_view("native_call_gelu.out"));
        // Framework events stand for no instruction.
        for (std::size_t e = 0; e < (*s)->blocks[std::size_t(block)].events.size(); ++e)
            if ((*s)->blocks[std::size_t(block)].events[e].name == "Method::execute")
                QVERIFY(!(*s)->instructionOfEvent(block, int(e)));
    }

    void anotherProgramIsLeftOutOrRefused()
    {
        SessionInputs in;
        in.etdump = rt("cnn_mlp_50runs/etdump.etdp");
        in.program = rt("add_pte_50runs/add.pte");
        const std::string why = in.program + ": program does not match " + in.etdump
            + ": kernel 'native_call_convolution.out' at instruction 0 but the program calls add.out there";
        auto refused = loadSession(in);
        QVERIFY(!refused);
        QCOMPARE(refused.error().message(), why);

        in.dropUnpairable = true;
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QVERIFY(!(*s)->program);
        QVERIFY((*s)->inputs.program.empty()); // not in the recent set, not reloaded
        QVERIFY((*s)->hasWarning(SessionWarningKind::ProgramMismatch));
        QCOMPARE((*s)->warningsOf(SessionWarningKind::ProgramMismatch), std::vector<std::string> { why });
        QCOMPARE((*s)->blocks.size(), std::size_t(2)); // the recording itself loads
    }

    void aWrongDebugBufferNeverBlocksTheETDump()
    {
        // Random bytes as the debug buffer: refused (tests/data/core/buffer_provenance_expected.json,
        // made by tests/tools/gen_buffer_provenance.py, says Mismatch for this pair).
        SessionInputs in;
        in.etdump = rt("cnn_mlp_intermediates/etdump.etdp");
        in.debugBuffer = test::testData("core/random_262144.bin");
        auto refused = loadSession(in);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message().starts_with(in.debugBuffer + ": not the debug buffer of " + in.etdump),
            refused.error().message().c_str());

        in.dropUnpairable = true;
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        QVERIFY(!(*s)->debugBuffer);
        QVERIFY((*s)->inputs.debugBuffer.empty());
        const auto dropped = (*s)->warningsOf(SessionWarningKind::Dropped);
        QCOMPARE(dropped.size(), std::size_t(1));
        QCOMPARE(dropped.front(), "left out " + refused.error().message());
    }

    void suspectBufferWarningHasItsKind()
    {
        // The XNNPACK run's buffer with the cnn_mlp ETDump: one signal, loaded with a warning
        // (README: "32 of 33 logged tensors are all zeros").
        SessionInputs in;
        in.etdump = rt("cnn_mlp_intermediates/etdump.etdp");
        in.debugBuffer = rt("xnnpack_mlp_intermediates/debug_output.bin");
        auto s = loadSession(in);
        QVERIFY2(s, s ? "" : s.error().message().c_str());
        const auto suspect = (*s)->warningsOf(SessionWarningKind::SuspectDebugBuffer);
        QCOMPARE(suspect.size(), std::size_t(1));
        QVERIFY2(suspect.front().find("32 of 33 logged tensors are all zeros") != std::string::npos,
            suspect.front().c_str());
    }
};

QTEST_GUILESS_MAIN(TstSession)
#include "tst_session.moc"
