// Fuzz target: ETDump reader, Inspector event grouping and table rendering on arbitrary bytes.
#include "fuzzinput.h"

#include "events/backendevents.h"
#include "events/eventblockbuilder.h"
#include "events/inspectortable.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto file = fuzz::asFile(data, size, "fuzz.etdp");
    // Keep the event limit small so that inputs claiming many events are refused quickly.
    ETDumpReadOptions options;
    options.maxEvents = 1'000'000;
    auto etdump = readETDump(*file, options);
    if (!etdump) {
        // Every failure must name the file and be one line.
        fuzz::checkErrorMessage(etdump.error().message(), "fuzz.etdp");
        return 0;
    }
    auto blocks = buildEventBlocks(**etdump);
    if (blocks) {
        // Backend event names are arbitrary text (a Vulkan name is JSON): decode all of them.
        const BackendEventTable backend = decodeBackendEvents(*blocks);
        for (const auto &entry : backend.entries())
            (void)describeBackendEvent(*entry.decoded);
        (void)groupDelegateCalls(*blocks, backend);
        const BackendShareRows rows = backendShareRows(*blocks, backend); // share-table names
        for (const auto &entry : backend.entries())
            if (const int r = rows.row(entry.block, entry.event); r >= int(rows.names().size()))
                std::abort(); // a row past the names: a bug
    }
    if (blocks && (*etdump)->eventCount() < 300) {
        // Rendering is linear in the events; skip it on the (rare) large inputs to keep exec/s up.
        (void)formatFancyGrid(*blocks);
        // Event names need not be UTF-8 (regressions/fuzz_etdump/json-invalid-utf8-name.etdp).
        (void)formatJson(*blocks);
    }
    return 0;
}
