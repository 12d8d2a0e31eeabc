// Fuzz target: the ExecuTorch program (.pte) reader, then everything that walks a verified
// program (values, instructions, stack traces, labels, the memory plan).
#include "fuzzinput.h"

#include "program/memoryplan.h"
#include "program/program.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto prog
        = Program::fromFile(MappedFile::fromBytes("fuzz.pte", std::string(reinterpret_cast<const char *>(data), size)));
    if (!prog) {
        fuzz::checkErrorMessage(prog.error().message(), "fuzz.pte");
        return 0;
    }
    for (const ProgramMethod &m : (*prog)->methods()) {
        for (std::size_t v = 0; v < m.valueCount(); ++v)
            (void)describeValueWithPlace(m.value(v));
        for (std::size_t c = 0; c < m.chainCount(); ++c)
            for (std::size_t k = 0; k < m.instructionCount(c); ++k) {
                (void)m.instructionLabel(k, c);
                (void)m.stackTrace(k, c);
            }
        const MemoryPlan plan = analyzeMemoryPlan(m);
        (void)plan.tensorOfValue(0);
    }
    return 0;
}
