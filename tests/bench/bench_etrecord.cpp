// ETRecord load benchmark: a generated ETRecord with a ~10,000-node Edge graph and a ~100 MB
// state dict. Measures metadata loading (zip directory, graph JSON, maps, state-dict pickle;
// tensors stay lazy; target <= 0.3 s) and, separately, materializing one tensor.
// Prints "BENCH <name> <seconds>" per iteration (tests/bench/CMakeLists.txt protocol).
#include "etrecord/etrecord.h"
#include "etrecord/torchsave.h"

#include <fmt/format.h>
#include <zip.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

using namespace etscope;

namespace {
constexpr int kNodes = 10000;
constexpr int kTensors = 1000;
constexpr int kFloatsPerTensor = 25000; // 1000 x 100 KB = 100 MB

void putStr(std::string &p, const std::string &s)
{
    p += 'X';
    const auto n = static_cast<std::uint32_t>(s.size());
    p.append(reinterpret_cast<const char *>(&n), 4);
    p += s;
}
void putInt(std::string &p, std::int32_t v)
{
    p += 'J';
    p.append(reinterpret_cast<const char *>(&v), 4);
}

// A protocol-2 pickle shaped like torch.save's for {name: float tensor}.
std::string statePickle()
{
    std::string p = "\x80\x02}(";
    for (int i = 0; i < kTensors; ++i) {
        putStr(p, fmt::format("layers.{}.weight", i));
        p += "ctorch._utils\n_rebuild_tensor_v2\n(";
        p += "(";
        putStr(p, "storage");
        p += "ctorch\nFloatStorage\n";
        putStr(p, std::to_string(i));
        putStr(p, "cpu");
        putInt(p, kFloatsPerTensor);
        p += "tQ";
        putInt(p, 0);
        p += "(";
        putInt(p, 250);
        putInt(p, 100);
        p += "t(";
        putInt(p, 100);
        putInt(p, 1);
        p += "t\x89"
             "ccollections\nOrderedDict\n)R"
             "tR";
    }
    p += "u.";
    return p;
}

bool writeZip(const std::string &path, const std::vector<std::pair<std::string, const std::string *>> &entries)
{
    int err = 0;
    zip_t *z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
    if (!z)
        return false;
    for (const auto &[name, data] : entries) {
        zip_source_t *s = zip_source_buffer(z, data->data(), data->size(), 0);
        const zip_int64_t idx = s ? zip_file_add(z, name.c_str(), s, ZIP_FL_ENC_UTF_8) : -1;
        if (idx < 0 || zip_set_file_compression(z, static_cast<zip_uint64_t>(idx), ZIP_CM_STORE, 0) != 0) {
            zip_discard(z);
            return false;
        }
    }
    return zip_close(z) == 0;
}

std::string graphJson()
{
    std::string j
        = R"({"graph_module": {"graph": {"inputs": [{"as_tensor": {"name": "x"}}], "outputs": [{"as_tensor": {"name": "n)"
        + std::to_string(kNodes - 1) + R"("}}], "nodes": [)";
    for (int i = 0; i < kNodes; ++i) {
        const std::string in = i ? "n" + std::to_string(i - 1) : "x";
        j += fmt::format(
            R"({{"name": "n{0}", "target": "executorch.exir.dialects.edge.ops.aten.linear.default", "inputs": [{{"name": "input", "arg": {{"as_tensor": {{"name": "{1}"}}}}, "kind": 1}}, {{"name": "weight", "arg": {{"as_tensor": {{"name": "p{2}"}}}}, "kind": 1}}, {{"name": "alpha", "arg": {{"as_float": Infinity}}, "kind": 1}}], "outputs": [{{"as_tensor": {{"name": "n{0}"}}}}], "metadata": {{"stack_trace": "  File \"/home/dev/model.py\", line {3}, in forward\n    x = self.layers[{2}](x)\n", "nn_module_stack": "L__self___layers_{2},getattr(L['self'].layers, '{2}'),torch.nn.modules.linear.Linear", "debug_handle": "{4}", "from_node": "[{{\"name\": \"linear_{0}\", \"target\": \"aten.linear.default\", \"graph_id\": 1, \"pass_name\": \"\", \"action\": \"create\", \"from_node\": []}}]"}}}}{5})",
            i, in, i % kTensors, 100 + i, i + 1, i + 1 < kNodes ? ", " : "");
    }
    j += R"(], "tensor_values": {)";
    for (int i = 0; i < kNodes; ++i)
        j += fmt::format(
            R"("n{}": {{"dtype": 7, "sizes": [{{"as_int": 1}}, {{"as_int": 250}}], "requires_grad": false, "device": {{"type": "cpu"}}, "strides": [{{"as_int": 250}}, {{"as_int": 1}}], "storage_offset": {{"as_int": 0}}, "layout": 7}}{})",
            i, i + 1 < kNodes ? ", " : "");
    j += R"(}}, "signature": {"input_specs": [], "output_specs": []}, "module_call_graph": []}, "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": {"major": 5, "minor": 3}, "verifiers": [], "dialect": "EDGE"})";
    return j;
}

double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

// CPU time of this thread: on a shared, loaded machine wall time mostly measures the others.
double cpuSeconds()
{
    timespec ts {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
} // namespace

int main(int argc, char **argv)
{
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const auto dir = std::filesystem::temp_directory_path() / "etscope_bench_etrecord";
    std::filesystem::create_directories(dir);
    const std::string sdPath = (dir / "state_dict.pt").string();
    const std::string recPath = (dir / "etrecord.bin").string();

    {
        // torch.save archive: archive/data.pkl, archive/byteorder, archive/data/<key>.
        const std::string pkl = statePickle();
        const std::string order = "little";
        const std::string storage(std::size_t(kFloatsPerTensor) * 4, '\x01');
        std::vector<std::string> names;
        std::vector<std::pair<std::string, const std::string *>> entries { { "archive/data.pkl", &pkl },
            { "archive/byteorder", &order } };
        for (int i = 0; i < kTensors; ++i)
            entries.emplace_back("archive/data/" + std::to_string(i), &storage);
        if (!writeZip(sdPath, entries)) {
            std::fprintf(stderr, "bench_etrecord: cannot write %s\n", sdPath.c_str());
            return 1;
        }
    }
    {
        auto sd = MappedFile::open(sdPath);
        if (!sd)
            return 1;
        const std::string sdBytes(reinterpret_cast<const char *>((*sd)->data()), (*sd)->size());
        const std::string marker;
        const std::string graph = graphJson();
        std::string dhm = R"({"forward": {)";
        for (int i = 0; i < kNodes; ++i)
            dhm += fmt::format(R"("{}": {}{})", i, i + 1, i + 1 < kNodes ? ", " : "");
        dhm += "}}";
        const std::string empty = "{}";
        if (!writeZip(recPath,
                { { "ETRECORD_V0", &marker }, { "edge_dialect_exported_program/forward", &graph },
                    { "edge_dialect_exported_program/forward_state_dict", &sdBytes }, { "debug_handle_map", &dhm },
                    { "delegate_map", &empty } })) {
            std::fprintf(stderr, "bench_etrecord: cannot write %s\n", recPath.c_str());
            return 1;
        }
        std::fprintf(stderr, "bench_etrecord: %zu nodes, graph JSON %.1f MB, state dict %.1f MB\n", std::size_t(kNodes),
            double(graph.size()) / 1e6, double(sdBytes.size()) / 1e6);
    }

    for (int it = 0; it < iterations; ++it) {
        const double c0 = cpuSeconds();
        const auto t0 = std::chrono::steady_clock::now();
        auto rec = readETRecord(recPath);
        if (!rec) {
            std::fprintf(stderr, "bench_etrecord: %s\n", rec.error().message().c_str());
            return 1;
        }
        const auto t1 = std::chrono::steady_clock::now();
        const ETRecordProgram *p = (*rec)->edgeProgram("forward");
        auto sd = p ? (*rec)->loadStateDict(*p) : Result<PyValue>(makeError(ErrorCode::Corrupt, recPath, "no program"));
        if (!sd || !sd->dict() || sd->dict()->items.size() != std::size_t(kTensors)
            || p->program->nodes.size() != std::size_t(kNodes)) {
            std::fprintf(stderr, "bench_etrecord: unexpected content\n");
            return 1;
        }
        const auto t2 = std::chrono::steady_clock::now();
        const double c2 = cpuSeconds();
        const PyTensor *t = sd->dict()->items[std::size_t(kTensors / 2)].second.tensor();
        if (!t || t->storage->isLoaded())
            return 1;
        auto values = tensorValues(*t);
        const auto t3 = std::chrono::steady_clock::now();
        if (!values || values->size() != std::size_t(kFloatsPerTensor))
            return 1;
        std::printf("BENCH etrecord_graph_and_maps %.6f\n", seconds(t0, t1));
        std::printf("BENCH etrecord_metadata_total %.6f\n", seconds(t0, t2));
        std::printf("BENCH etrecord_one_tensor %.6f\n", seconds(t2, t3));
        std::printf("BENCH etrecord_metadata_total_cpu %.6f\n", c2 - c0);
    }
    std::filesystem::remove_all(dir);
    return 0;
}
