// Fuzz target: the XnnpackBackend delegate payload decoder (core/program/delegates), fed raw payload
// bytes; the seeds are the payloads authored by tests/tools/gen_delegate_payloads.py.
#include "fuzzpayload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    etscope::fuzz::fuzzPayload("XnnpackBackend", data, size);
    return 0;
}
