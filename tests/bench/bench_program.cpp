// Reading a generated 100k-instruction program (.pte) and analysing its memory plan. Target:
// open + verify ≤ 0.2 s. Prints BENCH lines (see tests/bench/CMakeLists.txt).
#include "program/memoryplan.h"
#include "program/program.h"

#include <program_generated.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace pf = etscope::ptefb;

// A chain of n unary kernels over n + 1 float[64, 64] tensors, each placed over the one two
// steps back (ping-pong between two slots plus the input), with a stack trace per instruction.
static std::string generate(int n)
{
    flatbuffers::FlatBufferBuilder b(64 << 20);
    const std::int64_t tensorBytes = 64 * 64 * 4;
    std::vector<flatbuffers::Offset<pf::EValue>> values;
    for (int v = 0; v <= n; ++v) {
        const std::vector<std::int32_t> sizes { 64, 64 };
        const std::vector<std::uint8_t> dims { 0, 1 };
        auto alloc = pf::CreateAllocationDetails(b, 1, std::uint32_t((v % 3) * tensorBytes), 0);
        auto t = pf::CreateTensorDirect(b, pf::ScalarType::FLOAT, 0, &sizes, &dims, false, 0, alloc);
        values.push_back(pf::CreateEValue(b, pf::KernelTypes::Tensor, t.Union()));
    }
    std::vector<flatbuffers::Offset<pf::Instruction>> instrs;
    std::vector<flatbuffers::Offset<pf::FrameList>> frames;
    for (int k = 0; k < n; ++k) {
        const std::vector<std::int32_t> args { k, k + 1, k + 1 };
        auto call = pf::CreateKernelCallDirect(b, k % 7, &args);
        instrs.push_back(pf::CreateInstruction(b, pf::InstructionArguments::KernelCall, call.Union()));
        std::vector<flatbuffers::Offset<pf::Frame>> f { pf::CreateFrameDirect(
            b, "model.py", k, "forward", "x = op(x)") };
        frames.push_back(pf::CreateFrameListDirect(b, &f));
    }
    const std::vector<std::int32_t> in { 0 }, out { n };
    auto chain = pf::CreateChainDirect(b, &in, &out, &instrs, &frames);
    std::vector<flatbuffers::Offset<pf::Chain>> chains { chain };
    std::vector<flatbuffers::Offset<pf::Operator>> ops;
    for (int o = 0; o < 7; ++o)
        ops.push_back(pf::CreateOperatorDirect(b, ("aten::op" + std::to_string(o)).c_str(), "out"));
    const std::vector<std::int64_t> arenas { 0, 3 * tensorBytes };
    auto plan = pf::CreateExecutionPlanDirect(b, "forward", 0, &values, &in, &out, &chains, &ops, nullptr, &arenas);
    std::vector<flatbuffers::Offset<pf::ExecutionPlan>> plans { plan };
    b.Finish(pf::CreateProgramDirect(b, 0, &plans), pf::ProgramIdentifier());
    return std::string(reinterpret_cast<const char *>(b.GetBufferPointer()), b.GetSize());
}

int main(int argc, char **argv)
{
    const int n = argc > 1 ? std::stoi(argv[1]) : 100000;
    const std::string path = argc > 2 ? argv[2] : "/tmp/etscope_bench_program.pte";
    std::ofstream(path, std::ios::binary) << generate(n);
    for (int rep = 0; rep < 5; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        auto prog = etscope::Program::open(path);
        const auto t1 = std::chrono::steady_clock::now();
        if (!prog) {
            std::fprintf(stderr, "%s\n", prog.error().message().c_str());
            return 1;
        }
        const etscope::MemoryPlan plan = etscope::analyzeMemoryPlan((*prog)->methods()[0]);
        const auto t2 = std::chrono::steady_clock::now();
        std::printf("BENCH program_open_%dk %.6f\n", n / 1000, std::chrono::duration<double>(t1 - t0).count());
        std::printf("BENCH memory_plan_%dk %.6f\n", n / 1000, std::chrono::duration<double>(t2 - t1).count());
        if (plan.tensors.size() != std::size_t(n + 1))
            return 1;
    }
    return 0;
}
