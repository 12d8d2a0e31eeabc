// Fuzz target: exported-program JSON (lenient parser: NaN/Infinity) and the graph model built from it.
#include "fuzzinput.h"

#include "etrecord/exportedprogram.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto ep = parseExportedProgram(text, "fuzz.json");
    if (!ep) {
        fuzz::checkErrorMessage(ep.error().message(), "fuzz.json");
        return 0;
    }
    for (const auto &node : ep->nodes) {
        (void)node.sourceLocation();
        (void)node.isDelegateCall();
        (void)inspectorOpName(node.target);
    }
    for (const auto &[name, meta] : ep->tensorValues)
        (void)meta.shapeText();
    (void)parseTensorMetaJson(text);
    return 0;
}
