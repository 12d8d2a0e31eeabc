// Fuzz target: the FlatTensor (.ptd) reader, then what reads a verified file (lookups by key,
// the text and JSON renderings).
#include "fuzzinput.h"

#include "program/flattensor.h"
#include "program/programexport.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto file = FlatTensorFile::fromFile(
        MappedFile::fromBytes("fuzz.ptd", std::string(reinterpret_cast<const char *>(data), size)));
    if (!file) {
        fuzz::checkErrorMessage(file.error().message(), "fuzz.ptd");
        return 0;
    }
    const FlatTensorFile &f = **file;
    for (const FlatTensorEntry &e : f.entries()) {
        if (f.find(e.key) == nullptr || e.offset + e.size > f.fileSize())
            std::abort(); // every key is found again and its bytes lie inside the file
        (void)e.describe();
    }
    (void)flatTensorText(f);
    (void)flatTensorJson(f);
    return 0;
}
