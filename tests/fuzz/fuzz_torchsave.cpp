// Fuzz target: torch.save zip container + restricted unpickler + tensor materialization.
#include "fuzzinput.h"

#include "etrecord/torchsave.h"

#include <cstdlib>

namespace {

// Visits every tensor in the result and inflates it, as the GUI does when showing values.
void touch(const etscope::PyValue &v, int depth);

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto value = loadTorchSave(fuzz::asFile(data, size, "fuzz.pt"));
    if (!value) {
        fuzz::checkErrorMessage(value.error().message(), "fuzz.pt");
        return 0;
    }
    touch(*value, 0);
    return 0;
}

namespace {
void touch(const etscope::PyValue &v, int depth)
{
    if (depth > 64)
        return;
    if (const auto *t = v.tensor())
        (void)etscope::tensorValues(*t);
    if (const auto *seq = v.sequence())
        for (const auto &item : *seq)
            touch(item, depth + 1);
    if (const auto *d = v.dict())
        for (const auto &kv : d->items) {
            touch(kv.first, depth + 1);
            touch(kv.second, depth + 1);
        }
    (void)v.repr();
}
} // namespace
