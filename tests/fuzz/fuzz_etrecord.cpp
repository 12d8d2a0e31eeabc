// Fuzz target: ETRecord container (zip listing, entry classification, program JSON, handle and
// delegate maps) and the lazily loaded torch.save blobs it points at.
#include "fuzzinput.h"

#include "etrecord/etrecord.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto rec = readETRecord(fuzz::asFile(data, size, "fuzz.etrecord"));
    if (!rec) {
        fuzz::checkErrorMessage(rec.error().message(), "fuzz.etrecord");
        return 0;
    }
    const ETRecord &r = **rec;
    for (const auto &p : r.programs()) {
        (void)r.loadStateDict(p);
        (void)r.loadConstants(p);
        (void)r.loadExampleInputs(p);
    }
    for (const auto &m : r.edgeMethods())
        (void)r.methodMaps(m);
    if (r.hasReferenceOutputs())
        (void)r.loadReferenceOutputs();
    if (r.hasRepresentativeInputs())
        (void)r.loadRepresentativeInputs();
    return 0;
}
