// Fuzz target: BundledProgram (.bpte) reader.
#include "fuzzinput.h"

#include "bundled/bundledprogram.h"

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto bp = BundledProgram::fromBytes(std::span<const std::uint8_t>(data, size), "fuzz.bpte");
    if (!bp) {
        // Known: the bad-identifier message quotes raw bytes, newlines included
        // (regressions/fuzz_bundled_program/error-message-raw-identifier-bytes.bpte).
        fuzz::checkErrorMessage(bp.error().message(), "fuzz.bpte", fuzz::skipKnownIssues());
        return 0;
    }
    for (const auto &suite : (*bp)->suites())
        for (const auto &tc : suite.testCases)
            for (const auto &v : tc.inputs)
                (void)stridesFromDimOrder(v.sizes, v.dimOrder);
    (void)(*bp)->programIdentifier();
    return 0;
}
