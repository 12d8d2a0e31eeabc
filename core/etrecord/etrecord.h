#pragma once

// An ETRecord (formats.md §3): the zip written by the export flow, read completely and safely.
// Programs (exported-program JSON) and the JSON maps are parsed when the record is read; the
// torch.save companions (state dicts, constants, example inputs, reference outputs,
// representative inputs) are only unpickled when asked for, and their tensors stay lazy.

#include "common/error.h"
#include "etrecord/exportedprogram.h"
#include "etrecord/pyvalue.h"
#include "etrecord/ziparchive.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace etscope {

enum class ETRecordEntryKind {
    Marker, // ETRECORD_V0
    EdgeProgram, // edge_dialect_exported_program[/<method>]
    AtenProgram, // exported_program
    GraphMapProgram, // any other program entry, e.g. aten_dialect_output/forward
    LegacyEtDialect, // et_dialect_graph_module/forward (2023)
    LegacyProgramBuffer, // program_buffer: raw .pte bytes (2023)
    StateDict,
    Constants,
    ExampleInputs,
    DebugHandleMap,
    DelegateMap,
    NumOutsMap,
    ExportGraphId,
    ReferenceOutputs,
    RepresentativeInputs,
    Unknown, // listed, not fatal (e.g. not parseable as a program, orphan companion)
};
const char *entryKindName(ETRecordEntryKind k);

struct ETRecordEntry {
    std::string name;
    std::uint64_t size = 0;
    ETRecordEntryKind kind = ETRecordEntryKind::Unknown;
};

struct ETRecordProgram {
    std::string entryName; // "edge_dialect_exported_program/forward"
    std::string baseName; // "edge_dialect_exported_program"
    std::string method; // "forward" (single-method Edge entries count as forward); may be empty
    ETRecordEntryKind kind = ETRecordEntryKind::GraphMapProgram;
    std::shared_ptr<const ExportedProgram> program;
    // Companion entry names; empty when the file has none (older files), which means "empty".
    std::string stateDictEntry, constantsEntry, exampleInputsEntry;
};

// debug_handle_map value: an int (kernel instruction) or a list (delegate instruction).
struct DebugHandleEntry {
    std::vector<std::int64_t> handles;
    bool isScalar = false;
};

struct DelegateEntry {
    std::string backendName;
    bool innerMapNull = false; // "delegate_map": null (counts as empty when linking)
    // delegate debug identifier (JSON key) -> debug handles, in file order
    std::vector<std::pair<std::string, std::vector<std::int64_t>>> identifiers;
};

struct ETRecordMethodMaps {
    std::map<std::int64_t, DebugHandleEntry> debugHandles; // instruction id ->
    std::map<std::int64_t, DelegateEntry> delegates; // delegate instruction id ->
    std::map<std::int64_t, std::int64_t> numOutputs; // delegate instruction id ->
};

class ETRecord
{
public:
    const std::string &path() const { return m_path; }
    const std::vector<ETRecordEntry> &entries() const { return m_entries; }
    const std::vector<ETRecordProgram> &programs() const { return m_programs; }
    const std::map<std::string, ETRecordMethodMaps> &methods() const { return m_methods; }
    const ETRecordMethodMaps *methodMaps(const std::string &method) const;
    bool hasDebugHandleMap() const { return m_hasDebugHandleMap; }
    bool hasDelegateMap() const { return m_hasDelegateMap; }
    bool hasNumOutputsMap() const { return m_hasNumOutsMap; }
    std::optional<std::int64_t> exportGraphId() const { return m_exportGraphId; }
    const std::vector<std::string> &unknownEntries() const { return m_unknown; }
    const std::vector<std::string> &warnings() const { return m_warnings; }

    // Edge-dialect program of a method ("forward" for single-method files).
    const ETRecordProgram *edgeProgram(const std::string &method = "forward") const;
    const ETRecordProgram *atenProgram() const;
    const ETRecordProgram *program(const std::string &entryName) const;
    // Method names that have an Edge program, in file order.
    std::vector<std::string> edgeMethods() const;

    // torch.save companions and extras, unpickled on demand (restricted unpickler). A missing
    // or zero-length entry yields None.
    Result<PyValue> loadStateDict(const ETRecordProgram &p) const;
    Result<PyValue> loadConstants(const ETRecordProgram &p) const;
    Result<PyValue> loadExampleInputs(const ETRecordProgram &p) const;
    Result<PyValue> loadReferenceOutputs() const;
    Result<PyValue> loadRepresentativeInputs() const;
    bool hasReferenceOutputs() const;
    bool hasRepresentativeInputs() const;

private:
    friend Result<std::shared_ptr<const ETRecord>> readETRecord(std::shared_ptr<const MappedFile> bytes);
    Result<PyValue> loadBlob(const std::string &entry) const;

    std::string m_path;
    std::shared_ptr<const ZipArchive> m_zip;
    std::vector<ETRecordEntry> m_entries;
    std::vector<ETRecordProgram> m_programs;
    std::map<std::string, ETRecordMethodMaps> m_methods;
    bool m_hasDebugHandleMap = false, m_hasDelegateMap = false, m_hasNumOutsMap = false;
    std::optional<std::int64_t> m_exportGraphId;
    std::vector<std::string> m_unknown;
    std::vector<std::string> m_warnings;
};

Result<std::shared_ptr<const ETRecord>> readETRecord(const std::string &path);
Result<std::shared_ptr<const ETRecord>> readETRecord(std::shared_ptr<const MappedFile> bytes);

} // namespace etscope
