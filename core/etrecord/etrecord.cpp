#include "etrecord/etrecord.h"

#include "etrecord/lenientjson.h"
#include "etrecord/torchsave.h"

#include <fmt/format.h>

#include <charconv>

namespace etscope {

using nlohmann::json;

namespace {
constexpr const char *kMarker = "ETRECORD_V0";
constexpr const char *kEdge = "edge_dialect_exported_program";
constexpr std::uint64_t kMaxJsonEntry = 1ull << 30;

struct Suffix {
    const char *text;
    ETRecordEntryKind kind;
};
constexpr Suffix kSuffixes[] = {
    { "state_dict", ETRecordEntryKind::StateDict },
    { "constants", ETRecordEntryKind::Constants },
    { "example_inputs", ETRecordEntryKind::ExampleInputs },
};

std::optional<std::int64_t> parseDecimal(const std::string &s)
{
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<std::vector<std::int64_t>> handleList(const json &j)
{
    if (!j.is_array())
        return std::nullopt;
    std::vector<std::int64_t> out;
    out.reserve(j.size());
    for (const json &x : j) {
        if (!x.is_number_integer())
            return std::nullopt;
        out.push_back(x.get<std::int64_t>());
    }
    return out;
}

// Old files may key the maps directly by instruction; those are the single method "forward".
const json &methodsOf(const json &root, bool &flat)
{
    flat = !root.empty();
    for (auto it = root.begin(); it != root.end() && flat; ++it)
        flat = parseDecimal(it.key()).has_value();
    return root;
}
} // namespace

const char *entryKindName(ETRecordEntryKind k)
{
    switch (k) {
    case ETRecordEntryKind::Marker:
        return "marker";
    case ETRecordEntryKind::EdgeProgram:
        return "edge program";
    case ETRecordEntryKind::AtenProgram:
        return "aten program";
    case ETRecordEntryKind::GraphMapProgram:
        return "graph map program";
    case ETRecordEntryKind::LegacyEtDialect:
        return "legacy et-dialect program";
    case ETRecordEntryKind::LegacyProgramBuffer:
        return "legacy program buffer";
    case ETRecordEntryKind::StateDict:
        return "state dict";
    case ETRecordEntryKind::Constants:
        return "constants";
    case ETRecordEntryKind::ExampleInputs:
        return "example inputs";
    case ETRecordEntryKind::DebugHandleMap:
        return "debug handle map";
    case ETRecordEntryKind::DelegateMap:
        return "delegate map";
    case ETRecordEntryKind::NumOutsMap:
        return "instruction id to num outs map";
    case ETRecordEntryKind::ExportGraphId:
        return "export graph id";
    case ETRecordEntryKind::ReferenceOutputs:
        return "reference outputs";
    case ETRecordEntryKind::RepresentativeInputs:
        return "representative inputs";
    case ETRecordEntryKind::Unknown:
        return "unknown";
    }
    return "?";
}

const ETRecordMethodMaps *ETRecord::methodMaps(const std::string &method) const
{
    auto it = m_methods.find(method);
    return it == m_methods.end() ? nullptr : &it->second;
}

const ETRecordProgram *ETRecord::edgeProgram(const std::string &method) const
{
    for (const auto &p : m_programs)
        if (p.kind == ETRecordEntryKind::EdgeProgram && p.method == method)
            return &p;
    return nullptr;
}

const ETRecordProgram *ETRecord::atenProgram() const
{
    for (const auto &p : m_programs)
        if (p.kind == ETRecordEntryKind::AtenProgram)
            return &p;
    return nullptr;
}

const ETRecordProgram *ETRecord::program(const std::string &entryName) const
{
    for (const auto &p : m_programs)
        if (p.entryName == entryName)
            return &p;
    return nullptr;
}

std::vector<std::string> ETRecord::edgeMethods() const
{
    std::vector<std::string> out;
    for (const auto &p : m_programs)
        if (p.kind == ETRecordEntryKind::EdgeProgram)
            out.push_back(p.method);
    return out;
}

Result<PyValue> ETRecord::loadBlob(const std::string &entry) const
{
    if (entry.empty() || !m_zip->find(entry))
        return PyValue(PyNone {});
    const std::string label = m_path + ":" + printable(entry);
    // Stored blobs (the normal case) are opened in place: a 100 MB state dict costs no copy.
    if (auto view = m_zip->storedBytes(entry); view && view->size() >= 4 && (*view)[0] == 'P' && (*view)[1] == 'K') {
        auto inner = ZipArchive::open(std::shared_ptr<const void>(m_zip), *view, label);
        if (!inner)
            return inner.error();
        return loadTorchSave(inner.value());
    }
    auto data = m_zip->read(entry);
    if (!data)
        return data.error();
    if (data->empty())
        return PyValue(PyNone {});
    if (data->size() >= 2 && static_cast<unsigned char>((*data)[0]) == 0x80)
        return makeError(ErrorCode::Unsupported, label,
            "raw Python pickle (ETRecords before 2026-03); re-export with a current ExecuTorch to "
            "get a torch.save archive");
    return loadTorchSave(MappedFile::fromBytes(label, std::move(data.value())));
}

Result<PyValue> ETRecord::loadStateDict(const ETRecordProgram &p) const
{
    return loadBlob(p.stateDictEntry);
}
Result<PyValue> ETRecord::loadConstants(const ETRecordProgram &p) const
{
    return loadBlob(p.constantsEntry);
}
Result<PyValue> ETRecord::loadExampleInputs(const ETRecordProgram &p) const
{
    return loadBlob(p.exampleInputsEntry);
}
Result<PyValue> ETRecord::loadReferenceOutputs() const
{
    return loadBlob("reference_outputs");
}
Result<PyValue> ETRecord::loadRepresentativeInputs() const
{
    return loadBlob("representative_inputs");
}
bool ETRecord::hasReferenceOutputs() const
{
    return m_zip->find("reference_outputs") != nullptr;
}
bool ETRecord::hasRepresentativeInputs() const
{
    return m_zip->find("representative_inputs") != nullptr;
}

Result<std::shared_ptr<const ETRecord>> readETRecord(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return readETRecord(file.value());
}

Result<std::shared_ptr<const ETRecord>> readETRecord(std::shared_ptr<const MappedFile> bytes)
{
    if (!bytes)
        return makeError(ErrorCode::InvalidArgument, "", "no bytes given");
    const std::string path = bytes->path();
    auto zip = ZipArchive::open(bytes, path);
    if (!zip) {
        Error e = zip.error();
        if (e.code == ErrorCode::BadIdentifier)
            e.reason = "not an ETRecord (" + e.reason + ")";
        return e;
    }
    if (!(*zip)->find(kMarker))
        return makeError(
            ErrorCode::BadIdentifier, path, "not an ETRecord: zip archive without the ETRECORD_V0 marker entry");

    auto rec = std::make_shared<ETRecord>();
    rec->m_path = path;
    rec->m_zip = zip.value();
    const ZipArchive &z = **zip;

    auto readJson = [&](const std::string &entry) -> Result<json> {
        auto text = z.read(entry, kMaxJsonEntry);
        if (!text)
            return text.error();
        return parseLenientJson(*text, path + ":" + entry);
    };

    // Pass 1: classify. Companions are matched to programs afterwards.
    std::vector<std::size_t> programEntries;
    for (const ZipEntry &ze : z.entries()) {
        ETRecordEntry e { ze.name, ze.size, ETRecordEntryKind::Unknown };
        const std::string &n = ze.name;
        if (n == kMarker)
            e.kind = ETRecordEntryKind::Marker;
        else if (n == "debug_handle_map")
            e.kind = ETRecordEntryKind::DebugHandleMap;
        else if (n == "delegate_map")
            e.kind = ETRecordEntryKind::DelegateMap;
        else if (n == "instruction_id_to_num_outs_map")
            e.kind = ETRecordEntryKind::NumOutsMap;
        else if (n == "export_graph_id")
            e.kind = ETRecordEntryKind::ExportGraphId;
        else if (n == "reference_outputs")
            e.kind = ETRecordEntryKind::ReferenceOutputs;
        else if (n == "representative_inputs")
            e.kind = ETRecordEntryKind::RepresentativeInputs;
        else if (n == "program_buffer")
            e.kind = ETRecordEntryKind::LegacyProgramBuffer;
        else if (n.empty() || n.back() == '/')
            e.kind = ETRecordEntryKind::Unknown;
        else {
            bool companion = false;
            for (const Suffix &s : kSuffixes)
                if (n.ends_with(s.text)) {
                    e.kind = s.kind;
                    companion = true;
                }
            if (!companion) {
                if (n == kEdge || n.starts_with(std::string(kEdge) + "/"))
                    e.kind = ETRecordEntryKind::EdgeProgram;
                else if (n == "exported_program")
                    e.kind = ETRecordEntryKind::AtenProgram;
                else if (n == "et_dialect_graph_module/forward")
                    e.kind = ETRecordEntryKind::LegacyEtDialect;
                else
                    e.kind = ETRecordEntryKind::GraphMapProgram;
                programEntries.push_back(rec->m_entries.size());
            }
        }
        rec->m_entries.push_back(std::move(e));
    }

    // Pass 2: programs. A graph-map entry that is not a program JSON is an unknown entry.
    for (std::size_t idx : programEntries) {
        ETRecordEntry &e = rec->m_entries[idx];
        const std::string label = path + ":" + printable(e.name);
        auto text = z.read(e.name, kMaxJsonEntry);
        if (!text)
            return text.error();
        auto prog = parseExportedProgram(*text, label);
        if (!prog) {
            if (e.kind == ETRecordEntryKind::GraphMapProgram) {
                rec->m_warnings.push_back(
                    fmt::format("{}: entry not understood, ignored ({})", label, prog.error().reason));
                e.kind = ETRecordEntryKind::Unknown;
                continue;
            }
            return prog.error();
        }
        ETRecordProgram p;
        p.entryName = e.name;
        p.kind = e.kind;
        const auto slash = e.name.rfind('/');
        p.baseName = slash == std::string::npos ? e.name : e.name.substr(0, slash);
        p.method = slash == std::string::npos ? std::string() : e.name.substr(slash + 1);
        if (p.method.empty() && (e.kind == ETRecordEntryKind::EdgeProgram || e.kind == ETRecordEntryKind::AtenProgram))
            p.method = "forward";
        for (const std::string &w : prog->warnings)
            rec->m_warnings.push_back(w);
        p.program = std::make_shared<const ExportedProgram>(std::move(prog.value()));
        rec->m_programs.push_back(std::move(p));
    }

    for (ETRecordEntry &e : rec->m_entries) {
        std::string *slot = nullptr;
        const char *suffix = nullptr;
        for (const Suffix &s : kSuffixes)
            if (e.kind == s.kind)
                suffix = s.text;
        if (!suffix)
            continue;
        for (ETRecordProgram &p : rec->m_programs) {
            if (e.name == p.entryName + "_" + suffix) {
                slot = e.kind == ETRecordEntryKind::StateDict ? &p.stateDictEntry
                    : e.kind == ETRecordEntryKind::Constants  ? &p.constantsEntry
                                                              : &p.exampleInputsEntry;
                *slot = e.name;
            }
        }
        if (!slot) {
            rec->m_warnings.push_back(fmt::format("{}:{}: companion of no program, ignored", path, printable(e.name)));
            e.kind = ETRecordEntryKind::Unknown;
        }
    }

    for (const ETRecordEntry &e : rec->m_entries)
        if (e.kind == ETRecordEntryKind::Unknown)
            rec->m_unknown.push_back(e.name);

    // The JSON maps.
    if (z.find("debug_handle_map")) {
        auto j = readJson("debug_handle_map");
        if (!j)
            return j.error();
        if (!j->is_object())
            return makeError(ErrorCode::Corrupt, path + ":debug_handle_map", "not a JSON object");
        rec->m_hasDebugHandleMap = true;
        bool flat = false;
        methodsOf(*j, flat);
        auto readMethod = [&](const std::string &method, const json &m) {
            auto &maps = rec->m_methods[method];
            if (!m.is_object()) {
                rec->m_warnings.push_back(
                    fmt::format("{}:debug_handle_map: method '{}' is not an object", path, printable(method)));
                return;
            }
            for (auto it = m.begin(); it != m.end(); ++it) {
                auto instr = parseDecimal(it.key());
                DebugHandleEntry d;
                if (it->is_number_integer()) {
                    d.handles = { it->get<std::int64_t>() };
                    d.isScalar = true;
                } else if (auto l = handleList(*it)) {
                    d.handles = std::move(*l);
                } else {
                    instr.reset();
                }
                if (!instr) {
                    rec->m_warnings.push_back(
                        fmt::format("{}:debug_handle_map: {}/{} ignored (not instruction -> int or list)", path,
                            printable(method), printable(it.key())));
                    continue;
                }
                maps.debugHandles[*instr] = std::move(d);
            }
        };
        if (flat) {
            rec->m_warnings.push_back(path + ":debug_handle_map: keyed by instruction, not method; read as 'forward'");
            readMethod("forward", *j);
        } else {
            for (auto it = j->begin(); it != j->end(); ++it)
                readMethod(it.key(), *it);
        }
    }
    if (z.find("delegate_map")) {
        // Ordered: the Inspector's identifier lookup depends on the inner map's key order.
        auto text = z.read("delegate_map", kMaxJsonEntry);
        if (!text)
            return text.error();
        auto j = parseLenientOrderedJson(*text, path + ":delegate_map");
        if (!j)
            return j.error();
        if (!j->is_object())
            return makeError(ErrorCode::Corrupt, path + ":delegate_map", "not a JSON object");
        rec->m_hasDelegateMap = true;
        for (auto mit = j->begin(); mit != j->end(); ++mit) {
            if (!mit->is_object())
                continue;
            auto &maps = rec->m_methods[mit.key()];
            for (auto it = mit->begin(); it != mit->end(); ++it) {
                auto instr = parseDecimal(it.key());
                if (!instr || !it->is_object()) {
                    rec->m_warnings.push_back(
                        fmt::format("{}:delegate_map: {}/{} ignored", path, printable(mit.key()), printable(it.key())));
                    continue;
                }
                DelegateEntry d;
                if (auto n = it->find("name"); n != it->end() && n->is_string())
                    d.backendName = n->get<std::string>();
                auto inner = it->find("delegate_map");
                if (inner == it->end() || inner->is_null()) {
                    d.innerMapNull = true;
                } else if (inner->is_object()) {
                    for (auto iit = inner->begin(); iit != inner->end(); ++iit) {
                        auto l = handleList(*iit);
                        if (!l && iit->is_number_integer())
                            l = std::vector<std::int64_t> { iit->get<std::int64_t>() };
                        if (!l) {
                            rec->m_warnings.push_back(
                                fmt::format("{}:delegate_map: {}/{}/{} ignored (not a handle list)", path,
                                    printable(mit.key()), printable(it.key()), printable(iit.key())));
                            continue;
                        }
                        d.identifiers.emplace_back(iit.key(), std::move(*l));
                    }
                }
                maps.delegates[*instr] = std::move(d);
            }
        }
    }
    if (z.find("instruction_id_to_num_outs_map")) {
        auto j = readJson("instruction_id_to_num_outs_map");
        if (!j)
            return j.error();
        if (!j->is_object())
            return makeError(ErrorCode::Corrupt, path + ":instruction_id_to_num_outs_map", "not a JSON object");
        rec->m_hasNumOutsMap = true;
        for (auto mit = j->begin(); mit != j->end(); ++mit) {
            if (!mit->is_object())
                continue;
            auto &maps = rec->m_methods[mit.key()];
            for (auto it = mit->begin(); it != mit->end(); ++it)
                if (auto instr = parseDecimal(it.key()); instr && it->is_number_integer())
                    maps.numOutputs[*instr] = it->get<std::int64_t>();
        }
    }
    if (z.find("export_graph_id")) {
        auto j = readJson("export_graph_id");
        if (!j)
            return j.error();
        if (j->is_number_integer())
            rec->m_exportGraphId = j->get<std::int64_t>();
        else
            rec->m_warnings.push_back(path + ":export_graph_id: not an integer");
    }
    return std::shared_ptr<const ETRecord>(std::move(rec));
}

} // namespace etscope
