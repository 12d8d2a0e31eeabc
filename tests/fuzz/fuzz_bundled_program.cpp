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
        fuzz::checkErrorMessage(bp.error().message(), "fuzz.bpte");
        return 0;
    }
    for (const auto &suite : (*bp)->suites())
        for (const auto &tc : suite.testCases)
            for (const auto &v : tc.inputs)
                (void)stridesFromDimOrder(v.sizes, v.dimOrder);
    (void)(*bp)->programIdentifier();
    return 0;
}
