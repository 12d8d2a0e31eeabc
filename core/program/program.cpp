#include "program/program.h"
#include "common/flatbufferalign.h"
#include "common/littleendian.h"

#include "bundled/bundledprogram.h"
#include "common/printable.h"
#include "program/flattensor.h"

#include <program_generated.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace etscope {

namespace pf = etscope::ptefb;

// Spans over flatbuffer vectors are only the values on little-endian hosts.

namespace {

template <typename T> std::span<const T> spanOf(const flatbuffers::Vector<T> *v)
{
    return v ? std::span<const T>(v->data(), v->size()) : std::span<const T>();
}

std::string_view viewOf(const flatbuffers::String *s)
{
    return s ? std::string_view(s->data(), s->size()) : std::string_view();
}

const pf::ExecutionPlan *planOf(const void *p)
{
    return static_cast<const pf::ExecutionPlan *>(p);
}

const pf::Chain *chainOf(const void *plan, std::size_t chain)
{
    const auto *chains = planOf(plan)->chains();
    return chains && chain < chains->size() ? chains->Get(flatbuffers::uoffset_t(chain)) : nullptr;
}

// Checked numel × element size of a tensor; nullopt on overflow or an unknown dtype.
std::optional<std::uint64_t> tensorBytes(const pf::Tensor *t)
{
    auto esize = elementSize(static_cast<ScalarType>(t->scalar_type()));
    if (!esize)
        return std::nullopt;
    std::uint64_t n = *esize;
    if (t->sizes())
        for (std::int32_t s : *t->sizes()) {
            if (s < 0 || __builtin_mul_overflow(n, std::uint64_t(s), &n))
                return std::nullopt;
        }
    return n;
}

} // namespace

std::string_view programValueKindName(ProgramValueKind kind)
{
    static constexpr std::string_view names[] = { "None", "Null", "Int", "Bool", "Double", "Tensor", "String",
        "IntList", "DoubleList", "BoolList", "TensorList", "OptionalTensorList" };
    return names[std::size_t(kind)];
}

std::string_view instructionKindName(InstructionKind kind)
{
    static constexpr std::string_view names[] = { "None", "KernelCall", "DelegateCall", "Move", "JumpFalse", "Free" };
    return names[std::size_t(kind)];
}

std::vector<std::int32_t> ProgramInstruction::valuesUsed() const
{
    switch (kind) {
    case InstructionKind::KernelCall:
    case InstructionKind::DelegateCall:
        return { args.begin(), args.end() };
    case InstructionKind::Move:
        return { moveFrom, moveTo };
    case InstructionKind::JumpFalse:
        return { condition };
    case InstructionKind::Free:
        return { freedValue };
    case InstructionKind::None:
        break;
    }
    return {};
}

std::string ProgramOperator::kernelName() const
{
    const auto sep = name.rfind("::");
    std::string base = sep == std::string::npos ? name : name.substr(sep + 2);
    return overload.empty() ? base : base + "." + overload;
}

std::string ProgramOperator::displayName() const
{
    return overload.empty() ? name : name + "." + overload;
}

std::size_t ProgramMethod::valueCount() const
{
    const auto *v = planOf(m_plan)->values();
    return v ? v->size() : 0;
}

ProgramValue ProgramMethod::value(std::size_t index) const
{
    ProgramValue out;
    const auto *values = planOf(m_plan)->values();
    if (!values || index >= values->size())
        return out;
    const pf::EValue *ev = values->Get(flatbuffers::uoffset_t(index));
    if (!ev || !ev->val())
        return out;
    out.kind = static_cast<ProgramValueKind>(ev->val_type());
    switch (ev->val_type()) {
    case pf::KernelTypes::Int:
        out.intValue = ev->val_as_Int()->int_val();
        break;
    case pf::KernelTypes::Bool:
        out.boolValue = ev->val_as_Bool()->bool_val();
        break;
    case pf::KernelTypes::Double:
        out.doubleValue = ev->val_as_Double()->double_val();
        break;
    case pf::KernelTypes::String:
        out.stringValue = viewOf(ev->val_as_String()->string_val());
        break;
    case pf::KernelTypes::IntList:
        out.ints = spanOf(ev->val_as_IntList()->items());
        out.listSize = out.ints.size();
        break;
    case pf::KernelTypes::DoubleList:
        out.listSize = ev->val_as_DoubleList()->items() ? ev->val_as_DoubleList()->items()->size() : 0;
        break;
    case pf::KernelTypes::BoolList:
        out.listSize = ev->val_as_BoolList()->items() ? ev->val_as_BoolList()->items()->size() : 0;
        break;
    case pf::KernelTypes::TensorList:
        out.valueIndices = spanOf(ev->val_as_TensorList()->items());
        out.listSize = out.valueIndices.size();
        break;
    case pf::KernelTypes::OptionalTensorList:
        out.valueIndices = spanOf(ev->val_as_OptionalTensorList()->items());
        out.listSize = out.valueIndices.size();
        break;
    case pf::KernelTypes::Tensor: {
        const pf::Tensor *t = ev->val_as_Tensor();
        ProgramTensor &pt = out.tensor;
        pt.dtype = static_cast<ScalarType>(t->scalar_type());
        pt.sizes = spanOf(t->sizes());
        pt.dimOrder = spanOf(t->dim_order());
        pt.dynamism = static_cast<TensorDynamism>(t->shape_dynamism());
        pt.nbytes = tensorBytes(t).value_or(0); // validated when the program was opened
        pt.dataBufferIndex = t->data_buffer_idx();
        if (const pf::ExtraTensorInfo *x = t->extra_tensor_info()) {
            pt.external = x->location() == pf::TensorDataLocation::EXTERNAL;
            if (pt.external)
                pt.externalName = viewOf(x->fully_qualified_name());
            pt.device = { static_cast<std::int8_t>(x->device_type()), x->device_index() };
        }
        if (const pf::AllocationDetails *a = t->allocation_info()) {
            pt.hasAllocation = true;
            pt.arena = a->memory_id();
            pt.offset = (std::uint64_t(a->memory_offset_high()) << 32) | a->memory_offset_low();
        }
        break;
    }
    case pf::KernelTypes::Null:
    case pf::KernelTypes::NONE:
        break;
    }
    return out;
}

std::span<const std::int32_t> ProgramMethod::inputs() const
{
    return spanOf(planOf(m_plan)->inputs());
}

std::span<const std::int32_t> ProgramMethod::outputs() const
{
    return spanOf(planOf(m_plan)->outputs());
}

std::size_t ProgramMethod::chainCount() const
{
    const auto *chains = planOf(m_plan)->chains();
    return chains ? chains->size() : 0;
}

std::size_t ProgramMethod::instructionCount(std::size_t chain) const
{
    const pf::Chain *c = chainOf(m_plan, chain);
    return c && c->instructions() ? c->instructions()->size() : 0;
}

ProgramInstruction ProgramMethod::instruction(std::size_t index, std::size_t chain) const
{
    ProgramInstruction out;
    const pf::Chain *c = chainOf(m_plan, chain);
    if (!c || !c->instructions() || index >= c->instructions()->size())
        return out;
    const pf::Instruction *ins = c->instructions()->Get(flatbuffers::uoffset_t(index));
    if (!ins || !ins->instr_args())
        return out;
    switch (ins->instr_args_type()) {
    case pf::InstructionArguments::KernelCall: {
        const auto *k = ins->instr_args_as_KernelCall();
        out.kind = InstructionKind::KernelCall;
        out.operatorIndex = k->op_index();
        out.args = spanOf(k->args());
        break;
    }
    case pf::InstructionArguments::DelegateCall: {
        const auto *d = ins->instr_args_as_DelegateCall();
        out.kind = InstructionKind::DelegateCall;
        out.delegateIndex = d->delegate_index();
        out.args = spanOf(d->args());
        break;
    }
    case pf::InstructionArguments::MoveCall: {
        const auto *m = ins->instr_args_as_MoveCall();
        out.kind = InstructionKind::Move;
        out.moveFrom = m->move_from();
        out.moveTo = m->move_to();
        break;
    }
    case pf::InstructionArguments::JumpFalseCall: {
        const auto *j = ins->instr_args_as_JumpFalseCall();
        out.kind = InstructionKind::JumpFalse;
        out.condition = j->cond_value_index();
        out.destination = j->destination_instruction();
        break;
    }
    case pf::InstructionArguments::FreeCall:
        out.kind = InstructionKind::Free;
        out.freedValue = ins->instr_args_as_FreeCall()->value_index();
        break;
    case pf::InstructionArguments::NONE:
        break;
    }
    return out;
}

std::vector<ProgramFrame> ProgramMethod::stackTrace(std::size_t index, std::size_t chain) const
{
    std::vector<ProgramFrame> frames;
    const pf::Chain *c = chainOf(m_plan, chain);
    if (!c || !c->stacktrace() || index >= c->stacktrace()->size())
        return frames;
    const pf::FrameList *list = c->stacktrace()->Get(flatbuffers::uoffset_t(index));
    if (!list || !list->items())
        return frames;
    for (const pf::Frame *f : *list->items())
        if (f)
            frames.push_back({ viewOf(f->filename()), viewOf(f->name()), viewOf(f->context()), f->lineno() });
    return frames;
}

std::string ProgramMethod::instructionLabel(std::size_t index, std::size_t chain) const
{
    const ProgramInstruction ins = instruction(index, chain);
    if (ins.kind == InstructionKind::KernelCall)
        return m_operators[std::size_t(ins.operatorIndex)].displayName();
    if (ins.kind == InstructionKind::DelegateCall)
        return m_delegates[std::size_t(ins.delegateIndex)].backendId;
    return std::string(instructionKindName(ins.kind));
}

std::string describeValue(const ProgramValue &v)
{
    switch (v.kind) {
    case ProgramValueKind::Tensor:
        return fmt::format("{}[{}]", scalarTypeName(v.tensor.dtype), fmt::join(v.tensor.sizes, ", "));
    case ProgramValueKind::Int:
        return std::to_string(v.intValue);
    case ProgramValueKind::Bool:
        return v.boolValue ? "True" : "False";
    case ProgramValueKind::Double:
        return fmt::format("{}", v.doubleValue);
    case ProgramValueKind::String:
        return fmt::format("'{}'", printable(v.stringValue, 60));
    case ProgramValueKind::IntList:
        return fmt::format("[{}]", fmt::join(v.ints, ", "));
    case ProgramValueKind::DoubleList:
    case ProgramValueKind::BoolList:
        return fmt::format("{}[{}]", programValueKindName(v.kind), v.listSize);
    case ProgramValueKind::TensorList:
    case ProgramValueKind::OptionalTensorList: {
        std::string out = "[";
        for (std::size_t i = 0; i < v.valueIndices.size(); ++i)
            out += fmt::format("{}{}", i ? ", " : "",
                v.valueIndices[i] < 0 ? std::string("None") : fmt::format("%{}", v.valueIndices[i]));
        return out + "]";
    }
    case ProgramValueKind::Null:
    case ProgramValueKind::None:
        break;
    }
    return "None";
}

std::string deviceName(ProgramDevice device)
{
    switch (device.type) {
    case 0:
        return "cpu";
    case 1:
        return fmt::format("cuda:{}", device.index);
    default:
        return fmt::format("device{}:{}", device.type, device.index);
    }
}

std::string describeValueWithPlace(const ProgramValue &v)
{
    std::string out = describeValue(v);
    if (v.kind != ProgramValueKind::Tensor)
        return out;
    const ProgramTensor &t = v.tensor;
    if (t.isPlanned())
        out += fmt::format(" @{}:{}", t.arena, t.offset);
    if (t.external)
        out += fmt::format(" external: {}", printable(t.externalName, 80));
    else if (!t.isPlanned())
        out += t.isConstant() ? " const" : " runtime";
    if (!t.device.isCpu())
        out += " " + deviceName(t.device);
    return out;
}

std::uint32_t labelColor(std::string_view label)
{
    // FNV-1a spread over the hue circle; fixed saturation and lightness keep labels readable.
    std::uint32_t h = 2166136261u;
    for (unsigned char c : label)
        h = (h ^ c) * 16777619u;
    const double hue = double(h % 360u) / 60.0, s = 0.55, l = 0.62;
    const double c = (1 - std::abs(2 * l - 1)) * s, x = c * (1 - std::abs(std::fmod(hue, 2.0) - 1)), m = l - c / 2;
    double r = 0, g = 0, b = 0;
    switch (int(hue)) {
    case 0:
        r = c, g = x;
        break;
    case 1:
        r = x, g = c;
        break;
    case 2:
        g = c, b = x;
        break;
    case 3:
        g = x, b = c;
        break;
    case 4:
        r = x, b = c;
        break;
    default:
        r = c, b = x;
        break;
    }
    auto byte = [m](double v) { return std::uint32_t(std::lround((v + m) * 255)); };
    return (byte(r) << 16) | (byte(g) << 8) | byte(b);
}

bool looksLikeProgram(const std::uint8_t *data, std::size_t size)
{
    return size >= 8 && std::memcmp(data + 4, "ET12", 4) == 0;
}

Result<std::shared_ptr<const Program>> Program::open(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return fromFile(std::move(*file));
}

Result<std::shared_ptr<const Program>> Program::fromBundled(const BundledProgram &bundled)
{
    const auto &bytes = bundled.program();
    if (bytes.empty())
        return makeError(ErrorCode::Corrupt, bundled.path(), "BundledProgram holds no program");
    return fromFile(MappedFile::fromBytes(bundled.path() + ":program", std::string(bytes.begin(), bytes.end())));
}

Result<std::shared_ptr<const Program>> Program::openAny(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    const auto &f = **file;
    if (f.size() >= 8 && std::memcmp(f.data() + 4, "BP08", 4) == 0) {
        auto bp = BundledProgram::fromBytes(f.bytes(), path);
        if (!bp)
            return bp.error();
        return fromBundled(**bp);
    }
    return fromFile(std::move(*file));
}

std::size_t Program::externalMutableCount() const
{
    return std::size_t(std::count_if(
        m_external.begin(), m_external.end(), [](const ProgramExternalTensor &t) { return t.mutableBuffer; }));
}

const ProgramMethod *Program::method(std::string_view name) const
{
    for (const auto &m : m_methods)
        if (m.name() == name)
            return &m;
    return nullptr;
}

std::uint64_t Program::delegateBlobBytes() const
{
    std::uint64_t sum = 0;
    for (const auto &m : m_methods)
        for (const auto &d : m.delegates())
            sum += d.blobBytes;
    return sum;
}

std::span<const std::uint8_t> Program::constantData(std::uint32_t index, std::uint64_t nbytes) const
{
    const auto *root = static_cast<const pf::Program *>(m_root);
    if (index == 0 || !root)
        return {};
    if (m_constantsInSegment) {
        const pf::SubsegmentOffsets *cs = root->constant_segment();
        if (index >= cs->offsets()->size())
            return {};
        const ProgramSegment &seg = m_segments[cs->segment_index()];
        const std::uint64_t off = cs->offsets()->Get(index); // validated: inside the segment
        return { m_file->data() + seg.offset + off, std::min(nbytes, seg.size - off) };
    }
    const auto *cb = root->constant_buffer();
    if (!cb || index >= cb->size() || !cb->Get(index) || !cb->Get(index)->storage())
        return {};
    const auto *storage = cb->Get(index)->storage();
    return { storage->data(), std::min<std::uint64_t>(nbytes, storage->size()) };
}

Result<std::shared_ptr<const Program>> Program::fromFile(std::shared_ptr<const MappedFile> file)
{
    const std::string &path = file->path();
    const std::uint8_t *data = file->data();
    const std::size_t size = file->size();
    if (size == 0)
        return makeError(ErrorCode::Empty, path, "file is empty");
    if (size < 8)
        return makeError(ErrorCode::Truncated, path, "too short for a program header");
    if (looksLikeFlatTensor(data, size))
        return makeError(ErrorCode::BadIdentifier, path,
            "FlatTensor data (.ptd), not a program: it holds a program's external tensors; give it with its .pte");
    if (!looksLikeProgram(data, size))
        return makeError(ErrorCode::BadIdentifier, path,
            fmt::format("not an ExecuTorch program (identifier '{}', expected 'ET12')",
                printable(std::string_view(reinterpret_cast<const char *>(data) + 4, 4))));

    auto prog = std::shared_ptr<Program>(new Program());
    prog->m_file = std::move(file);
    prog->m_programSize = size;
    // The extended header sits right after the root offset and identifier.
    if (size >= 16 && std::memcmp(data + 8, "eh00", 4) == 0) {
        const std::uint32_t length = readLe32(data + 12);
        if (length < 24 || 8 + std::uint64_t(length) > size)
            return makeError(ErrorCode::Corrupt, path, fmt::format("extended header length {} is invalid", length));
        prog->m_hasExtendedHeader = true;
        prog->m_programSize = readLe64(data + 16);
        prog->m_segmentBase = readLe64(data + 24);
        if (prog->m_programSize < 8 + std::uint64_t(length) || prog->m_programSize > size)
            return makeError(ErrorCode::Corrupt, path,
                fmt::format("extended header claims a {}-byte program in a {}-byte file", prog->m_programSize, size));
        if (prog->m_segmentBase > size)
            return makeError(ErrorCode::Truncated, path,
                fmt::format("segment base {} lies past the end of the file ({} bytes)", prog->m_segmentBase, size));
    }

    if (prog->m_programSize >= FLATBUFFERS_MAX_BUFFER_SIZE)
        return makeError(ErrorCode::LimitExceeded, path,
            fmt::format("program flatbuffer of {} bytes exceeds the 2 GiB flatbuffer limit", prog->m_programSize));
    flatbuffers::Verifier::Options opts;
    opts.max_depth = 64;
    opts.max_tables = std::max<flatbuffers::uoffset_t>(1'000'000, flatbuffers::uoffset_t(prog->m_programSize / 4));
    flatbuffers::Verifier verifier(data, std::size_t(prog->m_programSize), opts);
    if (!pf::VerifyProgramBuffer(verifier))
        return makeError(ErrorCode::Corrupt, path, "program flatbuffer failed verification");
    prog->m_root = pf::GetProgram(data);
    if (auto st = prog->validate(); !st)
        return st.error();
    return std::shared_ptr<const Program>(std::move(prog));
}

// The semantic checks the verifier cannot do, once, so that accessors can trust indices.
Status Program::validate()
{
    const std::string &path = m_file->path();
    const auto *root = static_cast<const pf::Program *>(m_root);
    auto corrupt = [&path](std::string reason) { return makeError(ErrorCode::Corrupt, path, std::move(reason)); };
    const std::uint8_t *data = m_file->data();
    m_version = root->version();

    if (const auto *segs = root->segments()) {
        // Without an extended header the segment base is 0; old exporters write an empty segment.
        for (flatbuffers::uoffset_t i = 0; i < segs->size(); ++i) {
            const pf::DataSegment *s = segs->Get(i);
            std::uint64_t begin = 0, end = 0;
            if (__builtin_add_overflow(m_segmentBase, s->offset(), &begin)
                || __builtin_add_overflow(begin, s->size(), &end) || end > fileSize())
                return makeError(ErrorCode::Truncated, path,
                    fmt::format("segment {} ({} bytes at {}) lies past the end of the file ({} bytes)", i, s->size(),
                        s->offset(), fileSize()));
            m_segments.push_back({ begin, s->size() });
        }
    }

    // Constants: the constant segment, or the deprecated inline buffers.
    std::size_t constantEntries = 0;
    std::vector<std::uint64_t> constantRoom; // bytes available from each entry's start
    if (const pf::SubsegmentOffsets *cs = root->constant_segment(); cs && cs->offsets() && cs->offsets()->size() > 0) {
        if (cs->segment_index() >= m_segments.size())
            return corrupt(fmt::format(
                "constant segment index {} out of range ({} segments)", cs->segment_index(), m_segments.size()));
        if (!elementsAligned(cs->offsets()))
            return corrupt("constant segment offsets are misaligned");
        const std::uint64_t segSize = m_segments[cs->segment_index()].size;
        for (std::uint64_t off : *cs->offsets()) {
            if (off > segSize)
                return corrupt(fmt::format("constant offset {} past the constant segment ({} bytes)", off, segSize));
            constantRoom.push_back(segSize - off);
        }
        constantEntries = cs->offsets()->size();
        m_constantBytes = segSize;
        m_constantsInSegment = true;
    } else if (const auto *cb = root->constant_buffer(); cb && cb->size() > 0) {
        for (const pf::Buffer *b : *cb) {
            const std::uint64_t n = b && b->storage() ? b->storage()->size() : 0;
            constantRoom.push_back(n);
            m_constantBytes += n;
        }
        constantEntries = cb->size();
    }
    m_constantCount = constantEntries > 0 ? constantEntries - 1 : 0;
    const std::size_t inlineDelegateData = root->backend_delegate_data() ? root->backend_delegate_data()->size() : 0;

    const auto *plans = root->execution_plan();
    if (!plans)
        return Ok {};
    std::unordered_map<std::string_view, std::size_t> externalIndex; // name -> m_external
    for (flatbuffers::uoffset_t p = 0; p < plans->size(); ++p) {
        const pf::ExecutionPlan *plan = plans->Get(p);
        ProgramMethod m;
        m.m_plan = plan;
        m.m_name = std::string(viewOf(plan->name()));
        const std::string where = fmt::format("method '{}'", printable(m.m_name, 80));
        const std::size_t nValues = plan->values() ? plan->values()->size() : 0;
        if (nValues > kMaxEntries)
            return makeError(ErrorCode::LimitExceeded, path, fmt::format("{}: {} values", where, nValues));
        auto valueInRange = [nValues](std::int64_t v) { return v >= 0 && std::uint64_t(v) < nValues; };
        std::unordered_map<std::string_view, std::uint64_t> methodExternal; // name -> bytes

        if (!elementsAligned(plan->non_const_buffer_sizes()))
            return corrupt(fmt::format("{}: arena sizes are misaligned", where));
        if (const auto *sizes = plan->non_const_buffer_sizes())
            for (std::int64_t s : *sizes) {
                if (s < 0)
                    return corrupt(fmt::format("{}: negative arena size {}", where, s));
                m.m_arenaSizes.push_back(s);
            }
        m.m_arenaDevices.assign(m.m_arenaSizes.size(), ProgramDevice {});
        if (const auto *devs = plan->non_const_buffer_device()) {
            std::vector<bool> seen(m.m_arenaSizes.size(), false);
            for (const pf::NonConstBufferDevice *d : *devs) {
                const std::int32_t id = d->buffer_idx();
                if (id < 0 || std::size_t(id) >= m.m_arenaSizes.size())
                    return corrupt(
                        fmt::format("{}: device given for arena {} ({} arenas)", where, id, m.m_arenaSizes.size()));
                // The runtime takes the first entry for an arena (method_meta.cpp upstream).
                if (!seen[std::size_t(id)])
                    m.m_arenaDevices[std::size_t(id)]
                        = { static_cast<std::int8_t>(d->device_type()), d->device_index() };
                seen[std::size_t(id)] = true;
            }
        }
        if (const auto *ops = plan->operators())
            for (const pf::Operator *op : *ops)
                m.m_operators.push_back({ std::string(viewOf(op->name())), std::string(viewOf(op->overload())) });
        if (const auto *dels = plan->delegates())
            for (flatbuffers::uoffset_t d = 0; d < dels->size(); ++d) {
                const pf::BackendDelegate *bd = dels->Get(d);
                ProgramDelegate del;
                del.backendId = std::string(viewOf(bd->id()));
                if (const pf::BackendDelegateDataReference *ref = bd->processed()) {
                    del.inlineData = ref->location() == pf::DataLocation::INLINE;
                    del.dataIndex = ref->index();
                    if (del.inlineData) {
                        if (del.dataIndex >= inlineDelegateData)
                            return corrupt(fmt::format("{}: delegate {} refers to inline data {} of {}", where, d,
                                del.dataIndex, inlineDelegateData));
                        const auto *blob = root->backend_delegate_data()->Get(del.dataIndex);
                        del.blobBytes = blob && blob->data() ? blob->data()->size() : 0;
                        if (del.blobBytes > 0) {
                            del.blob = { blob->data()->data(), blob->data()->size() };
                            del.blobOffset = std::uint64_t(del.blob.data() - data);
                        }
                    } else {
                        if (del.dataIndex >= m_segments.size())
                            return corrupt(fmt::format("{}: delegate {} refers to segment {} of {}", where, d,
                                del.dataIndex, m_segments.size()));
                        del.blobBytes = m_segments[del.dataIndex].size;
                        del.blobOffset = m_segments[del.dataIndex].offset;
                        del.blob = { data + del.blobOffset, del.blobBytes };
                    }
                }
                if (const auto *specs = bd->compile_specs())
                    for (const pf::CompileSpec *cs : *specs)
                        del.compileSpecs.push_back({ std::string(viewOf(cs->key())), spanOf(cs->value()) });
                m.m_delegates.push_back(std::move(del));
            }

        for (std::size_t i = 0; i < nValues; ++i) {
            const pf::EValue *ev = plan->values()->Get(flatbuffers::uoffset_t(i));
            // The verifier accepts a union whose type is set but whose table is absent.
            if (ev->val_type() != pf::KernelTypes::NONE && !ev->val())
                return corrupt(fmt::format("{}: value {} of type {} has no data", where, i, int(ev->val_type())));
            if (ev->val_type() > pf::KernelTypes::MAX)
                return makeError(ErrorCode::Unsupported, path,
                    fmt::format("{}: value {} has unknown type {}", where, i, int(ev->val_type())));
            auto checkList = [&](const flatbuffers::Vector<std::int32_t> *items, bool optional) -> Status {
                if (items)
                    for (std::int32_t v : *items) {
                        if (optional && v == -1)
                            continue;
                        if (!valueInRange(v)
                            || plan->values()->Get(flatbuffers::uoffset_t(v))->val_type() != pf::KernelTypes::Tensor)
                            return corrupt(
                                fmt::format("{}: tensor list {} refers to value {} (not a tensor)", where, i, v));
                    }
                return Ok {};
            };
            if (ev->val_type() == pf::KernelTypes::IntList && !elementsAligned(ev->val_as_IntList()->items()))
                return corrupt(fmt::format("{}: value {}: int list is misaligned", where, i));
            if (ev->val_type() == pf::KernelTypes::TensorList) {
                if (auto st = checkList(ev->val_as_TensorList()->items(), false); !st)
                    return st;
            } else if (ev->val_type() == pf::KernelTypes::OptionalTensorList) {
                if (auto st = checkList(ev->val_as_OptionalTensorList()->items(), true); !st)
                    return st;
            } else if (ev->val_type() == pf::KernelTypes::Tensor) {
                const pf::Tensor *t = ev->val_as_Tensor();
                if (!elementSize(static_cast<ScalarType>(t->scalar_type())))
                    return makeError(ErrorCode::Unsupported, path,
                        fmt::format("{}: value {} has unknown scalar type {}", where, i, int(t->scalar_type())));
                auto nbytes = tensorBytes(t);
                if (!nbytes || *nbytes > (std::uint64_t(1) << 48))
                    return makeError(ErrorCode::LimitExceeded, path,
                        fmt::format("{}: value {} claims an absurd tensor size", where, i));
                const pf::ExtraTensorInfo *extra = t->extra_tensor_info();
                const bool external = extra && extra->location() == pf::TensorDataLocation::EXTERNAL;
                if (external) {
                    // The runtime refuses an external tensor without a name (tensor_parser_exec_aten.cpp).
                    const std::string_view name = viewOf(extra->fully_qualified_name());
                    if (name.empty())
                        return corrupt(
                            fmt::format("{}: value {} is external but has no fully qualified name", where, i));
                    if (!methodExternal.contains(name)) {
                        methodExternal[name] = *nbytes;
                        m.m_externalBytes += *nbytes;
                    }
                    if (!externalIndex.contains(name)) {
                        externalIndex.emplace(name, m_external.size());
                        ProgramExternalTensor x;
                        x.name = std::string(name);
                        x.dtype = static_cast<ScalarType>(t->scalar_type());
                        if (t->sizes())
                            x.sizes.assign(t->sizes()->begin(), t->sizes()->end());
                        if (t->dim_order())
                            x.dimOrder.assign(t->dim_order()->begin(), t->dim_order()->end());
                        x.nbytes = *nbytes;
                        x.mutableBuffer = t->allocation_info() != nullptr;
                        x.device = { static_cast<std::int8_t>(extra->device_type()), extra->device_index() };
                        x.method = m.m_name;
                        x.value = std::int32_t(i);
                        m_externalBytes += *nbytes;
                        m_external.push_back(std::move(x));
                    }
                }
                if (const pf::AllocationDetails *a = t->allocation_info()) {
                    const std::uint64_t offset
                        = (std::uint64_t(a->memory_offset_high()) << 32) | a->memory_offset_low();
                    if (a->memory_id() == 0 || a->memory_id() >= m.m_arenaSizes.size())
                        return corrupt(fmt::format("{}: value {} planned into arena {} ({} arenas)", where, i,
                            a->memory_id(), m.m_arenaSizes.size()));
                    const std::uint64_t arenaSize = std::uint64_t(m.m_arenaSizes[a->memory_id()]);
                    if (t->shape_dynamism() != pf::TensorShapeDynamism::DYNAMIC_UNBOUND
                        && (offset > arenaSize || *nbytes > arenaSize - offset))
                        return corrupt(fmt::format("{}: value {} ({} bytes at {}) overruns arena {} ({} bytes)", where,
                            i, *nbytes, offset, a->memory_id(), arenaSize));
                } else if (t->data_buffer_idx() > 0 && !external) {
                    if (t->data_buffer_idx() >= constantEntries)
                        return corrupt(fmt::format("{}: value {} refers to constant {} of {}", where, i,
                            t->data_buffer_idx(), m_constantCount));
                    if (*nbytes > constantRoom[t->data_buffer_idx()])
                        return corrupt(
                            fmt::format("{}: constant value {} ({} bytes) overruns its data", where, i, *nbytes));
                }
            }
        }
        for (const auto *io : { plan->inputs(), plan->outputs() })
            if (io)
                for (std::int32_t v : *io)
                    if (!valueInRange(v))
                        return corrupt(
                            fmt::format("{}: input/output value {} out of range ({} values)", where, v, nValues));

        if (const auto *chains = plan->chains())
            for (flatbuffers::uoffset_t c = 0; c < chains->size(); ++c) {
                const auto *instrs = chains->Get(c)->instructions();
                const std::size_t n = instrs ? instrs->size() : 0;
                if (n > kMaxEntries)
                    return makeError(ErrorCode::LimitExceeded, path, fmt::format("{}: {} instructions", where, n));
                for (std::size_t k = 0; k < n; ++k) {
                    const pf::Instruction *ins = instrs->Get(flatbuffers::uoffset_t(k));
                    const std::string at = fmt::format("{}: instruction {}", where, k);
                    if (ins->instr_args_type() != pf::InstructionArguments::NONE && !ins->instr_args())
                        return corrupt(at + ": arguments missing");
                    if (ins->instr_args_type() > pf::InstructionArguments::MAX)
                        return makeError(ErrorCode::Unsupported, path,
                            fmt::format("{}: unknown kind {}", at, int(ins->instr_args_type())));
                    const ProgramInstruction pi = m.instruction(k, c);
                    if (pi.kind == InstructionKind::KernelCall
                        && (pi.operatorIndex < 0 || std::size_t(pi.operatorIndex) >= m.m_operators.size()))
                        return corrupt(fmt::format(
                            "{}: operator {} out of range ({} operators)", at, pi.operatorIndex, m.m_operators.size()));
                    if (pi.kind == InstructionKind::DelegateCall
                        && (pi.delegateIndex < 0 || std::size_t(pi.delegateIndex) >= m.m_delegates.size()))
                        return corrupt(fmt::format(
                            "{}: delegate {} out of range ({} delegates)", at, pi.delegateIndex, m.m_delegates.size()));
                    if (pi.kind == InstructionKind::JumpFalse
                        && (pi.destination < 0 || std::size_t(pi.destination) >= n))
                        return corrupt(fmt::format(
                            "{}: jump destination {} out of range ({} instructions)", at, pi.destination, n));
                    for (std::int32_t v : pi.valuesUsed())
                        if (!valueInRange(v))
                            return corrupt(fmt::format("{}: value {} out of range ({} values)", at, v, nValues));
                }
            }
        m.m_externalCount = methodExternal.size();
        m_methods.push_back(std::move(m));
    }
    return Ok {};
}

} // namespace etscope
