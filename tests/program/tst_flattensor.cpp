// The FlatTensor (.ptd) reader and the pairing of a program with its external data, on the
// authored fixtures of tests/data/program/ptd (README there). Expected values come from the JSON
// each file was compiled from (parsed here with nlohmann-json), from flatc run here on that JSON,
// from the layout facts of upstream's serializer (header padded to 48 bytes, segments aligned to
// 128), and for the hostile files from the edit each one's name says (hand-written reasons).
#include "testpaths.h"

#include "program/flattensor.h"
#include "program/memoryplan.h"
#include "program/program.h"
#include "program/programexport.h"

#include <nlohmann/json.hpp>

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

using namespace etscope;
using nlohmann::json;

namespace {

const std::string kPte = ETSCOPE_PROGRAM_BUILD_DIR "/external.pte";

std::string ptd(const std::string &name)
{
    return ETSCOPE_TEST_DATA_DIR "/program/ptd/" + name;
}

json loadJson(const std::string &path)
{
    std::ifstream in(path);
    return json::parse(in);
}

std::string readBytes(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), {} };
}

// Bytes flatc writes for the JSON with our schema: the flatbuffer before the header is inserted.
qint64 flatcSize(const std::string &jsonPath)
{
    QTemporaryDir dir;
    QProcess flatc;
    flatc.start(QStringLiteral(ETSCOPE_FLATC),
        { "-b", "-o", dir.path(), QStringLiteral(ETSCOPE_SOURCE_DIR "/core/program/flat_tensor.fbs"),
            QString::fromStdString(jsonPath) });
    if (!flatc.waitForFinished(30000) || flatc.exitCode() != 0)
        return -1;
    const QString base = QFileInfo(QString::fromStdString(jsonPath)).completeBaseName();
    return QFileInfo(dir.path() + "/" + base + ".ptd").size();
}

std::uint64_t alignUp(std::uint64_t n, std::uint64_t a)
{
    return (n + a - 1) / a * a;
}

} // namespace

class TestFlatTensor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void matchesItsJson_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *n : { "external", "missing_name", "wrong_size", "delegate_blob" })
            QTest::newRow(n) << QString(n);
    }

    // Header, segments and every name's layout equal to the JSON and the serializer's layout rules.
    void matchesItsJson()
    {
        QFETCH(QString, name);
        const std::string jsonPath = ptd(name.toStdString() + ".flat_tensor.json");
        const std::string path = ptd(name.toStdString() + ".ptd");
        auto file = FlatTensorFile::open(path);
        QVERIFY2(file.ok(), file.ok() ? "" : file.error().message().c_str());
        const FlatTensorFile &f = **file;
        const json j = loadJson(jsonPath);
        QCOMPARE(f.version(), j.value("version", 0u));
        QCOMPARE(f.headerLength(), 40u);
        QCOMPARE(f.flatbufferOffset(), 48u); // the 40-byte header padded to 16
        const qint64 fbSize = flatcSize(jsonPath);
        QVERIFY(fbSize > 0);
        QCOMPARE(f.flatbufferSize(), std::uint64_t(fbSize));
        QCOMPARE(f.segmentBase(), alignUp(std::uint64_t(fbSize) + 48, 128));
        const json &segs = j["segments"];
        const json &last = segs.back();
        QCOMPARE(f.segmentDataSize(), last["offset"].get<std::uint64_t>() + last["size"].get<std::uint64_t>());
        QCOMPARE(f.fileSize(), f.segmentBase() + f.segmentDataSize());
        // Written with 128-byte alignment: every segment offset is a multiple of 128 (or more).
        QVERIFY(f.segmentAlignment() >= 128 && f.segmentAlignment() % 128 == 0);
        QCOMPARE(f.segments().size(), segs.size());
        for (std::size_t s = 0; s < segs.size(); ++s) {
            QCOMPARE(f.segments()[s].offset, f.segmentBase() + segs[s]["offset"].get<std::uint64_t>());
            QCOMPARE(f.segments()[s].size, segs[s]["size"].get<std::uint64_t>());
        }
        QCOMPARE(f.entries().size(), j["named_data"].size());
        for (std::size_t i = 0; i < f.entries().size(); ++i) {
            const json &nd = j["named_data"][i];
            const FlatTensorEntry &e = f.entries()[i];
            const std::string key = nd["key"].get<std::string>();
            QCOMPARE(std::string(e.key), key);
            QCOMPARE(f.find(key), &e);
            QCOMPARE(e.segment, nd["segment_index"].get<std::uint32_t>());
            QCOMPARE(e.size, segs[e.segment]["size"].get<std::uint64_t>());
            QCOMPARE(e.hasLayout, nd.contains("tensor_layout"));
            if (!e.hasLayout) { // a delegate's blob
                QVERIFY(!e.layoutBytes);
                QCOMPARE(e.describe(), std::string("(no layout)"));
                continue;
            }
            const json &l = nd["tensor_layout"];
            QCOMPARE(l["scalar_type"].get<std::string>(), std::string("FLOAT"));
            QVERIFY(e.dtype() == ScalarType::Float);
            const auto sizes = l["sizes"].get<std::vector<std::int32_t>>();
            QCOMPARE(std::vector<std::int32_t>(e.sizes.begin(), e.sizes.end()), sizes);
            QCOMPARE(std::vector<int>(e.dimOrder.begin(), e.dimOrder.end()), l["dim_order"].get<std::vector<int>>());
            std::uint64_t bytes = 4; // float32
            for (std::int32_t d : sizes)
                bytes *= std::uint64_t(d);
            QCOMPARE(e.layoutBytes.value_or(0), bytes);
        }
        QVERIFY(f.find("no.such.name") == nullptr);
        QVERIFY(f.find("") == nullptr);
    }

    void hostileFiles_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("reason");
        auto row
            = [](const char *n, ErrorCode c, const char *r) { QTest::newRow(n) << QString(n) << int(c) << QString(r); };
        row("empty", ErrorCode::Empty, "file is empty");
        row("truncated_header", ErrorCode::Truncated,
            "30 bytes: too short for the FlatTensor header (40 bytes from offset 8)");
        row("truncated_flatbuffer", ErrorCode::Truncated,
            "header claims a flatbuffer of 376 bytes at 48 in a 244-byte file");
        row("truncated_segments", ErrorCode::Truncated,
            "header claims 280 bytes of segment data at 512 in a 782-byte file");
        row("bad_identifier", ErrorCode::BadIdentifier,
            "not a FlatTensor data file (identifier 'FT99', expected 'FT01')");
        row("bad_magic", ErrorCode::Corrupt, "no FlatTensor header (magic 'FH99', expected 'FH01')");
        row("short_header_length", ErrorCode::Corrupt, "FlatTensor header length 16 < 40");
        row("huge_flatbuffer_size", ErrorCode::Truncated,
            "header claims a flatbuffer of 9223372036854775808 bytes at 48 in a 792-byte file");
        row("segment_base_overflow", ErrorCode::Truncated,
            "header claims 280 bytes of segment data at 18446744073709551608 in a 792-byte file");
        row("segments_in_flatbuffer", ErrorCode::Corrupt,
            "segment data at 16 overlaps the flatbuffer (which ends at 424)");
        row("segment_past_data", ErrorCode::Corrupt,
            "segment 2 (4096 bytes at 256) lies past the segment data (280 bytes)");
        row("segment_index_out_of_range", ErrorCode::Corrupt,
            "named data 'linear.bias' refers to segment 9 (3 segments)");
        row("layout_larger_than_segment", ErrorCode::Corrupt,
            "named data 'linear.weight' is float32[30, 4] (480 bytes) but its segment 0 holds 48 bytes");
        row("duplicate_key", ErrorCode::Corrupt, "key 'linear.weight' appears twice");
        row("dim_order_rank", ErrorCode::Corrupt, "named data 'linear.weight': 2 sizes but 1 dim_order entries");
        // Why the runtime refuses it too: the list came with NamedData (upstream 320d55556f, 2025-03).
        row("no_named_data", ErrorCode::Corrupt,
            "FlatTensor has no named_data list: a .ptd from before NamedData (ExecuTorch, 2025-03), which the "
            "runtime refuses too");
    }

    // One line naming the file and the reason.
    void hostileFiles()
    {
        QFETCH(QString, name);
        QFETCH(int, code);
        QFETCH(QString, reason);
        const std::string path = ptd("hostile/" + name.toStdString() + ".ptd");
        auto file = FlatTensorFile::open(path);
        QVERIFY(!file.ok());
        QCOMPARE(file.error().message(), path + ": " + reason.toStdString());
        QCOMPARE(int(file.error().code), code);
    }

    // Every prefix and every byte flipped of the good file: a file or one clean line, never a crash.
    void everyCutAndFlip()
    {
        const std::string good = readBytes(ptd("external.ptd"));
        QCOMPARE(good.size(), 792u);
        auto check = [](std::string bytes) {
            auto f = FlatTensorFile::fromFile(MappedFile::fromBytes("x.ptd", std::move(bytes)));
            if (f.ok()) {
                for (const FlatTensorEntry &e : (*f)->entries())
                    if (e.offset + e.size > (*f)->fileSize())
                        return false;
                return true;
            }
            const std::string m = f.error().message();
            return m.starts_with("x.ptd: ") && m.find('\n') == std::string::npos;
        };
        std::size_t readable = 0;
        for (std::size_t n = 0; n < good.size(); ++n)
            QVERIFY2(check(good.substr(0, n)), std::to_string(n).c_str());
        for (std::size_t i = 0; i < good.size(); ++i) {
            std::string b = good;
            b[i] = char(b[i] ^ 0xff);
            QVERIFY2(check(b), std::to_string(i).c_str());
            readable += FlatTensorFile::fromFile(MappedFile::fromBytes("x.ptd", b)).ok();
        }
        // The segment bytes (offset 512 on) carry no structure: flipping them leaves the file readable.
        QVERIFY(readable >= good.size() - 512);
    }

    // A .pte whose constants and mutable buffer live in a .ptd opens alone (it was refused with
    // "value 1 refers to constant 1 of 0"); sizes from the program's sizes × 4 (float32).
    void programAlone()
    {
        auto prog = Program::open(kPte);
        QVERIFY2(prog.ok(), prog.ok() ? "" : prog.error().message().c_str());
        const Program &p = **prog;
        const json j = loadJson(ETSCOPE_TEST_DATA_DIR "/program/external.program.json");
        // Distinct external names in order of first use, their bytes and whether they are planned.
        std::vector<std::tuple<std::string, std::uint64_t, bool>> expected;
        std::map<std::string, std::pair<std::size_t, std::uint64_t>> perMethod;
        for (const json &plan : j["execution_plan"]) {
            std::set<std::string> seen;
            for (const json &v : plan["values"]) {
                const json val = v.value("val", json::object());
                if (val.value("extra_tensor_info", json::object()).value("location", "") != "EXTERNAL")
                    continue;
                const std::string name = val["extra_tensor_info"]["fully_qualified_name"];
                std::uint64_t bytes = 4;
                for (int d : val["sizes"])
                    bytes *= std::uint64_t(d);
                if (seen.insert(name).second) {
                    perMethod[plan["name"]].first++;
                    perMethod[plan["name"]].second += bytes;
                }
                if (std::none_of(
                        expected.begin(), expected.end(), [&](const auto &e) { return std::get<0>(e) == name; }))
                    expected.emplace_back(name, bytes, val.contains("allocation_info"));
            }
        }
        QCOMPARE(p.externalTensors().size(), expected.size());
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const ProgramExternalTensor &x = p.externalTensors()[i];
            QCOMPARE(x.name, std::get<0>(expected[i]));
            QCOMPARE(x.nbytes, std::get<1>(expected[i]));
            QCOMPARE(x.mutableBuffer, std::get<2>(expected[i]));
            QCOMPARE(x.file, -1);
            total += x.nbytes;
        }
        QCOMPARE(total, 84u); // 3×4×4 + 3×4 + 2×3×4
        QCOMPARE(p.externalBytes(), total);
        QCOMPARE(p.externalMutableCount(), 1u);
        QVERIFY(p.dataFiles().empty());
        for (const ProgramMethod &m : p.methods()) {
            QCOMPARE(m.externalCount(), perMethod[m.name()].first);
            QCOMPARE(m.externalBytes(), perMethod[m.name()].second);
        }
        const ProgramMethod &fwd = *p.method("forward");
        QCOMPARE(describeValueWithPlace(fwd.value(1)), std::string("float32[3, 4] external: linear.weight"));
        QCOMPARE(describeValueWithPlace(fwd.value(4)), std::string("float32[2, 3] @2:0 external: state.cache cuda:0"));
        QCOMPARE(describeValueWithPlace(fwd.value(6)), std::string("float32[2, 3] @2:32 cuda:0"));
        QCOMPARE(describeValueWithPlace(fwd.value(3)), std::string("float32[1, 3] @1:16"));
        QVERIFY(fwd.value(1).tensor.isConstant());
        QVERIFY(fwd.value(2).tensor.isConstant()); // data_buffer_idx 1 is an index into the .ptd's data, not ours
        QCOMPARE(deviceName(fwd.arenaDevices()[2]), std::string("cuda:0"));
        QCOMPARE(deviceName(fwd.arenaDevices()[1]), std::string("cpu"));

        const MemoryPlan plan = analyzeMemoryPlan(fwd);
        QCOMPARE(plan.constantTensors, 2u); // linear.weight, linear.bias
        QCOMPARE(plan.tensors.size(), 4u); // values 0, 3, 4, 6
        QCOMPARE(plan.externalTensors, 3u);
        QCOMPARE(plan.externalBytes, 84u);
        QCOMPARE(deviceName(plan.arenas[1].device), std::string("cuda:0"));
        QVERIFY(plan.tensorOfValue(4)->external);
        QCOMPARE(deviceName(plan.tensorOfValue(4)->device), std::string("cuda:0"));
    }

    // Paired with its .ptd: every name found, where its bytes are, from the .ptd's JSON.
    void programPaired()
    {
        auto prog = Program::open(kPte);
        QVERIFY(prog.ok());
        auto paired = pairProgramData(*prog, std::vector<std::string> { ptd("external.ptd") });
        QVERIFY2(paired.ok(), paired.ok() ? "" : paired.error().message().c_str());
        const Program &p = **paired;
        QCOMPARE(p.dataFiles().size(), 1u);
        QVERIFY((*prog)->dataFiles().empty()); // the program alone is unchanged
        const json j = loadJson(ptd("external.flat_tensor.json"));
        const std::uint64_t base = p.dataFiles()[0]->segmentBase();
        for (const ProgramExternalTensor &x : p.externalTensors()) {
            const json *nd = nullptr;
            for (const json &n : j["named_data"])
                if (n["key"] == x.name)
                    nd = &n;
            QVERIFY(nd);
            const json &seg = j["segments"][(*nd)["segment_index"].get<std::size_t>()];
            QCOMPARE(x.file, 0);
            QCOMPARE(x.segment, (*nd)["segment_index"].get<std::uint32_t>());
            QCOMPARE(x.offset, base + seg["offset"].get<std::uint64_t>());
            QCOMPARE(x.dataBytes, seg["size"].get<std::uint64_t>());
        }
        // The JSON renderings carry it.
        const json pj = json::parse(programJson(p));
        QCOMPARE(pj["external"]["bytes"].get<int>(), 84);
        QCOMPARE(pj["external"]["tensors"][0]["file"].get<std::string>(), ptd("external.ptd"));
        QCOMPARE(pj["methods"][0]["external_bytes"].get<int>(), 84);
        QCOMPARE(pj["methods"][1]["external_bytes"].get<int>(), 48);
        QCOMPARE(pj["methods"][0]["arenas"][1]["device"].get<std::string>(), std::string("cuda:0"));
        QCOMPARE(pj["methods"][0]["values"][1]["external"].get<std::string>(), std::string("linear.weight"));
        QCOMPARE(pj["methods"][0]["values"][1]["device"].get<std::string>(), std::string("cpu"));
        MemoryReport report;
        report.program = &p;
        report.methods.push_back(&p.methods()[0]);
        report.plans.push_back(analyzeMemoryPlan(p.methods()[0]));
        const json mj = json::parse(memoryJson(report));
        QCOMPARE(mj["methods"][0]["external_bytes"].get<int>(), 84);
        QCOMPARE(mj["methods"][0]["arenas"][1]["device"].get<std::string>(), std::string("cuda:0"));
        QCOMPARE(mj["methods"][0]["tensors"][2]["external"].get<std::string>(), std::string("state.cache"));
        QCOMPARE(mj["external"]["data_files"][0]["segment_alignment"].get<int>(), 128);
    }

    // Refusals name the program, the .ptd and what disagrees.
    void programRefused()
    {
        auto prog = Program::open(kPte);
        QVERIFY(prog.ok());
        auto pair = [&prog](std::vector<std::string> files) { return pairProgramData(*prog, files); };
        auto missing = pair({ ptd("missing_name.ptd") });
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::Refused);
        QCOMPARE(missing.error().message(),
            kPte + ": external tensor 'linear.bias' (float32[3] (12 bytes), method 'forward' value 2) is not in "
                + ptd("missing_name.ptd"));
        auto wrong = pair({ ptd("wrong_size.ptd") });
        QVERIFY(!wrong.ok());
        QCOMPARE(wrong.error().message(),
            kPte
                + ": external tensor 'linear.weight' is float32[3, 4] (48 bytes) in the program (method 'forward' "
                  "value 1) but float32[4, 4] (64 bytes) in "
                + ptd("wrong_size.ptd"));
        auto twice = pair({ ptd("external.ptd"), ptd("wrong_size.ptd") });
        QVERIFY(!twice.ok());
        QCOMPARE(twice.error().reason,
            "'linear.weight' is in both " + ptd("external.ptd") + " and " + ptd("wrong_size.ptd"));
        auto none = pair({});
        QVERIFY(!none.ok());
        QVERIFY(none.error().reason.ends_with("is not in any .ptd"));
        // A .ptd none of whose names the program uses is not its companion.
        auto reuse = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte");
        QVERIFY(reuse.ok());
        auto unrelated = pairProgramData(*reuse, std::vector<std::string> { ptd("external.ptd") });
        QVERIFY(!unrelated.ok());
        QCOMPARE(unrelated.error().reason,
            "none of the 3 tensors in " + ptd("external.ptd") + " is an external tensor of the program");
        // A .ptd opened as a program says what it is.
        auto asProgram = Program::open(ptd("external.ptd"));
        QVERIFY(!asProgram.ok());
        QCOMPARE(asProgram.error().code, ErrorCode::BadIdentifier);
        QVERIFY(asProgram.error().reason.starts_with("FlatTensor data (.ptd), not a program"));
        // A hostile .ptd: its own one line.
        auto bad = pair({ ptd("hostile/bad_magic.ptd") });
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().file, ptd("hostile/bad_magic.ptd"));
    }

    // A .ptd of delegate data (names without a layout, as the XNNPACK and CUDA backends write):
    // paired with a program that has delegates, counted; with one that has none, refused.
    void delegateData()
    {
        auto xnn = Program::open(etscope::test::sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"));
        QVERIFY(xnn.ok());
        auto paired = pairProgramData(*xnn, std::vector<std::string> { ptd("delegate_blob.ptd") });
        QVERIFY2(paired.ok(), paired.ok() ? "" : paired.error().message().c_str());
        QCOMPARE((*paired)->dataFiles().size(), 1u);
        QCOMPARE((*paired)->delegateDataCount(), 1u);
        QCOMPARE((*paired)->delegateDataBytes(), 64u); // delegate_blob.flat_tensor.json: one 64-byte segment
        QVERIFY((*paired)->externalTensors().empty());
        const std::string text = programText(**paired);
        QVERIFY2(text.find("external data: 0 tensors, 0 bytes (0 constants, 0 mutable buffers) in "
                     + ptd("delegate_blob.ptd") + "; delegate data there: 1 name, 64 bytes\n")
                != std::string::npos,
            text.c_str());

        auto reuse = Program::open(ETSCOPE_PROGRAM_BUILD_DIR "/reuse.pte");
        QVERIFY(reuse.ok());
        auto refused = pairProgramData(*reuse, std::vector<std::string> { ptd("delegate_blob.ptd") });
        QVERIFY(!refused.ok());
        QCOMPARE(refused.error().reason,
            ptd("delegate_blob.ptd")
                + " holds only delegate data (1 name without a tensor layout) but the program has no delegates");
    }

    void hostileExternalFields_data()
    {
        QTest::addColumn<QString>("edit");
        QTest::addColumn<QString>("reason");
        // The runtime refuses an external tensor without a name (tensor_parser_exec_aten.cpp).
        QTest::newRow("no name") << "noname"
                                 << "method 'forward': value 2 is external but has no fully qualified name";
        QTest::newRow("empty name") << "emptyname"
                                    << "method 'forward': value 2 is external but has no fully qualified name";
        // forward has non_const_buffer_sizes [0, 64, 64]: memory ids 0..2.
        QTest::newRow("device of a missing arena") << "device"
                                                   << "method 'forward': device given for arena 7 (3 arenas)";
    }

    // The external program edited into something broken: one line naming the file and the reason.
    void hostileExternalFields()
    {
        QFETCH(QString, edit);
        QFETCH(QString, reason);
        json j = loadJson(ETSCOPE_TEST_DATA_DIR "/program/external.program.json");
        json &plan = j["execution_plan"][0];
        if (edit == "noname")
            plan["values"][2]["val"]["extra_tensor_info"].erase("fully_qualified_name");
        else if (edit == "emptyname")
            plan["values"][2]["val"]["extra_tensor_info"]["fully_qualified_name"] = "";
        else if (edit == "device")
            plan["non_const_buffer_device"][0]["buffer_idx"] = 7;
        QTemporaryDir dir;
        const QString jsonPath = dir.path() + "/hostile.json";
        std::ofstream(jsonPath.toStdString()) << j.dump();
        QProcess flatc;
        flatc.start(QStringLiteral(ETSCOPE_FLATC),
            { "-b", "-o", dir.path(), QStringLiteral(ETSCOPE_PROGRAM_SCHEMA), jsonPath });
        QVERIFY(flatc.waitForFinished(30000) && flatc.exitCode() == 0);
        const std::string pte = (dir.path() + "/hostile.pte").toStdString();
        auto prog = Program::open(pte);
        QVERIFY(!prog.ok());
        QCOMPARE(prog.error().message(), pte + ": " + reason.toStdString());
    }
};

QTEST_GUILESS_MAIN(TestFlatTensor)
#include "tst_flattensor.moc"
