#pragma once

// The FlatTensor data file (.ptd, identifier FT01): tensors kept outside a .pte, found by name.
// Memory-mapped, header and flatbuffer verified once when opened, then read in place. Our own
// transcription of the schema lives in flat_tensor.fbs; nothing here exposes its generated
// types. Layout facts follow ExecuTorch's extension/flat_tensor/serialize/ (flat_tensor.fbs,
// flat_tensor_header.h, serialize.py) at commit cff6f4dd32e630945b7188512c1f2b4f102b05ad.

#include "common/error.h"
#include "common/mappedfile.h"
#include "etdump/scalartype.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace etscope {

class Program;

// One named blob. With a layout (every tensor the exporter writes has one), the tensor's dtype,
// sizes and dim order; layoutBytes is their numel × element size (nullopt for a dtype etscope
// does not know).
struct FlatTensorEntry {
    std::string_view key; // a tensor's fully qualified name, e.g. "linear.weight"
    std::uint32_t segment = 0;
    std::uint64_t offset = 0; // absolute file offset of the segment's data
    std::uint64_t size = 0; // bytes of the segment
    bool hasLayout = false;
    std::int8_t scalarType = 0; // as stored (ExecuTorch's ScalarType numbering)
    std::span<const std::int32_t> sizes;
    std::span<const std::uint8_t> dimOrder;
    std::optional<std::uint64_t> layoutBytes;

    std::optional<ScalarType> dtype() const;
    // "float32[3, 4]", or "(no layout)".
    std::string describe() const;
};

struct FlatTensorSegment {
    std::uint64_t offset = 0; // absolute file offset
    std::uint64_t size = 0;
};

class FlatTensorFile
{
public:
    // Refuse files claiming more than this many segments or names.
    static constexpr std::uint64_t kMaxEntries = 10'000'000;
    // Size of the extended header's fields (magic, length, four 64-bit numbers).
    static constexpr std::uint32_t kHeaderLength = 40;

    static Result<std::shared_ptr<const FlatTensorFile>> open(const std::string &path);
    // Takes the file (mapped or owned bytes) and verifies it; the object keeps it alive.
    static Result<std::shared_ptr<const FlatTensorFile>> fromFile(std::shared_ptr<const MappedFile> file);

    const std::string &path() const { return m_file->path(); }
    std::uint64_t fileSize() const { return m_file->size(); }
    std::uint32_t version() const { return m_version; }

    // The extended header (FH01) at offset 8: the flatbuffer spans [0, flatbufferOffset +
    // flatbufferSize); segment offsets are relative to segmentBase.
    std::uint32_t headerLength() const { return m_headerLength; }
    std::uint64_t flatbufferOffset() const { return m_flatbufferOffset; }
    std::uint64_t flatbufferSize() const { return m_flatbufferSize; }
    std::uint64_t segmentBase() const { return m_segmentBase; }
    std::uint64_t segmentDataSize() const { return m_segmentDataSize; }
    // The largest power of two (at most 65536) dividing the segment base and every segment's
    // offset: the alignment the file was written with (upstream's default is 128).
    std::uint64_t segmentAlignment() const { return m_alignment; }

    const std::vector<FlatTensorSegment> &segments() const { return m_segments; }
    const std::vector<FlatTensorEntry> &entries() const { return m_entries; }
    const FlatTensorEntry *find(std::string_view key) const;

private:
    std::shared_ptr<const MappedFile> m_file;
    std::uint32_t m_version = 0;
    std::uint32_t m_headerLength = 0;
    std::uint64_t m_flatbufferOffset = 0, m_flatbufferSize = 0, m_segmentBase = 0, m_segmentDataSize = 0;
    std::uint64_t m_alignment = 0;
    std::vector<FlatTensorSegment> m_segments;
    std::vector<FlatTensorEntry> m_entries;
    std::vector<std::size_t> m_byKey; // indices into m_entries, sorted by key
};

// True when the bytes carry the FlatTensor identifier FT01 at offset 4.
bool looksLikeFlatTensor(const std::uint8_t *data, std::size_t size);

// Pairs a program with the .ptd files that hold its external tensors (what the runtime's
// load_program(..., data_path=...) does): every external tensor's fully qualified name must be
// in exactly one file and agree there in dtype, sizes and dim order, and its segment must hold
// its bytes. Names without a tensor layout are delegate data (counted, not matched). A file is
// refused as not the program's when it holds tensors of which the program uses none and no
// delegate data, or only delegate data while the program has no delegates. Returns the program
// with the data attached (Program::dataFiles(), ProgramExternalTensor::file/offset,
// Program::delegateDataCount/Bytes), or an error whose one line names the program, the .ptd
// file and the reason.
Result<std::shared_ptr<const Program>> pairProgramData(
    const std::shared_ptr<const Program> &program, const std::vector<std::shared_ptr<const FlatTensorFile>> &files);
// Opens each path first (errors name that file).
Result<std::shared_ptr<const Program>> pairProgramData(
    const std::shared_ptr<const Program> &program, const std::vector<std::string> &ptdPaths);

// Program::openAny, then pairProgramData when ptdPaths is not empty.
Result<std::shared_ptr<const Program>> openProgramWithData(
    const std::string &path, const std::vector<std::string> &ptdPaths);

} // namespace etscope
