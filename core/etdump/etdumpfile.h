#pragma once

#include "common/error.h"
#include "common/mappedfile.h"
#include "common/stringpool.h"
#include "etdump/runtimevalue.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace etscope {

// Chain index as stored: ProfileEvent has int32, DebugEvent uint64. The Inspector keys on the
// raw Python ints, so -1 (profile) and 2^64-1 (debug program outputs) are different keys.
struct ChainIndex {
    bool negative = false; // from a signed field holding a negative value
    std::uint64_t bits = 0;

    static ChainIndex fromSigned(std::int64_t v) { return { v < 0, static_cast<std::uint64_t>(v) }; }
    static ChainIndex fromUnsigned(std::uint64_t v) { return { false, v }; }
    // Display value: -1 for both "outside an instruction" spellings.
    std::int64_t display() const { return static_cast<std::int64_t>(bits); }
    bool operator==(const ChainIndex &) const = default;
};

// One ProfileEvent with schema defaults applied. Strings are ids into ETDumpFile::strings
// (0 = absent or empty).
struct ProfileEventRecord {
    StringPool::Id name = 0;
    std::int32_t chainIndex = 0;
    std::int32_t instructionId = -1;
    std::int32_t delegateDebugIdInt = -1;
    StringPool::Id delegateDebugIdStr = 0;
    StringPool::Id delegateDebugMetadata = 0; // raw bytes interned as a string
    std::uint64_t startTime = 0;
    std::uint64_t endTime = 0;
};

struct DebugEventRecord {
    std::uint64_t chainIndex = 0;
    std::int32_t instructionId = -1;
    std::int32_t delegateDebugIdInt = -1;
    StringPool::Id delegateDebugIdStr = 0;
    StringPool::Id name = 0;
    bool hasEntry = false; // debug_entry present
    RuntimeValue value;
};

struct AllocationEventRecord {
    std::int32_t allocatorId = 0; // 1-based: id n refers to allocators[n-1]
    std::uint64_t allocationSize = 0;
};

// Position of an event of the run in file order.
struct EventRef {
    enum class Kind : std::uint8_t { Profile, Debug, Allocation, Empty };
    static constexpr std::uint32_t kMaxIndex = (1u << 30) - 1;
    Kind kind : 2 = Kind::Empty; // 4 bytes in all: one per event of a file
    std::uint32_t index : 30 = 0; // into the run's vector of that kind (readETDump refuses more)
};
static_assert(sizeof(EventRef) == 4);

struct RunData {
    std::string name;
    std::int32_t bundledInputIndex = -1;
    std::vector<std::string> allocators;
    bool hasEvents = false; // the events vector is present (the Inspector skips runs without it)
    std::vector<EventRef> events;
    std::vector<ProfileEventRecord> profileEvents;
    std::vector<DebugEventRecord> debugEvents;
    std::vector<AllocationEventRecord> allocationEvents;
};

// A decoded ETDump. Immutable after load; safe to share across threads.
struct ETDumpFile {
    std::string path;
    std::uint64_t fileSize = 0;
    std::uint32_t version = 0;
    std::vector<RunData> runs;
    StringPool strings;

    std::size_t eventCount() const;
};

struct ETDumpReadOptions {
    // Refuse files with more events than this before allocating anything for them.
    std::uint64_t maxEvents = 200'000'000;
};

// Reads and verifies a size-prefixed ETDump (identifier ED00). Errors name the file.
Result<std::shared_ptr<const ETDumpFile>> readETDump(const std::string &path, const ETDumpReadOptions & = {});
Result<std::shared_ptr<const ETDumpFile>> readETDump(const MappedFile &file, const ETDumpReadOptions & = {});

// True when the bytes look like an ETDump (size prefix + ED00), without verifying.
bool looksLikeETDump(const std::uint8_t *data, std::size_t size);

// The version of the schema this reader implements (for --version and About boxes).
const char *etdumpSchemaDescription();

} // namespace etscope
