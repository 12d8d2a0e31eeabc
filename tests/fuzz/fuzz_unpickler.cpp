// Fuzz target: the restricted pickle VM on a bare pickle stream (persistent ids resolve to None).
#include "fuzzinput.h"

#include "etrecord/unpickler.h"

#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    UnpicklerOptions options;
    options.label = "fuzz.pkl";
    options.persistentLoad = [](const PyValue &) -> Result<PyValue> { return PyValue(PyNone {}); };
    auto value = unpickle(std::span<const std::uint8_t>(data, size), options);
    if (!value) {
        fuzz::checkErrorMessage(value.error().message(), "fuzz.pkl");
        return 0;
    }
    (void)value->repr();
    return 0;
}
