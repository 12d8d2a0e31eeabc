// Fuzz target: the CoreMLBackend delegate payload decoder (core/program/delegates/coremlpayload.cpp:
// the inmemoryfs container, its JSON file table, the Core ML model spec's protobuf, the MIL blob
// records), fed raw payload bytes; the seeds are the payloads authored by
// tests/tools/gen_coreml_payloads.py.
#include "fuzzpayload.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    etscope::fuzz::fuzzPayload("CoreMLBackend", data, size);
    return 0;
}
