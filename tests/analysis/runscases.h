#pragma once

// The cases of the runs tests (tests/analysis/tst_runs.cpp on the core, tests/cli/tst_runscli.cpp
// on the binary): each recording, its program and options, and the expected figures that
// tests/tools/gen_runs_expected.py computed with numpy from the raw events (its CASES table).

#include "testpaths.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace etscope::test {

struct RunsCase {
    std::string name, etdump, program; // program: a .pte, empty for none
    std::optional<std::size_t> prefillRuns;
    std::optional<long> promptTokens;
    std::string phaseBy; // "", "method", "duration"
    std::string sharesBy = {}; // "", "backend-operator"
    std::vector<std::string> data = {}; // .ptd files of the program's external tensors
};

inline std::vector<RunsCase> runsCases()
{
    const std::string llm = testData("analysis/runs_llm.etdp");
    const std::string pte = ETSCOPE_RUNS_PROGRAM; // runs_llm.program.json compiled by the build
    return {
        { "llm_program", llm, pte, {}, {}, "" },
        { "llm_none", llm, "", {}, {}, "none" }, // one phase as asked (by default its operators find the prompt)
        { "llm_prefill_runs", llm, "", 2, 8, "" },
        { "llm_duration", llm, "", {}, {}, "duration" },
        { "cnn_mlp_50runs", sharedFixture("runtime/cnn_mlp_50runs/etdump.etdp"),
            sharedFixture("runtime/cnn_mlp_50runs/cnn_mlp.pte"), {}, {}, "" },
        { "xnnpack_mlp", sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
            sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"), {}, {}, "" },
        // Share rows by backend operator; the authored Vulkan / VGF / Neutron recordings
        // (tests/data/backend) with their wrapping host phases left out.
        { "llm_program_backend", llm, pte, {}, {}, "", "backend-operator" },
        { "xnnpack_mlp_backend", sharedFixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
            sharedFixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"), {}, {}, "", "backend-operator" },
        { "vulkan_stem", testData("backend/vulkan_stem/etdump.etdp"), "", {}, {}, "" },
        { "vulkan_stem_backend", testData("backend/vulkan_stem/etdump.etdp"), "", {}, {}, "", "backend-operator" },
        { "vgf_conv_backend", testData("backend/vgf_conv/etdump.etdp"), "", {}, {}, "", "backend-operator" },
        { "neutron_kernels_backend", testData("backend/neutron_kernels/etdump.etdp"), "", {}, {}, "",
            "backend-operator" },
        // The real two-method LLM generation, with the program's weights file.
        { "llm_decoder_runtime", testData("runtime/llm_decoder/profile/etdump.etdp"),
            testData("runtime/llm_decoder/llm_decoder.pte"), {}, {}, "", "",
            { testData("runtime/llm_decoder/llm_decoder.ptd") } },
    };
}

inline nlohmann::json runsExpected(const std::string &name)
{
    std::ifstream f(testData("analysis/runs_expected/" + name + ".json"));
    return nlohmann::json::parse(f);
}

// Where `actual` differs from `expected` (every key of expected; numbers to 1e-9 relative, as
// numpy and C++ sum in different orders), or empty.
inline std::string jsonMismatch(
    const nlohmann::json &expected, const nlohmann::json &actual, const std::string &at = "")
{
    if (expected.is_number() && actual.is_number() && !expected.is_boolean()) {
        const double e = expected.get<double>(), a = actual.get<double>();
        if (std::abs(e - a) <= 1e-9 * std::max(std::abs(e), 1.0))
            return {};
        return at + ": expected " + expected.dump() + ", got " + actual.dump();
    }
    if (expected.type() != actual.type())
        return at + ": expected " + expected.dump().substr(0, 200) + ", got " + actual.dump().substr(0, 200);
    if (expected.is_object()) {
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            if (!actual.contains(it.key()))
                return at + "." + it.key() + ": missing";
            if (auto m = jsonMismatch(it.value(), actual[it.key()], at + "." + it.key()); !m.empty())
                return m;
        }
        return {};
    }
    if (expected.is_array()) {
        if (expected.size() != actual.size())
            return at + ": " + std::to_string(expected.size()) + " items expected, got "
                + std::to_string(actual.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (auto m = jsonMismatch(expected[i], actual[i], at + "[" + std::to_string(i) + "]"); !m.empty())
                return m;
        return {};
    }
    return expected == actual ? std::string() : at + ": expected " + expected.dump() + ", got " + actual.dump();
}

} // namespace etscope::test
