// Every byte of a .pte (programsize.h). The flatbuffer is measured by ownership: each byte
// gets the category of the first object found covering it (tables by their vtable's object
// size, vectors as length + elements, strings as length + bytes + NUL), so shared or
// overlapping objects are counted once and the categories add up to the flatbuffer's size
// with what nothing claims as "other". Layout facts: schema/program.fbs, extended header and
// segments per exir/_serialize/_program.py at ExecuTorch commit
// cff6f4dd32e630945b7188512c1f2b4f102b05ad (docs/formats.md §2).
#include "program/programsize.h"

#include "common/jsontext.h"
#include "common/littleendian.h"
#include "common/printable.h"
#include "program/delegates/delegatepayload.h"
#include "program/flattensor.h"

#include "program_generated.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace etscope {
namespace {

namespace pf = etscope::ptefb;

// Owner of each flatbuffer byte; 0 = unclaimed.
class ByteOwners
{
public:
    ByteOwners(const std::uint8_t *base, std::size_t size)
        : m_base(base)
        , m_owner(size, 0)
    { }

    std::uint16_t category(std::string name)
    {
        m_names.push_back(std::move(name));
        return static_cast<std::uint16_t>(m_names.size());
    }

    void mark(const void *begin, std::uint64_t bytes, std::uint16_t cat)
    {
        const auto *b = static_cast<const std::uint8_t *>(begin);
        if (b < m_base)
            return;
        const std::uint64_t start = std::uint64_t(b - m_base);
        if (start >= m_owner.size())
            return;
        const std::uint64_t end = std::min<std::uint64_t>(m_owner.size(), start + bytes);
        for (std::uint64_t i = start; i < end; ++i)
            if (m_owner[i] == 0)
                m_owner[i] = cat;
    }

    // A table: its inline part (object size from its vtable).
    void table(const void *t, std::uint16_t cat)
    {
        if (!t)
            return;
        const auto *p = static_cast<const std::uint8_t *>(t);
        const auto soff = static_cast<std::int32_t>(readLe32(p));
        const std::uint8_t *vt = p - soff;
        if (vt < m_base || vt + 4 > m_base + m_owner.size())
            return;
        const std::uint16_t objectSize = static_cast<std::uint16_t>(vt[2] | (vt[3] << 8));
        mark(p, objectSize, cat);
    }

    template <typename T> void vector(const flatbuffers::Vector<T> *v, std::uint16_t cat)
    {
        if (v)
            mark(v, 4 + std::uint64_t(v->size()) * sizeof(typename flatbuffers::Vector<T>::return_type), cat);
    }
    template <typename T> void vectorOfTables(const flatbuffers::Vector<flatbuffers::Offset<T>> *v, std::uint16_t cat)
    {
        if (v)
            mark(v, 4 + std::uint64_t(v->size()) * 4, cat);
    }
    void string(const flatbuffers::String *s, std::uint16_t cat)
    {
        if (s)
            mark(s, 4 + std::uint64_t(s->size()) + 1, cat);
    }

    // Bytes per category (index 0: unclaimed).
    std::vector<std::uint64_t> counts() const
    {
        std::vector<std::uint64_t> out(m_names.size() + 1, 0);
        for (std::uint16_t o : m_owner)
            ++out[o];
        return out;
    }
    const std::string &name(std::size_t cat) const { return m_names[cat - 1]; }

private:
    const std::uint8_t *m_base;
    std::vector<std::uint16_t> m_owner;
    std::vector<std::string> m_names;
};

void markValue(ByteOwners &o, const pf::EValue *ev, std::uint16_t cat)
{
    o.table(ev, cat);
    if (!ev || !ev->val())
        return;
    o.table(ev->val(), cat);
    switch (ev->val_type()) {
    case pf::KernelTypes::Tensor: {
        const pf::Tensor *t = ev->val_as_Tensor();
        o.vector(t->sizes(), cat);
        o.vector(t->dim_order(), cat);
        o.table(t->allocation_info(), cat);
        if (const pf::ExtraTensorInfo *x = t->extra_tensor_info()) {
            o.table(x, cat);
            o.string(x->fully_qualified_name(), cat);
        }
        break;
    }
    case pf::KernelTypes::String:
        o.string(ev->val_as_String()->string_val(), cat);
        break;
    case pf::KernelTypes::IntList:
        o.vector(ev->val_as_IntList()->items(), cat);
        break;
    case pf::KernelTypes::DoubleList:
        o.vector(ev->val_as_DoubleList()->items(), cat);
        break;
    case pf::KernelTypes::BoolList:
        o.vector(ev->val_as_BoolList()->items(), cat);
        break;
    case pf::KernelTypes::TensorList:
        o.vector(ev->val_as_TensorList()->items(), cat);
        break;
    case pf::KernelTypes::OptionalTensorList:
        o.vector(ev->val_as_OptionalTensorList()->items(), cat);
        break;
    default:
        break;
    }
}

void markInstruction(ByteOwners &o, const pf::Instruction *ins, std::uint16_t cat)
{
    o.table(ins, cat);
    if (!ins || !ins->instr_args())
        return;
    o.table(ins->instr_args(), cat);
    if (const auto *k = ins->instr_args_as_KernelCall())
        o.vector(k->args(), cat);
    else if (const auto *d = ins->instr_args_as_DelegateCall())
        o.vector(d->args(), cat);
}

void markStackTraces(ByteOwners &o, const pf::Chain *c, std::uint16_t cat)
{
    if (!c->stacktrace())
        return;
    o.vectorOfTables(c->stacktrace(), cat);
    for (const pf::FrameList *fl : *c->stacktrace()) {
        o.table(fl, cat);
        if (!fl || !fl->items())
            continue;
        o.vectorOfTables(fl->items(), cat);
        for (const pf::Frame *f : *fl->items()) {
            o.table(f, cat);
            o.string(f->filename(), cat);
            o.string(f->name(), cat);
            o.string(f->context(), cat);
        }
    }
}

void markRestOfPlan(ByteOwners &o, const pf::ExecutionPlan *plan, std::uint16_t cat)
{
    o.table(plan, cat);
    o.string(plan->name(), cat);
    if (const auto *cm = plan->container_meta_type()) {
        o.table(cm, cat);
        o.string(cm->encoded_inp_str(), cat);
        o.string(cm->encoded_out_str(), cat);
    }
    o.vector(plan->inputs(), cat);
    o.vector(plan->outputs(), cat);
    if (plan->chains()) {
        o.vectorOfTables(plan->chains(), cat);
        for (const pf::Chain *c : *plan->chains()) {
            o.table(c, cat);
            o.vector(c->inputs(), cat);
            o.vector(c->outputs(), cat);
        }
    }
    if (plan->operators()) {
        o.vectorOfTables(plan->operators(), cat);
        for (const pf::Operator *op : *plan->operators()) {
            o.table(op, cat);
            o.string(op->name(), cat);
            o.string(op->overload(), cat);
        }
    }
    if (plan->delegates()) {
        o.vectorOfTables(plan->delegates(), cat);
        for (const pf::BackendDelegate *d : *plan->delegates()) {
            o.table(d, cat);
            o.string(d->id(), cat);
            o.table(d->processed(), cat);
            if (d->compile_specs()) {
                o.vectorOfTables(d->compile_specs(), cat);
                for (const pf::CompileSpec *cs : *d->compile_specs()) {
                    o.table(cs, cat);
                    o.string(cs->key(), cat);
                    o.vector(cs->value(), cat);
                }
            }
        }
    }
    o.vector(plan->non_const_buffer_sizes(), cat);
    if (plan->non_const_buffer_device()) {
        o.vectorOfTables(plan->non_const_buffer_device(), cat);
        for (const auto *d : *plan->non_const_buffer_device())
            o.table(d, cat);
    }
}

// The payload's constant data split per constant (in offset order, the alignment between them
// as "padding"), each named by the value that uses it; empty when the offsets do not tile it.
std::vector<SizePart> constantDataParts(const DelegatePayload &p, std::uint64_t size)
{
    std::vector<std::pair<std::uint64_t, std::size_t>> byOffset; // offset -> constant index
    for (std::size_t i = 0; i < p.constants.size(); ++i)
        if (p.constants[i].place == DelegateConstant::Place::ConstantData)
            byOffset.emplace_back(p.constants[i].offset, i);
    std::sort(byOffset.begin(), byOffset.end());
    std::map<std::uint32_t, const DelegateValue *> user;
    for (const DelegateValue &v : p.values)
        if (v.constant > 0)
            user.emplace(v.constant, &v);
    std::vector<SizePart> out;
    std::uint64_t pos = 0;
    for (const auto &[offset, i] : byOffset) {
        const std::uint64_t bytes = p.constants[i].bytes;
        if (offset < pos || offset > size || bytes > size - offset)
            return {}; // overlapping or out of range: keep the data whole
        if (offset > pos)
            out.push_back({ "padding", offset - pos, {} });
        const auto it = user.find(std::uint32_t(i + 1));
        out.push_back(
            { fmt::format("constant {}{}", i + 1,
                  it == user.end() ? std::string()
                                   : fmt::format(": %{} {}", it->second->id, printable(it->second->describe(), 120))),
                bytes, {} });
        pos = offset + bytes;
    }
    if (out.empty())
        return {};
    if (pos < size)
        out.push_back({ "padding", size - pos, {} });
    return out;
}

std::vector<SizePart> payloadParts(const DelegatePayload &p)
{
    std::vector<SizePart> out;
    for (const PayloadPart &part : p.parts) {
        out.push_back({ part.name, part.bytes, {} });
        if (part.name == "constant data")
            out.back().parts = constantDataParts(p, part.bytes);
    }
    return out;
}

std::string delegateName(const ProgramMethod &m, std::size_t d, const DelegatePayload &p)
{
    return fmt::format("delegate {} of method {} ({}, {})", d, printable(m.name(), 80),
        printable(m.delegates()[d].backendId, 60), p.decoded ? p.backend : "opaque");
}

// Names of the operators (or delegate backends) whose instructions read value v.
std::string usersOf(const ProgramMethod &m, std::int32_t v)
{
    std::set<std::string> users;
    for (std::size_t k = 0; k < m.instructionCount(); ++k) {
        const ProgramInstruction ins = m.instruction(k);
        if (ins.kind != InstructionKind::KernelCall && ins.kind != InstructionKind::DelegateCall)
            continue;
        if (std::find(ins.args.begin(), ins.args.end(), v) != ins.args.end())
            users.insert(m.instructionLabel(k));
    }
    std::string out;
    for (const std::string &u : users)
        out += (out.empty() ? "" : ", ") + printable(u, 80);
    return out.empty() ? "no instruction" : out;
}

// Parts of the constant segment: entry i spans offsets[i] .. offsets[i+1] (the last to the
// segment's end); entry 0 is reserved (normally 0 bytes).
std::vector<SizePart> constantSegmentParts(const Program &program, const pf::SubsegmentOffsets &cs, std::uint64_t size)
{
    // Which value of which method holds each constant entry.
    std::map<std::uint32_t, std::string> holder;
    for (const ProgramMethod &m : program.methods())
        for (std::size_t v = 0; v < m.valueCount(); ++v) {
            const ProgramValue val = m.value(v);
            if (val.kind != ProgramValueKind::Tensor || val.tensor.dataBufferIndex == 0 || val.tensor.external)
                continue;
            auto [it, fresh] = holder.emplace(val.tensor.dataBufferIndex, std::string());
            if (fresh)
                it->second = fmt::format("{} (%{} of {}, read by {})", describeValue(val), v, printable(m.name(), 80),
                    usersOf(m, std::int32_t(v)));
        }
    std::vector<SizePart> out;
    const auto *offsets = cs.offsets();
    std::uint64_t covered = 0;
    for (flatbuffers::uoffset_t i = 0; i < offsets->size(); ++i) {
        const std::uint64_t begin = std::min<std::uint64_t>(offsets->Get(i), size);
        const std::uint64_t end = i + 1 < offsets->size()
            ? std::min<std::uint64_t>(std::max<std::uint64_t>(offsets->Get(i + 1), begin), size)
            : size;
        if (begin < covered)
            continue; // offsets that go backwards: the overlap stays in the earlier entry
        if (begin > covered)
            out.push_back({ "gap", begin - covered, {} });
        if (end == begin && i == 0)
            continue;
        const auto it = holder.find(i);
        out.push_back({ fmt::format("constant {}: {}", i, it == holder.end() ? std::string("unused") : it->second),
            end - begin, {} });
        covered = end;
    }
    if (covered < size)
        out.push_back({ "gap", size - covered, {} });
    return out;
}

SizeReport flatTensorSize(const FlatTensorFile &f)
{
    SizeReport r;
    r.file = f.path();
    r.fileBytes = f.fileSize();
    const std::uint64_t fbEnd = std::min(r.fileBytes, f.flatbufferOffset() + f.flatbufferSize());
    r.parts.push_back({ "header and flatbuffer", fbEnd, {} });
    std::map<std::uint32_t, std::vector<std::string>> keys;
    for (const FlatTensorEntry &e : f.entries())
        keys[e.segment].push_back(fmt::format("{} {}", printable(e.key, 120), e.describe()));
    std::uint64_t pos = fbEnd;
    for (std::size_t i = 0; i < f.segments().size(); ++i) {
        const FlatTensorSegment &s = f.segments()[i];
        if (s.offset < pos)
            continue;
        if (s.offset > pos)
            r.parts.push_back({ "padding", s.offset - pos, {} });
        std::string names;
        for (const std::string &k : keys[std::uint32_t(i)])
            names += (names.empty() ? "" : "; ") + k;
        r.parts.push_back(
            { fmt::format("segment {}: {}", i, names.empty() ? std::string("no name") : names), s.size, {} });
        pos = s.offset + s.size;
    }
    if (pos < r.fileBytes)
        r.parts.push_back({ "padding", r.fileBytes - pos, {} });
    return r;
}

void jsonPart(fmt::memory_buffer &b, const SizePart &p)
{
    b.append(std::string_view("{\"name\":"));
    appendJsonString(b, p.name);
    fmt::format_to(std::back_inserter(b), ",\"bytes\":{},\"parts\":[", p.bytes);
    for (std::size_t i = 0; i < p.parts.size(); ++i) {
        if (i)
            b.push_back(',');
        jsonPart(b, p.parts[i]);
    }
    b.append(std::string_view("]}"));
}

void jsonReport(fmt::memory_buffer &b, const SizeReport &r)
{
    b.append(std::string_view("{\"file\":"));
    appendJsonString(b, r.file);
    fmt::format_to(std::back_inserter(b), ",\"file_bytes\":{},\"parts\":[", r.fileBytes);
    for (std::size_t i = 0; i < r.parts.size(); ++i) {
        if (i)
            b.push_back(',');
        jsonPart(b, r.parts[i]);
    }
    b.append(std::string_view("],\"data_files\":["));
    for (std::size_t i = 0; i < r.dataFiles.size(); ++i) {
        if (i)
            b.push_back(',');
        jsonReport(b, r.dataFiles[i]);
    }
    b.append(std::string_view("]}"));
}

void textPart(std::string &out, const SizePart &p, std::uint64_t whole, int level, int depth)
{
    out += fmt::format("{:>12}  {:>6.2f}%  {}{}\n", p.bytes, whole ? 100.0 * double(p.bytes) / double(whole) : 0.0,
        std::string(std::size_t(level) * 2, ' '), printable(p.name, 300));
    if (depth == 0 || level + 1 < depth)
        for (const SizePart &c : p.parts)
            textPart(out, c, whole, level + 1, depth);
}

void textReport(std::string &out, const SizeReport &r, int depth)
{
    out += fmt::format("{}: {} bytes\n", printable(r.file, 300), r.fileBytes);
    for (const SizePart &p : r.parts)
        textPart(out, p, r.fileBytes, 0, depth);
}

} // namespace

std::uint64_t sumOfParts(const std::vector<SizePart> &parts)
{
    std::uint64_t sum = 0;
    for (const SizePart &p : parts)
        sum += p.bytes;
    return sum;
}

SizeReport programSize(const Program &program)
{
    SizeReport r;
    r.file = program.path();
    r.fileBytes = program.fileSize();
    const std::uint8_t *data = program.m_file->data();
    const auto *root = static_cast<const pf::Program *>(program.m_root);
    const std::uint64_t fbSize = std::min(program.flatbufferSize(), r.fileBytes);

    // The flatbuffer.
    ByteOwners owners(data, fbSize);
    const std::uint16_t header = owners.category("header");
    const std::uint64_t headerBytes = program.hasExtendedHeader() ? 8 + std::uint64_t(readLe32(data + 12)) : 8;
    owners.mark(data, headerBytes, header);
    struct MethodCats {
        std::uint16_t instructions, values, traces, rest;
    };
    std::vector<MethodCats> methodCats;
    const auto *plans = root->execution_plan();
    for (std::size_t p = 0; p < program.methods().size() && plans && p < plans->size(); ++p) {
        const std::string m = printable(program.methods()[p].name(), 80);
        MethodCats c { owners.category("instructions"), owners.category("values"), owners.category("stack traces"),
            owners.category("operators, delegates and other tables") };
        methodCats.push_back(c);
        const pf::ExecutionPlan *plan = plans->Get(flatbuffers::uoffset_t(p));
        if (plan->values()) {
            owners.vectorOfTables(plan->values(), c.values);
            for (const pf::EValue *ev : *plan->values())
                markValue(owners, ev, c.values);
        }
        if (plan->chains())
            for (const pf::Chain *chain : *plan->chains()) {
                if (chain->instructions()) {
                    owners.vectorOfTables(chain->instructions(), c.instructions);
                    for (const pf::Instruction *ins : *chain->instructions())
                        markInstruction(owners, ins, c.instructions);
                }
                markStackTraces(owners, chain, c.traces);
            }
        markRestOfPlan(owners, plan, c.rest);
    }
    const std::uint16_t inlineConstants = owners.category("inline constants (constant_buffer)");
    if (const auto *cb = root->constant_buffer()) {
        owners.vectorOfTables(cb, inlineConstants);
        for (const pf::Buffer *b : *cb) {
            owners.table(b, inlineConstants);
            owners.vector(b->storage(), inlineConstants);
        }
    }
    // Inline delegate payloads, one category each (the decoder splits the blob's own bytes).
    std::vector<std::uint16_t> inlineBlobCats;
    if (const auto *bd = root->backend_delegate_data())
        for (flatbuffers::uoffset_t i = 0; i < bd->size(); ++i) {
            const std::uint16_t cat = owners.category(fmt::format("inline delegate data {}", i));
            inlineBlobCats.push_back(cat);
            if (const auto *blob = bd->Get(i)->data())
                owners.mark(blob->data(), blob->size(), cat);
        }

    const std::vector<std::uint64_t> counts = owners.counts();
    SizePart fb { "flatbuffer (program tables)", fbSize, {} };
    fb.parts.push_back({ "header (root offset, identifier, extended header)", counts[header], {} });
    for (std::size_t p = 0; p < methodCats.size(); ++p) {
        const MethodCats &c = methodCats[p];
        SizePart mp { fmt::format("method {}", printable(program.methods()[p].name(), 80)), 0, {} };
        for (std::uint16_t cat : { c.instructions, c.values, c.traces, c.rest })
            if (counts[cat] > 0)
                mp.parts.push_back({ owners.name(cat), counts[cat], {} });
        mp.bytes = sumOfParts(mp.parts);
        fb.parts.push_back(std::move(mp));
    }
    if (counts[inlineConstants] > 0)
        fb.parts.push_back({ owners.name(inlineConstants), counts[inlineConstants], {} });
    // Inline delegate blobs: named after the delegate that uses them, split by its decoder.
    for (std::size_t i = 0; i < inlineBlobCats.size(); ++i) {
        SizePart part { owners.name(inlineBlobCats[i]), counts[inlineBlobCats[i]], {} };
        for (const ProgramMethod &m : program.methods())
            for (std::size_t d = 0; d < m.delegates().size(); ++d) {
                const ProgramDelegate &del = m.delegates()[d];
                if (!del.inlineData || del.dataIndex != i || !part.parts.empty())
                    continue;
                const DelegatePayload p = decodeDelegatePayload(del.backendId, del.blob);
                part.name = fmt::format("inline {}", delegateName(m, d, p));
                // The vector's length prefix is flatbuffer bytes of this blob too.
                std::vector<SizePart> pp = payloadParts(p);
                if (part.bytes > p.bytes)
                    pp.insert(pp.begin(), { "length prefix", part.bytes - p.bytes, {} });
                if (sumOfParts(pp) == part.bytes)
                    part.parts = std::move(pp);
            }
        fb.parts.push_back(std::move(part));
    }
    fb.parts.push_back({ "other (root table, vtables, alignment, segment and named-data tables)", counts[0], {} });
    r.parts.push_back(std::move(fb));

    // Segments, in file order, with the padding around them.
    struct Seg {
        std::uint64_t offset, size;
        std::size_t index;
    };
    std::vector<Seg> segs;
    for (std::size_t i = 0; i < program.segments().size(); ++i)
        segs.push_back({ program.segments()[i].offset, program.segments()[i].size, i });
    std::sort(segs.begin(), segs.end(), [](const Seg &a, const Seg &b) { return a.offset < b.offset; });
    std::map<std::size_t, std::string> namedKeys;
    if (const auto *nd = root->named_data())
        for (const pf::NamedData *n : *nd)
            namedKeys[n->segment_index()] += (namedKeys[n->segment_index()].empty() ? "" : ", ")
                + printable(n->key() ? n->key()->string_view() : std::string_view(), 120);
    const pf::SubsegmentOffsets *cs = root->constant_segment();
    std::uint64_t pos = fbSize;
    for (const Seg &s : segs) {
        if (s.offset < pos || s.size == 0)
            continue; // overlapping or empty segments add no bytes
        if (s.offset > pos)
            r.parts.push_back({ "padding", s.offset - pos, {} });
        SizePart part { fmt::format("segment {}", s.index), s.size, {} };
        if (cs && cs->offsets() && cs->segment_index() == s.index) {
            part.name = fmt::format("constant segment (segment {})", s.index);
            part.parts = constantSegmentParts(program, *cs, s.size);
        } else {
            for (const ProgramMethod &m : program.methods())
                for (std::size_t d = 0; d < m.delegates().size(); ++d) {
                    const ProgramDelegate &del = m.delegates()[d];
                    if (del.inlineData || del.dataIndex != s.index || !part.parts.empty())
                        continue;
                    const DelegatePayload p = decodeDelegatePayload(del.backendId, del.blob);
                    part.name = fmt::format("{} (segment {})", delegateName(m, d, p), s.index);
                    part.parts = payloadParts(p);
                }
            if (const auto it = namedKeys.find(s.index); it != namedKeys.end())
                part.name = fmt::format("named data {} (segment {})", it->second, s.index);
        }
        r.parts.push_back(std::move(part));
        pos = s.offset + s.size;
    }
    if (pos < r.fileBytes)
        r.parts.push_back({ program.segments().empty() ? "trailing bytes" : "padding", r.fileBytes - pos, {} });

    for (const auto &f : program.dataFiles())
        r.dataFiles.push_back(flatTensorSize(*f));
    return r;
}

std::string sizeText(const SizeReport &report, int depth)
{
    std::string out;
    textReport(out, report, depth);
    for (const SizeReport &d : report.dataFiles) {
        out += "\n";
        textReport(out, d, depth);
    }
    return out;
}

std::string sizeJson(const SizeReport &report)
{
    fmt::memory_buffer b;
    jsonReport(b, report);
    b.push_back('\n');
    return fmt::to_string(b);
}

} // namespace etscope
