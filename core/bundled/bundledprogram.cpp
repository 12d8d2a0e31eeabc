#include "bundled/bundledprogram.h"

#include "common/mappedfile.h"
#include "common/printable.h"

#include <bundled_program_generated.h>
#include <fmt/format.h>

#include <algorithm>

namespace etscope {

namespace bp = etscope::bpfb;

std::vector<std::int64_t> stridesFromDimOrder(
    const std::vector<std::int64_t> &sizes, const std::vector<std::uint8_t> &dimOrder)
{
    const std::size_t rank = sizes.size();
    std::vector<std::uint8_t> order = dimOrder;
    if (order.empty())
        for (std::size_t i = 0; i < rank; ++i)
            order.push_back(std::uint8_t(i));
    if (order.size() != rank)
        return {};
    std::vector<bool> seen(rank, false);
    for (auto d : order) {
        if (d >= rank || seen[d])
            return {};
        seen[d] = true;
    }
    // The innermost dimension in memory is the last entry of dim_order.
    // Checked: a zero-sized dimension keeps numel small while the others can be absurd.
    std::vector<std::int64_t> strides(rank, 0);
    std::int64_t running = 1;
    for (std::size_t k = rank; k-- > 0;) {
        strides[order[k]] = running;
        if (sizes[order[k]] < 0 || __builtin_mul_overflow(running, sizes[order[k]], &running))
            return {};
    }
    return strides;
}

namespace {

Result<BundledValue> decodeTensor(const bp::Tensor *t, const std::string &path, const std::string &where)
{
    BundledValue v;
    v.kind = BundledValue::Kind::Tensor;
    v.dtype = static_cast<ScalarType>(t->scalar_type());
    auto esize = elementSize(v.dtype);
    if (!esize || !isConvertible(v.dtype))
        return makeError(
            ErrorCode::Unsupported, path, fmt::format("{}: unsupported scalar type {}", where, int(t->scalar_type())));
    std::int64_t numel = 1;
    std::int64_t extent = 1; // product of the non-zero sizes: bounds the strides as well
    if (t->sizes())
        for (auto s : *t->sizes()) {
            if (s < 0)
                return makeError(ErrorCode::Corrupt, path, fmt::format("{}: negative size {}", where, s));
            v.sizes.push_back(s);
            numel *= s;
            extent *= std::max<std::int64_t>(s, 1);
            if (extent > BundledProgram::kMaxElements)
                return makeError(ErrorCode::LimitExceeded, path, fmt::format("{}: tensor too large", where));
        }
    if (t->dim_order())
        v.dimOrder.assign(t->dim_order()->begin(), t->dim_order()->end());
    v.strides = stridesFromDimOrder(v.sizes, v.dimOrder);
    if (v.strides.size() != v.sizes.size())
        return makeError(ErrorCode::Corrupt, path, fmt::format("{}: dim_order is not a permutation", where));
    const std::size_t bytes = t->data() ? t->data()->size() : 0;
    if (bytes != std::size_t(numel) * *esize)
        return makeError(ErrorCode::Corrupt, path,
            fmt::format("{}: data has {} bytes, shape needs {}", where, bytes, std::size_t(numel) * *esize));
    v.values.resize(std::size_t(numel));
    if (numel == 0)
        return v;
    const std::uint8_t *data = t->data()->data();
    // Walk logical indices in row-major order and gather from the dim_order layout.
    const std::size_t rank = v.sizes.size();
    std::vector<std::int64_t> idx(rank, 0);
    std::int64_t src = 0;
    for (std::int64_t k = 0; k < numel; ++k) {
        v.values[std::size_t(k)] = elementToDouble(v.dtype, data + std::size_t(src) * *esize);
        for (std::size_t d = rank; d-- > 0;) {
            if (++idx[d] < v.sizes[d]) {
                src += v.strides[d];
                break;
            }
            src -= v.strides[d] * (v.sizes[d] - 1);
            idx[d] = 0;
        }
    }
    return v;
}

Result<std::vector<BundledValue>> decodeValues(
    const flatbuffers::Vector<flatbuffers::Offset<bp::Value>> *vs, const std::string &path, const std::string &where)
{
    std::vector<BundledValue> out;
    if (!vs)
        return out;
    for (flatbuffers::uoffset_t i = 0; i < vs->size(); ++i) {
        const bp::Value *val = vs->Get(i);
        const std::string here = fmt::format("{}[{}]", where, i);
        // The verifier accepts a union whose type is set but whose table is absent.
        if (val && val->val_type() != bp::ValueUnion::NONE && !val->val())
            return makeError(
                ErrorCode::Corrupt, path, fmt::format("{}: value of type {} has no data", here, int(val->val_type())));
        BundledValue v;
        if (!val) {
            out.push_back(std::move(v));
            continue;
        }
        switch (val->val_type()) {
        case bp::ValueUnion::Tensor: {
            auto t = decodeTensor(val->val_as_Tensor(), path, here);
            if (!t)
                return t.error();
            v = std::move(*t);
            break;
        }
        case bp::ValueUnion::Int:
            v.kind = BundledValue::Kind::Int;
            v.intValue = val->val_as_Int()->int_val();
            break;
        case bp::ValueUnion::Bool:
            v.kind = BundledValue::Kind::Bool;
            v.boolValue = val->val_as_Bool()->bool_val();
            break;
        case bp::ValueUnion::Double:
            v.kind = BundledValue::Kind::Double;
            v.doubleValue = val->val_as_Double()->double_val();
            break;
        case bp::ValueUnion::NONE:
            break;
        default:
            return makeError(
                ErrorCode::Unsupported, path, fmt::format("{}: unknown value type {}", here, int(val->val_type())));
        }
        out.push_back(std::move(v));
    }
    return out;
}

} // namespace

Result<std::shared_ptr<const BundledProgram>> BundledProgram::open(const std::string &path)
{
    auto file = MappedFile::open(path);
    if (!file)
        return file.error();
    return fromBytes((*file)->bytes(), path);
}

Result<std::shared_ptr<const BundledProgram>> BundledProgram::fromBytes(
    std::span<const std::uint8_t> bytes, const std::string &path)
{
    if (bytes.empty())
        return makeError(ErrorCode::Empty, path, "file is empty");
    if (bytes.size() < 8)
        return makeError(ErrorCode::Truncated, path, "too short for a BundledProgram header");
    if (!flatbuffers::BufferHasIdentifier(bytes.data(), bp::BundledProgramIdentifier()))
        return makeError(ErrorCode::BadIdentifier, path,
            fmt::format("not a BundledProgram (identifier '{}', expected 'BP08')",
                printable(std::string_view(reinterpret_cast<const char *>(bytes.data()) + 4, 4))));
    flatbuffers::Verifier verifier(bytes.data(), bytes.size());
    if (!bp::VerifyBundledProgramBuffer(verifier))
        return makeError(ErrorCode::Corrupt, path, "BundledProgram flatbuffer failed verification");
    const bp::BundledProgram *root = bp::GetBundledProgram(bytes.data());

    auto prog = std::make_shared<BundledProgram>();
    prog->m_path = path;
    prog->m_version = root->version();
    if (root->program())
        prog->m_program.assign(root->program()->begin(), root->program()->end());
    if (root->method_test_suites()) {
        for (const bp::BundledMethodTestSuite *s : *root->method_test_suites()) {
            BundledTestSuite suite;
            suite.methodName = s->method_name() ? s->method_name()->str() : std::string();
            if (s->test_cases()) {
                for (flatbuffers::uoffset_t c = 0; c < s->test_cases()->size(); ++c) {
                    const bp::BundledMethodTestCase *tc = s->test_cases()->Get(c);
                    const std::string where = fmt::format("{} test case {}", printable(suite.methodName, 80), c);
                    auto in = decodeValues(tc->inputs(), path, where + " input");
                    if (!in)
                        return in.error();
                    auto out = decodeValues(tc->expected_outputs(), path, where + " expected output");
                    if (!out)
                        return out.error();
                    suite.testCases.push_back(BundledTestCase { std::move(*in), std::move(*out) });
                }
            }
            prog->m_suites.push_back(std::move(suite));
        }
    }
    return std::shared_ptr<const BundledProgram>(std::move(prog));
}

const BundledTestSuite *BundledProgram::suite(const std::string &methodName) const
{
    for (const auto &s : m_suites)
        if (s.methodName == methodName)
            return &s;
    return nullptr;
}

std::string BundledProgram::programIdentifier() const
{
    if (m_program.size() < 8)
        return {};
    return std::string(reinterpret_cast<const char *>(m_program.data()) + 4, 4);
}

} // namespace etscope
