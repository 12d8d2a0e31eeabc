// torch.save reader and restricted unpickler. Expected values come from
// tests/data/etrecord/torchsave_expected.json, written by tests/tools/gen_etrecord_fixtures.py
// with PyTorch itself (tensor.tolist(), shape, stride, storage_offset) when it wrote the .pt
// files; the hostile inputs are built by the same script or by hand below.
#include "etrecord/torchsave.h"
#include "etrecord/unpickler.h"
#include "etrecord/ziparchive.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace etscope;

namespace {
const QString kData = QStringLiteral(ETSCOPE_TEST_DATA_DIR "/etrecord/");

std::string readAll(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

QJsonObject expected()
{
    QFile f(kData + QStringLiteral("torchsave_expected.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Compares a decoded value with PyTorch's description of it; reports the path on mismatch.
bool matches(const PyValue &v, const QJsonObject &e, const QString &path, QString &why)
{
    const QString kind = e.value(QStringLiteral("kind")).toString();
    auto fail = [&](const QString &msg) {
        why = path + QStringLiteral(": ") + msg;
        return false;
    };
    if (kind == QStringLiteral("tensor")) {
        const PyTensor *t = v.tensor();
        if (!t)
            return fail(QStringLiteral("not a tensor but ") + QString::fromStdString(v.repr()));
        if (QString::fromUtf8(scalarTypeName(t->dtype).data()) != e.value(QStringLiteral("dtype")).toString())
            return fail(QStringLiteral("dtype"));
        auto ints = [](const QJsonValue &a) {
            std::vector<std::int64_t> r;
            for (const auto &x : a.toArray())
                r.push_back(x.toInteger());
            return r;
        };
        if (t->sizes != ints(e.value(QStringLiteral("sizes")))
            || t->strides != ints(e.value(QStringLiteral("strides"))))
            return fail(QStringLiteral("sizes/strides"));
        if (t->storageOffset != e.value(QStringLiteral("offset")).toInteger())
            return fail(QStringLiteral("storage offset"));
        if (t->isParameter != e.value(QStringLiteral("parameter")).toBool())
            return fail(QStringLiteral("parameter flag"));
        auto values = tensorValues(*t);
        if (!values)
            return fail(QString::fromStdString(values.error().message()));
        const QJsonArray ev = e.value(QStringLiteral("values")).toArray();
        if (values->size() != static_cast<std::size_t>(ev.size()))
            return fail(QStringLiteral("element count %1 vs %2").arg(values->size()).arg(ev.size()));
        for (int i = 0; i < ev.size(); ++i)
            if ((*values)[static_cast<std::size_t>(i)] != ev[i].toDouble())
                return fail(QStringLiteral("element %1: %2 vs %3")
                                .arg(i)
                                .arg((*values)[static_cast<std::size_t>(i)])
                                .arg(ev[i].toDouble()));
        return true;
    }
    if (kind == QStringLiteral("None"))
        return v.isNone() || fail(QStringLiteral("not None"));
    if (kind == QStringLiteral("bool"))
        return (v.kind() == PyKind::Bool && *v.toBool() == e.value(QStringLiteral("value")).toBool())
            || fail(QStringLiteral("bool"));
    if (kind == QStringLiteral("int")) {
        if (v.kind() != PyKind::Int)
            return fail(QStringLiteral("not an int"));
        if (e.value(QStringLiteral("big")).toBool())
            return std::get<PyInt>(v.v).big || fail(QStringLiteral("big int not flagged"));
        // QJsonValue holds numbers as double; compare through the JSON text for exactness.
        return v.toInt() == e.value(QStringLiteral("value")).toInteger() || fail(QStringLiteral("int value"));
    }
    if (kind == QStringLiteral("float")) {
        auto d = v.kind() == PyKind::Float ? v.toDouble() : std::nullopt;
        if (!d)
            return fail(QStringLiteral("not a float"));
        if (e.contains(QStringLiteral("text")))
            return (std::isinf(*d) && (*d > 0) == (e.value(QStringLiteral("text")).toString() == QStringLiteral("inf")))
                || fail(QStringLiteral("inf"));
        return *d == e.value(QStringLiteral("value")).toDouble() || fail(QStringLiteral("float value"));
    }
    if (kind == QStringLiteral("str"))
        return (v.str() && QString::fromStdString(*v.str()) == e.value(QStringLiteral("value")).toString())
            || fail(QStringLiteral("str"));
    if (kind == QStringLiteral("bytes"))
        return (v.bytes()
                   && QByteArray::fromStdString(v.bytes()->data).toHex()
                       == e.value(QStringLiteral("hex")).toString().toLatin1())
            || fail(QStringLiteral("bytes"));
    if (kind == QStringLiteral("tuple") || kind == QStringLiteral("list")) {
        const bool tuple = kind == QStringLiteral("tuple");
        if ((tuple && !v.tuple()) || (!tuple && !v.list()))
            return fail(QStringLiteral("not a ") + kind);
        const auto &items = *v.sequence();
        const QJsonArray ei = e.value(QStringLiteral("items")).toArray();
        if (items.size() != static_cast<std::size_t>(ei.size()))
            return fail(QStringLiteral("length"));
        for (int i = 0; i < ei.size(); ++i)
            if (!matches(
                    items[static_cast<std::size_t>(i)], ei[i].toObject(), path + QStringLiteral("[%1]").arg(i), why))
                return false;
        return true;
    }
    if (kind == QStringLiteral("dict")) {
        const PyDict *d = v.dict();
        if (!d)
            return fail(QStringLiteral("not a dict"));
        const QJsonArray ei = e.value(QStringLiteral("items")).toArray();
        if (d->items.size() != static_cast<std::size_t>(ei.size()))
            return fail(QStringLiteral("size"));
        for (int i = 0; i < ei.size(); ++i) {
            const QJsonArray kv = ei[i].toArray();
            const auto &item = d->items[static_cast<std::size_t>(i)];
            if (!matches(item.first, kv[0].toObject(), path + QStringLiteral(".key%1").arg(i), why))
                return false;
            if (!matches(item.second, kv[1].toObject(),
                    path + QStringLiteral("[") + QString::fromStdString(item.first.repr()) + QStringLiteral("]"), why))
                return false;
        }
        return true;
    }
    return fail(QStringLiteral("unknown expected kind ") + kind);
}

std::span<const std::uint8_t> bytesOf(const std::string &s)
{
    return { reinterpret_cast<const std::uint8_t *>(s.data()), s.size() };
}
} // namespace

class TestTorchSave : public QObject
{
    Q_OBJECT
private slots:
    void matchesPyTorch_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("tensors") << QStringLiteral("torchsave_tensors.pt");
        QTest::newRow("containers") << QStringLiteral("torchsave_containers.pt");
    }
    void matchesPyTorch()
    {
        QFETCH(QString, file);
        const QJsonObject exp = expected().value(file).toObject();
        QVERIFY(!exp.isEmpty());
        auto v = loadTorchSave((kData + file).toStdString());
        QVERIFY2(v.ok(), v.ok() ? "" : v.error().message().c_str());
        QString why;
        QVERIFY2(matches(*v, exp, file, why), qPrintable(why));
    }

    void storagesLoadLazilyAndAreShared()
    {
        auto v = loadTorchSave((kData + QStringLiteral("torchsave_tensors.pt")).toStdString());
        QVERIFY(v.ok());
        const PyDict *d = v->dict();
        QVERIFY(d);
        const PyTensor *f32 = d->get("f32")->tensor();
        const PyTensor *tr = d->get("transposed")->tensor();
        const PyTensor *sl = d->get("slice")->tensor();
        QVERIFY(f32 && tr && sl);
        // base, base.t() and base[1:3, 2:5] are views of one storage (PyTorch shares it).
        QCOMPARE(f32->storage.get(), tr->storage.get());
        QCOMPARE(f32->storage.get(), sl->storage.get());
        QVERIFY(!f32->storage->isLoaded());
        QVERIFY(tensorValues(*sl).ok());
        QVERIFY(f32->storage->isLoaded());
        QVERIFY(!d->get("i64")->tensor()->storage->isLoaded());
    }

    void loadsFromMemory()
    {
        auto bytes = MappedFile::fromBytes("mem.pt", readAll(kData + QStringLiteral("torchsave_tensors.pt")));
        auto v = loadTorchSave(bytes);
        QVERIFY(v.ok());
        QCOMPARE(v->dict()->items.size(), std::size_t(15));
    }

    void refusesDangerousGlobals_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("global");
        // os.system pickles as posix.system on Linux.
        QTest::newRow("os.system") << QStringLiteral("hostile_os_system.pt") << QStringLiteral("posix.system");
        QTest::newRow("builtins.eval") << QStringLiteral("hostile_builtins_eval.pt") << QStringLiteral("builtins.eval");
        QTest::newRow("__builtin__.eval protocol 2")
            << QStringLiteral("hostile_builtin_eval_p2.pt") << QStringLiteral("__builtin__.eval");
    }
    void refusesDangerousGlobals()
    {
        QFETCH(QString, file);
        QFETCH(QString, global);
        auto v = loadTorchSave((kData + file).toStdString());
        QVERIFY(!v.ok());
        QCOMPARE(v.error().code, ErrorCode::Refused);
        const QString msg = QString::fromStdString(v.error().message());
        QVERIFY2(msg.contains(global) && msg.contains(file), qPrintable(msg));
        QVERIFY(msg.count(QLatin1Char('\n')) == 0);
    }

    void refusesHandWrittenPickles_data()
    {
        QTest::addColumn<QByteArray>("pickle");
        QTest::addColumn<int>("code");
        using B = QByteArray;
        QTest::newRow("subprocess.Popen") << B("\x80\x02"
                                               "csubprocess\nPopen\n"
                                               "X\x02\x00\x00\x00"
                                               "ls"
                                               "\x85R.",
            30) << int(ErrorCode::Refused);
        QTest::newRow("STACK_GLOBAL posix.system") << B("\x80\x04"
                                                        "\x8c\x05posix"
                                                        "\x8c\x06system"
                                                        "\x93"
                                                        "\x8c\x02id"
                                                        "\x85R.")
                                                   << int(ErrorCode::Refused);
        QTest::newRow("call a dtype") << B("\x80\x02"
                                           "ctorch\nfloat32\n"
                                           ")R.")
                                      << int(ErrorCode::Refused);
        QTest::newRow("cycle") << B("\x80\x02"
                                    "]q\x00h\x00"
                                    "a.",
            9) << int(ErrorCode::Refused);
        QTest::newRow("truncated string") << B("\x80\x02X\xff\x00\x00\x00"
                                               "ab",
            9) << int(ErrorCode::Truncated);
        QTest::newRow("no STOP") << B("\x80\x02K\x01") << int(ErrorCode::Truncated);
        QTest::newRow("unknown memo") << B("\x80\x02h\x05.") << int(ErrorCode::Corrupt);
        QTest::newRow("underflow") << B("\x80\x02a.") << int(ErrorCode::Corrupt);
        QTest::newRow("unsupported opcode") << B("\x80\x02I1\n.") << int(ErrorCode::Unsupported);
        QTest::newRow("persistent id outside archive") << B("\x80\x02K\x01Q.") << int(ErrorCode::Refused);
    }
    void refusesHandWrittenPickles()
    {
        QFETCH(QByteArray, pickle);
        QFETCH(int, code);
        UnpicklerOptions opts;
        opts.label = "hand.pkl";
        const std::string s = pickle.toStdString();
        auto v = unpickle(bytesOf(s), opts);
        QVERIFY(!v.ok());
        QCOMPARE(int(v.error().code), code);
        QVERIFY(v.error().message().starts_with("hand.pkl: "));
    }

    void deepNestingIsRefusedWithoutOverflow()
    {
        // 200,000 nested lists: a recursive reader or destructor would overflow the stack.
        const std::size_t n = 200000;
        std::string s = "\x80\x02";
        s.append(n, ']');
        s.append(n - 1, 'a');
        s += '.';
        UnpicklerOptions opts;
        opts.label = "deep.pkl";
        auto v = unpickle(bytesOf(s), opts);
        QVERIFY(!v.ok());
        QCOMPARE(v.error().code, ErrorCode::LimitExceeded);
    }

    void messagesStayOneLine()
    {
        // A refused global whose name holds control bytes: the message escapes them.
        const std::string s("\x80\x04"
                            "\x8c\x03"
                            "a\nb"
                            "\x8c\x02"
                            "c\x01"
                            "\x93"
                            ".",
            13);
        UnpicklerOptions opts;
        opts.label = "ctl.pkl";
        auto v = unpickle(bytesOf(s), opts);
        QVERIFY(!v.ok());
        QCOMPARE(v.error().code, ErrorCode::Refused);
        QVERIFY(v.error().message().find('\n') == std::string::npos);
        QVERIFY2(v.error().message().find("a\\x0ab.c\\x01") != std::string::npos, v.error().message().c_str());
    }

    void decodesHandWrittenPickle()
    {
        // (1, -2, 3.5 (BINFLOAT big-endian), 'a', LONG1 2^40, None) built by hand from §4.2.
        const std::string s("\x80\x02(K\x01J\xfe\xff\xff\xff"
                            "G\x40\x0c\x00\x00\x00\x00\x00\x00"
                            "X\x01\x00\x00\x00"
                            "a"
                            "\x8a\x06\x00\x00\x00\x00\x00\x01"
                            "Nt.",
            36);
        UnpicklerOptions opts;
        auto v = unpickle(bytesOf(s), opts);
        QVERIFY2(v.ok(), v.ok() ? "" : v.error().message().c_str());
        QCOMPARE(QString::fromStdString(v->repr()), QStringLiteral("(1, -2, 3.5, 'a', 1099511627776, None)"));
    }

    void shortStorageIsCorrupt()
    {
        auto v = loadTorchSave((kData + QStringLiteral("hostile_short_storage.pt")).toStdString());
        QVERIFY(!v.ok());
        QCOMPARE(v.error().code, ErrorCode::Corrupt);
    }

    void truncatedArchives_data()
    {
        QTest::addColumn<int>("keep");
        for (int keep : { 0, 10, 100, 1000, 2000, 4000, 4072 })
            QTest::newRow(qPrintable(QString::number(keep))) << keep;
    }
    void truncatedArchives()
    {
        QFETCH(int, keep);
        std::string all = readAll(kData + QStringLiteral("torchsave_tensors.pt"));
        QVERIFY(all.size() > static_cast<std::size_t>(keep));
        auto v = loadTorchSave(MappedFile::fromBytes("cut.pt", all.substr(0, static_cast<std::size_t>(keep))));
        QVERIFY(!v.ok());
        QVERIFY(v.error().message().starts_with("cut.pt: "));
    }

    void entryLyingAboutItsSize()
    {
        // Patch the central-directory sizes of archive/data.pkl to 3 GB: must be refused
        // before any allocation, not crash.
        std::string all = readAll(kData + QStringLiteral("torchsave_tensors.pt"));
        const std::string name = "archive/data.pkl";
        std::size_t pos = 0;
        bool patched = false;
        while ((pos = all.find("PK\x01\x02", pos)) != std::string::npos) {
            const auto nameLen = std::uint16_t(std::uint8_t(all[pos + 28]) | (std::uint8_t(all[pos + 29]) << 8));
            if (all.compare(pos + 46, nameLen, name) == 0) {
                const std::uint32_t huge = 3000000000u;
                std::memcpy(&all[pos + 20], &huge, 4); // compressed size
                std::memcpy(&all[pos + 24], &huge, 4); // uncompressed size
                patched = true;
            }
            pos += 4;
        }
        QVERIFY(patched);
        auto v = loadTorchSave(MappedFile::fromBytes("liar.pt", all));
        QVERIFY(!v.ok());
        QVERIFY2(v.error().code == ErrorCode::Corrupt || v.error().code == ErrorCode::LimitExceeded,
            v.error().message().c_str());
    }

    void entrySizeCap()
    {
        auto zip = ZipArchive::open((kData + QStringLiteral("torchsave_tensors.pt")).toStdString());
        QVERIFY(zip.ok());
        auto r = (*zip)->read("archive/data.pkl", 16);
        QVERIFY(!r.ok());
        QCOMPARE(r.error().code, ErrorCode::LimitExceeded);
    }
};

QTEST_GUILESS_MAIN(TestTorchSave)
#include "tst_torchsave.moc"
