// The .pte reader against the JSON each fixture program was compiled from (parsed here
// independently with nlohmann-json), the upstream .pte/.bpte fixtures, hostile programs made by
// editing that JSON and compiling it with flatc, and ETDump pairing.
#include "testpaths.h"

#include "bundled/bundledprogram.h"
#include "etdump/etdumpfile.h"
#include "program/memoryplan.h"
#include "program/program.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <map>

using namespace etscope;
using etscope::test::sharedFixture;
using nlohmann::json;

namespace {

json loadJson(const std::string &path)
{
    std::ifstream in(path);
    return json::parse(in);
}

// Enum names of scalar_type in the JSON against the numbering of ExecuTorch's ScalarType.
const std::map<std::string, ScalarType> kDtypeByName = { { "BYTE", ScalarType::Byte }, { "CHAR", ScalarType::Char },
    { "SHORT", ScalarType::Short }, { "INT", ScalarType::Int }, { "LONG", ScalarType::Long },
    { "FLOAT", ScalarType::Float }, { "DOUBLE", ScalarType::Double }, { "BOOL", ScalarType::Bool } };

const std::map<std::string, ProgramValueKind> kKindByName = { { "Null", ProgramValueKind::Null },
    { "Int", ProgramValueKind::Int }, { "Bool", ProgramValueKind::Bool }, { "Double", ProgramValueKind::Double },
    { "Tensor", ProgramValueKind::Tensor }, { "String", ProgramValueKind::String },
    { "IntList", ProgramValueKind::IntList }, { "DoubleList", ProgramValueKind::DoubleList },
    { "BoolList", ProgramValueKind::BoolList }, { "TensorList", ProgramValueKind::TensorList },
    { "OptionalTensorList", ProgramValueKind::OptionalTensorList } };

template <typename T> std::vector<std::int64_t> widen(std::span<const T> s)
{
    return { s.begin(), s.end() };
}

std::vector<std::int64_t> intsOf(const json &j, const char *key)
{
    return j.contains(key) ? j[key].get<std::vector<std::int64_t>>() : std::vector<std::int64_t>();
}

// flatc-compiles a program JSON with our schema into dir; returns the .pte path.
std::string compileProgram(const json &program, const QString &dir, const QString &name)
{
    const QString jsonPath = dir + "/" + name + ".json";
    std::ofstream(jsonPath.toStdString()) << program.dump();
    QProcess flatc;
    flatc.start(QStringLiteral(ETSCOPE_FLATC), { "-b", "-o", dir, QStringLiteral(ETSCOPE_PROGRAM_SCHEMA), jsonPath });
    if (!flatc.waitForFinished(30000) || flatc.exitCode() != 0)
        qWarning() << "flatc failed:" << flatc.readAllStandardError();
    return (dir + "/" + name + ".pte").toStdString();
}

} // namespace

class TestProgram : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesItsJson_data()
    {
        QTest::addColumn<QString>("pte");
        QTest::addColumn<QString>("source");
        for (const char *dir : { "cnn_mlp_50runs", "cnn_mlp_alloc_events", "cnn_mlp_intermediates" })
            QTest::newRow(dir) << QString::fromStdString(sharedFixture(std::string("runtime/") + dir + "/cnn_mlp.pte"))
                               << QString::fromStdString(
                                      sharedFixture(std::string("runtime/") + dir + "/cnn_mlp.program.json"));
        QTest::newRow("xnnpack_mlp") << QString::fromStdString(
            sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"))
                                     << QString::fromStdString(
                                            sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.program.json"));
        QTest::newRow("authored reuse") << QString(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte")
                                        << QString(ETSCOPE_TEST_DATA_DIR "/program/reuse.program.json");
        QTest::newRow("authored loop") << QString(ETSCOPE_PROGRAM_BUILD_DIR "/loop.pte")
                                       << QString(ETSCOPE_TEST_DATA_DIR "/program/loop.program.json");
        QTest::newRow("authored external") << QString(ETSCOPE_PROGRAM_BUILD_DIR "/external.pte")
                                           << QString(ETSCOPE_TEST_DATA_DIR "/program/external.program.json");
    }

    // Every instruction, value, shape, arena offset and size equal to the JSON.
    void matchesItsJson()
    {
        QFETCH(QString, pte);
        QFETCH(QString, source);
        auto prog = Program::open(pte.toStdString());
        QVERIFY2(prog.ok(), prog.ok() ? "" : prog.error().message().c_str());
        const Program &p = **prog;
        const json j = loadJson(source.toStdString());
        QCOMPARE(p.version(), j.value("version", 0u));
        QCOMPARE(p.methods().size(), j["execution_plan"].size());
        for (std::size_t mi = 0; mi < p.methods().size(); ++mi) {
            const ProgramMethod &m = p.methods()[mi];
            const json &plan = j["execution_plan"][mi];
            QCOMPARE(m.name(), plan["name"].get<std::string>());
            QCOMPARE(widen(m.inputs()), intsOf(plan, "inputs"));
            QCOMPARE(widen(m.outputs()), intsOf(plan, "outputs"));
            QCOMPARE(m.arenaSizes(), intsOf(plan, "non_const_buffer_sizes"));
            // Arena devices: CUDA (type 1) where non_const_buffer_device lists the arena, else CPU.
            QCOMPARE(m.arenaDevices().size(), m.arenaSizes().size());
            for (std::size_t a = 0; a < m.arenaDevices().size(); ++a) {
                ProgramDevice expected;
                for (const json &d : plan.value("non_const_buffer_device", json::array()))
                    if (d.value("buffer_idx", -1) == int(a))
                        expected = { std::int8_t(d.value("device_type", "CPU") == "CUDA" ? 1 : 0),
                            std::int8_t(d.value("device_index", 0)) };
                QVERIFY(m.arenaDevices()[a] == expected);
            }
            QCOMPARE(m.valueCount(), plan["values"].size());
            for (std::size_t v = 0; v < m.valueCount(); ++v) {
                const json &jv = plan["values"][v];
                const ProgramValue pv = m.value(v);
                const std::string where = "value " + std::to_string(v);
                QVERIFY2(pv.kind == kKindByName.at(jv["val_type"].get<std::string>()), where.c_str());
                const json &val = jv["val"];
                switch (pv.kind) {
                case ProgramValueKind::Tensor: {
                    QVERIFY2(pv.tensor.dtype == kDtypeByName.at(val["scalar_type"].get<std::string>()), where.c_str());
                    QCOMPARE(widen(pv.tensor.sizes), intsOf(val, "sizes"));
                    QCOMPARE(widen(pv.tensor.dimOrder), intsOf(val, "dim_order"));
                    QCOMPARE(pv.tensor.dataBufferIndex, val.value("data_buffer_idx", 0u));
                    QCOMPARE(pv.tensor.hasAllocation, val.contains("allocation_info"));
                    const json extra = val.value("extra_tensor_info", json::object());
                    QCOMPARE(pv.tensor.external, extra.value("location", "") == "EXTERNAL");
                    QCOMPARE(std::string(pv.tensor.externalName),
                        pv.tensor.external ? extra["fully_qualified_name"].get<std::string>() : std::string());
                    QCOMPARE(int(pv.tensor.device.type), extra.value("device_type", "CPU") == "CUDA" ? 1 : 0);
                    QCOMPARE(int(pv.tensor.device.index), extra.value("device_index", 0));
                    if (val.contains("allocation_info")) {
                        const json &ai = val["allocation_info"];
                        QCOMPARE(pv.tensor.arena, ai.value("memory_id", 0u));
                        QCOMPARE(pv.tensor.offset,
                            ai.value("memory_offset_low", std::uint64_t(0))
                                + (ai.value("memory_offset_high", std::uint64_t(0)) << 32));
                    }
                    // nbytes: product of the JSON sizes × the dtype's width (float32/int32 4, int64 8, bool 1).
                    std::uint64_t bytes = std::map<std::string, std::uint64_t> { { "FLOAT", 4 }, { "INT", 4 },
                        { "LONG", 8 }, { "BOOL", 1 }, { "DOUBLE", 8 }, { "BYTE", 1 },
                        { "CHAR", 1 } }.at(val["scalar_type"].get<std::string>());
                    for (auto s : intsOf(val, "sizes"))
                        bytes *= std::uint64_t(s);
                    QCOMPARE(pv.tensor.nbytes, bytes);
                    break;
                }
                case ProgramValueKind::Int:
                    QCOMPARE(pv.intValue, val.value("int_val", std::int64_t(0)));
                    break;
                case ProgramValueKind::Bool:
                    QCOMPARE(pv.boolValue, val.value("bool_val", false));
                    break;
                case ProgramValueKind::Double:
                    QCOMPARE(pv.doubleValue, val.value("double_val", 0.0));
                    break;
                case ProgramValueKind::String:
                    QCOMPARE(std::string(pv.stringValue), val.value("string_val", std::string()));
                    break;
                case ProgramValueKind::IntList:
                    QCOMPARE(widen(pv.ints), intsOf(val, "items"));
                    break;
                case ProgramValueKind::TensorList:
                case ProgramValueKind::OptionalTensorList:
                    QCOMPARE(widen(pv.valueIndices), intsOf(val, "items"));
                    break;
                default:
                    break;
                }
            }
            const json &chain = plan["chains"][0];
            QCOMPARE(m.instructionCount(), chain["instructions"].size());
            for (std::size_t k = 0; k < m.instructionCount(); ++k) {
                const json &ji = chain["instructions"][k];
                const json &a = ji["instr_args"];
                const ProgramInstruction ins = m.instruction(k);
                const std::string type = ji["instr_args_type"];
                if (type == "KernelCall") {
                    QCOMPARE(ins.kind, InstructionKind::KernelCall);
                    QCOMPARE(ins.operatorIndex, a.value("op_index", 0));
                    QCOMPARE(widen(ins.args), intsOf(a, "args"));
                } else if (type == "DelegateCall") {
                    QCOMPARE(ins.kind, InstructionKind::DelegateCall);
                    QCOMPARE(ins.delegateIndex, a.value("delegate_index", 0));
                    QCOMPARE(widen(ins.args), intsOf(a, "args"));
                } else if (type == "JumpFalseCall") {
                    QCOMPARE(ins.kind, InstructionKind::JumpFalse);
                    QCOMPARE(ins.condition, a.value("cond_value_index", 0));
                    QCOMPARE(ins.destination, a.value("destination_instruction", 0));
                } else if (type == "MoveCall") {
                    QCOMPARE(ins.kind, InstructionKind::Move);
                    QCOMPARE(ins.moveFrom, a.value("move_from", 0));
                    QCOMPARE(ins.moveTo, a.value("move_to", 0));
                } else if (type == "FreeCall") {
                    QCOMPARE(ins.kind, InstructionKind::Free);
                    QCOMPARE(ins.freedValue, a.value("value_index", 0));
                } else {
                    QFAIL(("unexpected instruction type " + type).c_str());
                }
                if (chain.contains("stacktrace")) {
                    const auto frames = m.stackTrace(k);
                    const json &jf = chain["stacktrace"][k]["items"];
                    QCOMPARE(frames.size(), jf.size());
                    QCOMPARE(std::string(frames.back().context), jf.back()["context"].get<std::string>());
                    QCOMPARE(frames.back().line, jf.back()["lineno"].get<int>());
                }
            }
            QCOMPARE(m.operators().size(), plan["operators"].size());
            for (std::size_t o = 0; o < m.operators().size(); ++o) {
                QCOMPARE(m.operators()[o].name, plan["operators"][o]["name"].get<std::string>());
                QCOMPARE(m.operators()[o].overload, plan["operators"][o]["overload"].get<std::string>());
            }
            const json dels = plan.value("delegates", json::array());
            QCOMPARE(m.delegates().size(), dels.size());
            for (std::size_t d = 0; d < dels.size(); ++d) {
                QCOMPARE(m.delegates()[d].backendId, dels[d]["id"].get<std::string>());
                QCOMPARE(m.delegates()[d].inlineData, dels[d]["processed"]["location"] == "INLINE");
                QCOMPARE(m.delegates()[d].dataIndex, dels[d]["processed"]["index"].get<std::uint32_t>());
                // A segment delegate's blob is that segment's size in the JSON.
                if (!m.delegates()[d].inlineData)
                    QCOMPARE(m.delegates()[d].blobBytes,
                        j["segments"][m.delegates()[d].dataIndex]["size"].get<std::uint64_t>());
                QCOMPARE(m.delegates()[d].compileSpecs.size(), dels[d]["compile_specs"].size());
            }
        }
        const json segs = j.value("segments", json::array());
        QCOMPARE(p.segments().size(), segs.size());
        for (std::size_t s = 0; s < segs.size(); ++s) {
            QCOMPARE(p.segments()[s].offset - p.segmentBase(), segs[s]["offset"].get<std::uint64_t>());
            QCOMPARE(p.segments()[s].size, segs[s]["size"].get<std::uint64_t>());
        }
        if (j.contains("constant_segment") && !j["constant_segment"].value("offsets", json::array()).empty()) {
            const json &cs = j["constant_segment"];
            QCOMPARE(p.constantCount(), cs["offsets"].size() - 1);
            QCOMPARE(p.constantBytes(), segs[cs.value("segment_index", 0u)]["size"].get<std::uint64_t>());
        }
    }

    // The upstream programs: add.pte and the program inside bundled_program.bpte. Facts from their
    // READMEs: one aten::add.out on two float [1] inputs; mul.out + 2 × add.out on int32 2x2;
    // the runner logged "Planned buffer 0: 48 bytes" for both.
    void upstreamPrograms()
    {
        auto add = Program::open(sharedFixture("runtime/add_pte_50runs/add.pte"));
        QVERIFY2(add.ok(), add.ok() ? "" : add.error().message().c_str());
        QCOMPARE((*add)->methods().size(), 1u);
        const ProgramMethod &fwd = (*add)->methods()[0];
        QCOMPARE(fwd.name(), std::string("forward"));
        QCOMPARE(fwd.instructionCount(), 1u);
        QCOMPARE(fwd.instructionLabel(0), std::string("aten::add.out"));
        QCOMPARE(fwd.arenaSizes().at(1), 48);
        QCOMPARE(fwd.inputs().size(), 2u);
        const ProgramValue in0 = fwd.value(std::size_t(fwd.inputs()[0]));
        QCOMPARE(describeValue(in0), std::string("float32[1]"));
        QVERIFY(in0.tensor.isPlanned());
        QCOMPARE(in0.tensor.arena, 1u);

        auto bp = Program::openAny(sharedFixture("runtime/bundled_program_50runs/bundled_program.bpte"));
        QVERIFY2(bp.ok(), bp.ok() ? "" : bp.error().message().c_str());
        const ProgramMethod &bf = (*bp)->methods()[0];
        QCOMPARE(bf.instructionCount(), 3u);
        QCOMPARE(bf.instructionLabel(0), std::string("aten::mul.out"));
        QCOMPARE(bf.instructionLabel(1), std::string("aten::add.out"));
        QCOMPARE(bf.instructionLabel(2), std::string("aten::add.out"));
        QCOMPARE(bf.arenaSizes().at(1), 48);
        QCOMPARE(describeValue(bf.value(std::size_t(bf.outputs()[0]))), std::string("int32[2, 2]"));
        QVERIFY(QString::fromStdString((*bp)->path()).endsWith("bundled_program.bpte:program"));
    }

    void pairsWithItsETDump()
    {
        struct Case {
            const char *pte, *etdump;
            bool matches;
        };
        const Case cases[] = {
            { "runtime/cnn_mlp_50runs/cnn_mlp.pte", "runtime/cnn_mlp_50runs/etdump.etdp", true },
            { "runtime/cnn_mlp_alloc_events/cnn_mlp.pte", "runtime/cnn_mlp_alloc_events/etdump.etdp", true },
            { "runtime/xnnpack_mlp_intermediates/xnn_mlp.pte", "runtime/xnnpack_mlp_intermediates/etdump.etdp", true },
            { "runtime/add_pte_50runs/add.pte", "runtime/add_pte_50runs/etdump.etdp", true },
            { "runtime/bundled_program_50runs/bundled_program.bpte", "runtime/bundled_program_50runs/etdump.etdp",
                true },
            { "runtime/add_pte_50runs/add.pte", "runtime/cnn_mlp_50runs/etdump.etdp", false },
            { "runtime/cnn_mlp_50runs/cnn_mlp.pte", "runtime/xnnpack_mlp_intermediates/etdump.etdp", false },
            { "runtime/bundled_program_50runs/bundled_program.bpte", "runtime/add_pte_50runs/etdump.etdp", false },
        };
        for (const Case &c : cases) {
            auto prog = Program::openAny(sharedFixture(c.pte));
            QVERIFY(prog.ok());
            auto etdump = readETDump(sharedFixture(c.etdump));
            QVERIFY(etdump.ok());
            const ProgramPairing pairing = pairProgramWithETDump(**prog, **etdump);
            QVERIFY2((pairing.method != nullptr) == c.matches, (std::string(c.pte) + ": " + pairing.reason).c_str());
            if (c.matches)
                QVERIFY(pairing.checkedEvents > 0);
            else
                QVERIFY(!pairing.reason.empty());
        }
        // The reasons name what disagrees.
        auto add = Program::open(sharedFixture("runtime/add_pte_50runs/add.pte"));
        auto cnn = readETDump(sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"));
        const ProgramPairing p = pairProgramWithETDump(**add, **cnn);
        QCOMPARE(p.reason,
            std::string("kernel 'native_call_convolution.out' at instruction 0 but the program calls add.out there"));
    }

    // cnn_mlp_alloc_events's README: the runner replayed 300 method-allocator allocations and one
    // planned buffer of 133,840 bytes (= the program's arena 1).
    void allocationEvents()
    {
        auto etdump = readETDump(sharedFixture("runtime/cnn_mlp_alloc_events/etdump.etdp"));
        QVERIFY(etdump.ok());
        const auto usage = allocatorUsage(**etdump);
        QCOMPARE(usage.size(), 2u);
        QCOMPARE(usage[0].allocator, std::string("method_allocator"));
        QCOMPARE(usage[0].count, 300u);
        QCOMPARE(usage[1].allocator, std::string("planned_memory"));
        QCOMPARE(usage[1].count, 1u);
        QCOMPARE(usage[1].totalBytes, 133840u);
        QCOMPARE(usage[0].runName, std::string("MethodLoadAllocations"));
    }

    // The 50 s fuzz campaign's finding: sizes with a zero among absurd ones kept numel at 0 while
    // the stride product overflowed (UBSan: 2638874883072000 * 65538). Now refused as too large.
    void bundledStrideOverflow()
    {
        auto bp = BundledProgram::open(ETSCOPE_SOURCE_DIR
            "/tests/fuzz/regressions/fuzz_bundled_program/crash-88565b6583be6926f208cdf8f25774849e99f80b");
        QVERIFY(!bp.ok());
        QCOMPARE(bp.error().code, ErrorCode::LimitExceeded);
        QVERIFY(bp.error().reason.ends_with("tensor too large"));
        QVERIFY(stridesFromDimOrder({ 0, 1 << 30, 1 << 30, 1 << 30 }, {}).empty());
        QCOMPARE(stridesFromDimOrder({ 2, 3, 4 }, {}), (std::vector<std::int64_t> { 12, 4, 1 }));
    }

    void hostilePrograms_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("reason");
        QTest::newRow("arg out of range") << "arg"
                                          << "instruction 1: value 99 out of range (8 values)";
        QTest::newRow("jump out of range") << "jump"
                                           << "instruction 3: jump destination 40 out of range (8 instructions)";
        QTest::newRow("arena overrun") << "overrun"
                                       << "value 6 (16 bytes at 120) overruns arena 1 (128 bytes)";
        QTest::newRow("arena 0") << "arena0"
                                 << "value 1 planned into arena 0 (2 arenas)";
        QTest::newRow("list of a non-tensor") << "list"
                                              << "tensor list 4 refers to value 4 (not a tensor)";
        QTest::newRow("absurd shape") << "absurd"
                                      << "value 2 claims an absurd tensor size";
        QTest::newRow("operator out of range") << "op"
                                               << "instruction 0: operator 7 out of range (2 operators)";
    }

    // The loop program edited into something broken: one line naming the file and the reason.
    void hostilePrograms()
    {
        QFETCH(QString, edit);
        QFETCH(QString, reason);
        json j = loadJson(ETSCOPE_TEST_DATA_DIR "/program/loop.program.json");
        json &plan = j["execution_plan"][0];
        json &instrs = plan["chains"][0]["instructions"];
        if (edit == "arg")
            instrs[1]["instr_args"]["args"][0] = 99;
        else if (edit == "jump")
            instrs[3]["instr_args"]["destination_instruction"] = 40;
        else if (edit == "overrun")
            plan["values"][6]["val"]["allocation_info"]["memory_offset_low"] = 120;
        else if (edit == "arena0")
            plan["values"][1]["val"]["allocation_info"]["memory_id"] = 0;
        else if (edit == "list")
            plan["values"][4] = { { "val_type", "TensorList" }, { "val", { { "items", { 4 } } } } };
        else if (edit == "absurd")
            plan["values"][2]["val"]["sizes"] = { 2147483647, 2147483647, 2147483647 };
        else if (edit == "op")
            instrs[0]["instr_args"]["op_index"] = 7;
        QTemporaryDir dir;
        const std::string pte = compileProgram(j, dir.path(), "hostile");
        auto prog = Program::open(pte);
        QVERIFY(!prog.ok());
        const std::string msg = prog.error().message();
        QVERIFY2(msg.starts_with(pte + ": method 'forward': "), msg.c_str());
        QVERIFY2(msg.ends_with(reason.toStdString()), msg.c_str());
        QVERIFY(msg.find('\n') == std::string::npos);
    }

    // Header-level damage on a real file with an extended header and segments.
    void damagedFiles()
    {
        std::ifstream in(sharedFixture("runtime/cnn_mlp_50runs/cnn_mlp.pte"), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        auto openBytes = [](std::string b) { return Program::fromFile(MappedFile::fromBytes("x.pte", std::move(b))); };
        QVERIFY(openBytes(bytes).ok());
        QCOMPARE(openBytes("").error().code, ErrorCode::Empty);
        QCOMPARE(openBytes(bytes.substr(0, 6)).error().code, ErrorCode::Truncated);
        std::string wrongId = bytes;
        wrongId[4] = 'X';
        QCOMPARE(openBytes(wrongId).error().message(),
            std::string("x.pte: not an ExecuTorch program (identifier 'XT12', expected 'ET12')"));
        // Cut inside the segments: the constant segment now lies past the end.
        auto cut = openBytes(bytes.substr(0, bytes.size() - 1000));
        QCOMPARE(cut.error().code, ErrorCode::Truncated);
        QVERIFY2(cut.error().reason.starts_with("segment 0 "), cut.error().reason.c_str());
        // eh00 claiming a program larger than the file.
        std::string bigProgram = bytes;
        bigProgram[16 + 5] = 0x7f;
        QVERIFY(openBytes(bigProgram).error().reason.starts_with("extended header claims a"));
        // Cut inside the flatbuffer.
        QCOMPARE(openBytes(bytes.substr(0, 2000)).error().code, ErrorCode::Corrupt);
        // The BundledProgram's program, via the raw .bpte bytes, is recognised by openAny only.
        QCOMPARE(Program::open(sharedFixture("runtime/bundled_program_50runs/bundled_program.bpte")).error().code,
            ErrorCode::BadIdentifier);
    }
};

QTEST_GUILESS_MAIN(TestProgram)
#include "tst_program.moc"
