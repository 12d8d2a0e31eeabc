// Elementwise kernels: binary arithmetic with broadcasting and type promotion (Tensor and
// Scalar forms), comparisons, logical and bitwise ops, unary math and activations, where.
// Float16/BFloat16 compute in float and round at the output, as PyTorch CPU does.

#include "eval/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace etscope::eval {

namespace {

// The element type a dtype computes in.
enum class Compute { F32, F64, I64 };
Compute computeOf(ScalarType t)
{
    if (t == ScalarType::Double)
        return Compute::F64;
    return category(t) == Category::Float ? Compute::F32 : Compute::I64;
}

template <typename C> const C *loadAs(const Tensor &t, std::vector<C> &hold)
{
    if constexpr (std::is_same_v<C, float>) {
        return floatsOf(t, hold);
    } else if constexpr (std::is_same_v<C, double>) {
        if (t.dtype == ScalarType::Double)
            return t.data<double>();
        hold = toDoubles(t);
        return hold.data();
    } else {
        if (t.dtype == ScalarType::Long)
            return t.data<std::int64_t>();
        hold = toInts(t);
        return hold.data();
    }
}

template <typename C> Result<Tensor> storeAs(ScalarType to, const std::vector<std::int64_t> &sizes, std::vector<C> &&v)
{
    if constexpr (std::is_same_v<C, float>) {
        if (to == ScalarType::Float) {
            auto t = makeTensor(to, sizes);
            if (!t)
                return t.error();
            if (!v.empty())
                std::memcpy(t->mutableBytes(), v.data(), v.size() * 4);
            return t;
        }
        auto t = makeTensor(to, sizes);
        if (!t)
            return t.error();
        const std::size_t es = t->itemSize();
        for (std::size_t i = 0; i < v.size(); ++i)
            storeDouble(to, t->mutableBytes() + i * es, v[i]);
        return t;
    } else if constexpr (std::is_same_v<C, double>) {
        return fromDoubleValues(to, sizes, v);
    } else if constexpr (std::is_same_v<C, std::uint8_t>) {
        auto t = makeTensor(ScalarType::Bool, sizes);
        if (!t)
            return t.error();
        if (!v.empty())
            std::memcpy(t->mutableBytes(), v.data(), v.size());
        (void)to;
        return t;
    } else {
        return fromIntValues(to, sizes, v);
    }
}

// Calls fn(outIndex, aIndex, bIndex) over a broadcast of a and b to `shape`.
template <typename Fn>
void broadcastLoop(const std::vector<std::int64_t> &shape, const std::vector<std::int64_t> &sa,
    const std::vector<std::int64_t> &sb, Fn &&fn)
{
    const int rank = int(shape.size());
    std::int64_t n = 1;
    for (auto s : shape)
        n *= s;
    if (n == 0)
        return;
    if (rank == 0) {
        fn(0, 0, 0);
        return;
    }
    const std::int64_t inner = shape.back(), ia = sa.back(), ib = sb.back();
    std::vector<std::int64_t> idx(std::size_t(rank), 0);
    std::int64_t o = 0;
    for (std::int64_t r = 0; r < n / inner; ++r) {
        std::int64_t a = 0, b = 0;
        for (int d = 0; d < rank - 1; ++d) {
            a += idx[std::size_t(d)] * sa[std::size_t(d)];
            b += idx[std::size_t(d)] * sb[std::size_t(d)];
        }
        for (std::int64_t k = 0; k < inner; ++k)
            fn(o++, a + k * ia, b + k * ib);
        for (int d = rank - 2; d >= 0; --d) {
            if (++idx[std::size_t(d)] < shape[std::size_t(d)])
                break;
            idx[std::size_t(d)] = 0;
        }
    }
}

// Binary op computing in C, result stored as `out` dtype (R = result element type of fn).
template <typename C, typename R, typename Fn>
Result<Tensor> binaryIn(const Tensor &a, const Tensor &b, ScalarType out, int threads, Fn fn)
{
    auto shape = broadcastShapes(a.sizes, b.sizes);
    if (!shape)
        return shape.error();
    auto n = checkedNumel(*shape);
    if (!n)
        return n.error();
    std::vector<C> ha, hb;
    const C *pa = loadAs<C>(a, ha);
    const C *pb = loadAs<C>(b, hb);
    if constexpr (std::is_same_v<R, float>) {
        const bool same = a.sizes == *shape && b.sizes == *shape;
        if (out == ScalarType::Float && (same || (a.sizes == *shape && b.numel() == 1))) { // straight into the result
            auto t = uninitTensor(out, *shape);
            if (!t)
                return t.error();
            float *q = t->template mutableData<float>();
            if (same)
                parallelFor(*n, threads, 1 << 16, [&](std::int64_t s, std::int64_t e) {
                    for (std::int64_t i = s; i < e; ++i)
                        q[i] = fn(pa[i], pb[i]);
                });
            else
                parallelFor(*n, threads, 1 << 16, [&, bv = pb[0]](std::int64_t s, std::int64_t e) {
                    for (std::int64_t i = s; i < e; ++i)
                        q[i] = fn(pa[i], bv);
                });
            return t;
        }
    }
    std::vector<R> res(static_cast<std::size_t>(*n));
    if (a.sizes == *shape && b.sizes == *shape) {
        parallelFor(*n, threads, 1 << 16, [&](std::int64_t s, std::int64_t e) {
            for (std::int64_t i = s; i < e; ++i)
                res[std::size_t(i)] = fn(pa[i], pb[i]);
        });
    } else if (b.numel() == 1) {
        const C bv = pb[0];
        for (std::int64_t i = 0; i < *n; ++i)
            res[std::size_t(i)] = fn(pa[a.numel() == 1 ? 0 : i], bv);
    } else {
        broadcastLoop(*shape, broadcastStrides(a.sizes, *shape), broadcastStrides(b.sizes, *shape),
            [&](std::int64_t o, std::int64_t i, std::int64_t j) { res[std::size_t(o)] = fn(pa[i], pb[j]); });
    }
    return storeAs<R>(out, *shape, std::move(res));
}

// Second operand: a tensor argument, or a Scalar turned into a 0-d tensor (wrapped number).
struct Operand {
    Tensor t;
    bool wrapped = false;
    KernelArgs::Scalar s;
};

Result<Operand> operand(const KernelArgs &a, int index, const char *name)
{
    const Value *v = a.find(index, name);
    Operand o;
    if (v && v->kind == Value::Kind::Tensor) {
        o.t = v->tensor;
        return o;
    }
    auto s = a.scalar(index, name);
    if (!s)
        return s.error();
    o.wrapped = true;
    o.s = *s;
    o.t = s->isFloat
        ? Tensor::scalarDouble(ScalarType::Double, s->d)
        : (s->isBool ? Tensor::scalarDouble(ScalarType::Bool, s->d) : *fromIntValues(ScalarType::Long, {}, { s->i }));
    return o;
}

ScalarType resultType(const Tensor &a, const Operand &b)
{
    return b.wrapped ? promoteScalar(a.dtype, b.s) : promoteTensors(a, b.t);
}

enum class Arith { Add, Sub, Mul, Div, DivTrunc, DivFloor, Pow, Max, Min, Rem, Fmod, Atan2 };

template <typename C> C floorDivF(C a, C b)
{
    if (b == 0)
        return a / b;
    C mod = std::fmod(a, b);
    C div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0)))
        div -= 1;
    if (div != 0) {
        C f = std::floor(div);
        if (div - f > C(0.5))
            f += 1;
        return f;
    }
    return std::copysign(C(0), a / b);
}

Result<Tensor> arith(const KernelArgs &args, Arith op, const char *otherName = "other")
{
    auto a = args.tensor(0, "self");
    if (!a)
        return a.error();
    auto b = operand(args, 1, otherName);
    if (!b)
        return b.error();
    double alpha = 1;
    std::int64_t alphaI = 1;
    if ((op == Arith::Add || op == Arith::Sub) && args.has(2, "alpha")) {
        auto s = args.scalar(2, "alpha");
        if (!s)
            return s.error();
        alpha = s->d;
        alphaI = s->i;
    }
    ScalarType rt = resultType(*a, *b);
    if (op == Arith::Div && category(rt) != Category::Float)
        rt = defaultFloat();
    if (op == Arith::Atan2 && category(rt) != Category::Float)
        rt = defaultFloat();
    // A wrapped number becomes a 0-d tensor of the result dtype before the kernel runs
    // (TensorIterator casts CPU scalars), so half/bfloat16 ops see the rounded scalar.
    if (b->wrapped && (rt == ScalarType::Half || rt == ScalarType::BFloat16)) {
        auto c = cast(b->t, rt);
        if (!c)
            return c.error();
        b->t = *c;
    }
    const int th = args.threads;
    switch (computeOf(rt)) {
    case Compute::F32:
    case Compute::F64: {
        auto run = [&](auto zero) -> Result<Tensor> {
            using C = decltype(zero);
            const C al = C(alpha);
            switch (op) {
            case Arith::Add:
                if (alpha == 1)
                    return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return x + y; });
                return binaryIn<C, C>(*a, b->t, rt, th, [al](C x, C y) { return x + al * y; });
            case Arith::Sub:
                if (alpha == 1)
                    return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return x - y; });
                return binaryIn<C, C>(*a, b->t, rt, th, [al](C x, C y) { return x - al * y; });
            case Arith::Mul:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return x * y; });
            case Arith::Div:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return x / y; });
            case Arith::DivTrunc:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return std::trunc(x / y); });
            case Arith::DivFloor:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return floorDivF(x, y); });
            case Arith::Pow:
                // Squares as x * x, as torch does (its common RMSNorm / variance case).
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return y == C(2) ? x * x : C(std::pow(x, y)); });
            case Arith::Max:
                return binaryIn<C, C>(*a, b->t, rt, th,
                    [](C x, C y) { return (x != x || y != y) ? std::numeric_limits<C>::quiet_NaN() : std::max(x, y); });
            case Arith::Min:
                return binaryIn<C, C>(*a, b->t, rt, th,
                    [](C x, C y) { return (x != x || y != y) ? std::numeric_limits<C>::quiet_NaN() : std::min(x, y); });
            case Arith::Rem:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) {
                    C m = std::fmod(x, y);
                    if (m != 0 && ((y < 0) != (m < 0)))
                        m += y;
                    return m;
                });
            case Arith::Fmod:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return C(std::fmod(x, y)); });
            case Arith::Atan2:
                return binaryIn<C, C>(*a, b->t, rt, th, [](C x, C y) { return C(std::atan2(x, y)); });
            }
            return kernelError("bad op");
        };
        if (computeOf(rt) == Compute::F32)
            return run(0.0f);
        return run(0.0);
    }
    case Compute::I64: {
        using I = std::int64_t;
        using U = std::uint64_t;
        // Two's complement wrap (torch's integer overflow), without signed-overflow UB.
        switch (op) {
        case Arith::Add:
            return binaryIn<I, I>(*a, b->t, rt, th, [alphaI](I x, I y) { return I(U(x) + U(alphaI) * U(y)); });
        case Arith::Sub:
            return binaryIn<I, I>(*a, b->t, rt, th, [alphaI](I x, I y) { return I(U(x) - U(alphaI) * U(y)); });
        case Arith::Mul:
            return binaryIn<I, I>(*a, b->t, rt, th, [](I x, I y) { return I(U(x) * U(y)); });
        case Arith::DivTrunc:
        case Arith::DivFloor: {
            bool zero = false;
            auto r = binaryIn<I, I>(*a, b->t, rt, th, [&zero, op](I x, I y) -> I {
                if (y == 0) {
                    zero = true;
                    return 0;
                }
                if (x == std::numeric_limits<I>::min() && y == -1)
                    return x;
                I q = x / y;
                if (op == Arith::DivFloor && (x % y != 0) && ((x < 0) != (y < 0)))
                    --q;
                return q;
            });
            if (zero)
                return kernelError("integer division by zero (PyTorch raises ZeroDivisionError)");
            return r;
        }
        case Arith::Rem:
        case Arith::Fmod: {
            bool zero = false;
            auto r = binaryIn<I, I>(*a, b->t, rt, th, [&zero, op](I x, I y) -> I {
                if (y == 0) {
                    zero = true;
                    return 0;
                }
                if (y == -1)
                    return 0;
                I m = x % y;
                if (op == Arith::Rem && m != 0 && ((y < 0) != (m < 0)))
                    m += y;
                return m;
            });
            if (zero)
                return kernelError("integer division by zero (PyTorch raises ZeroDivisionError)");
            return r;
        }
        case Arith::Pow:
            return binaryIn<I, I>(*a, b->t, rt, th, [](I x, I y) -> I {
                if (y < 0)
                    return x == 1 ? 1 : (x == -1 ? (y % 2 ? -1 : 1) : 0);
                U r = 1, base = U(x);
                for (I e = y; e > 0; e >>= 1) {
                    if (e & 1)
                        r *= base;
                    base *= base;
                }
                return I(r);
            });
        case Arith::Max:
            return binaryIn<I, I>(*a, b->t, rt, th, [](I x, I y) { return std::max(x, y); });
        case Arith::Min:
            return binaryIn<I, I>(*a, b->t, rt, th, [](I x, I y) { return std::min(x, y); });
        default:
            break;
        }
        return kernelError("operation not defined for integer tensors");
    }
    }
    return kernelError("bad dtype");
}

enum class Cmp { Eq, Ne, Lt, Gt, Le, Ge };

Result<Tensor> compare(const KernelArgs &args, Cmp op)
{
    auto a = args.tensor(0, "self");
    if (!a)
        return a.error();
    auto b = operand(args, 1, "other");
    if (!b)
        return b.error();
    const ScalarType ct = resultType(*a, *b);
    auto cmp = [op](auto x, auto y) -> std::uint8_t {
        switch (op) {
        case Cmp::Eq:
            return x == y;
        case Cmp::Ne:
            return x != y;
        case Cmp::Lt:
            return x < y;
        case Cmp::Gt:
            return x > y;
        case Cmp::Le:
            return x <= y;
        case Cmp::Ge:
            return x >= y;
        }
        return 0;
    };
    // Compare in the promoted type (a float scalar against an int tensor compares as float).
    switch (computeOf(ct)) {
    case Compute::F32: {
        // Round both operands to the promoted dtype first (e.g. half).
        auto ca = cast(*a, ct);
        auto cb = cast(b->t, ct);
        if (!ca || !cb)
            return kernelError("cast failed");
        return binaryIn<float, std::uint8_t>(*ca, *cb, ScalarType::Bool, args.threads, cmp);
    }
    case Compute::F64:
        return binaryIn<double, std::uint8_t>(*a, b->t, ScalarType::Bool, args.threads, cmp);
    case Compute::I64:
        return binaryIn<std::int64_t, std::uint8_t>(*a, b->t, ScalarType::Bool, args.threads, cmp);
    }
    return kernelError("bad dtype");
}

enum class Bits { And, Or, Xor, LAnd, LOr, LXor };

Result<Tensor> bitwise(const KernelArgs &args, Bits op)
{
    auto a = args.tensor(0, "self");
    if (!a)
        return a.error();
    auto b = operand(args, 1, "other");
    if (!b)
        return b.error();
    using I = std::int64_t;
    if (op == Bits::LAnd || op == Bits::LOr || op == Bits::LXor) {
        return binaryIn<double, std::uint8_t>(
            *a, b->t, ScalarType::Bool, args.threads, [op](double x, double y) -> std::uint8_t {
                const bool p = x != 0, q = y != 0;
                return op == Bits::LAnd ? (p && q) : op == Bits::LOr ? (p || q) : (p != q);
            });
    }
    const ScalarType rt = resultType(*a, *b);
    if (category(rt) == Category::Float)
        return kernelError("bitwise ops are only defined for integer and bool tensors");
    return binaryIn<I, I>(*a, b->t, rt, args.threads, [op](I x, I y) {
        return op == Bits::And ? (x & y) : op == Bits::Or ? (x | y) : (x ^ y);
    });
}

// Unary ops. `intOk`: keeps integer dtypes (neg, abs, relu); otherwise ints promote to float.
template <typename FnF>
Result<Tensor> unaryFloat(const Tensor &x, int threads, FnF fn, std::optional<ScalarType> forceOut = std::nullopt)
{
    const ScalarType rt = forceOut ? *forceOut : (category(x.dtype) == Category::Float ? x.dtype : defaultFloat());
    const std::int64_t n = x.numel();
    if (rt == ScalarType::Double) {
        std::vector<double> h;
        const double *p = loadAs<double>(x, h);
        std::vector<double> out(static_cast<std::size_t>(n));
        parallelFor(n, threads, 1 << 15, [&](std::int64_t s, std::int64_t e) {
            for (std::int64_t i = s; i < e; ++i)
                out[std::size_t(i)] = fn(p[i]);
        });
        return storeAs<double>(rt, x.sizes, std::move(out));
    }
    std::vector<float> h;
    const float *p = loadAs<float>(x, h);
    if (rt == ScalarType::Float) { // straight into the result
        auto t = uninitTensor(rt, x.sizes);
        if (!t)
            return t.error();
        float *q = t->template mutableData<float>();
        parallelFor(n, threads, 1 << 15, [&](std::int64_t s, std::int64_t e) {
            for (std::int64_t i = s; i < e; ++i)
                q[i] = fn(p[i]);
        });
        return t;
    }
    std::vector<float> out(static_cast<std::size_t>(n));
    parallelFor(n, threads, 1 << 15, [&](std::int64_t s, std::int64_t e) {
        for (std::int64_t i = s; i < e; ++i)
            out[std::size_t(i)] = fn(p[i]);
    });
    return storeAs<float>(rt, x.sizes, std::move(out));
}

template <typename FnI> Result<Tensor> unaryInt(const Tensor &x, FnI fn)
{
    std::vector<std::int64_t> h;
    const std::int64_t *p = loadAs<std::int64_t>(x, h);
    std::vector<std::int64_t> out(static_cast<std::size_t>(x.numel()));
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = fn(p[i]);
    return storeAs<std::int64_t>(x.dtype, x.sizes, std::move(out));
}

// Registers a float-only unary op on "self".
template <typename Fn> void regUnary(std::initializer_list<const char *> keys, Fn fn)
{
    registerKernel(keys, [fn](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        auto r = unaryFloat(*x, a.threads, fn);
        if (!r)
            return r.error();
        return std::vector<Tensor> { std::move(*r) };
    });
}

float geluErf(float x)
{
    return float(0.5 * double(x) * (1.0 + std::erf(double(x) * M_SQRT1_2)));
}

float geluTanh(float x)
{
    const float k = float(M_2_SQRTPI * M_SQRT1_2);
    const float inner = k * (x + 0.044715f * x * x * x);
    return 0.5f * x * (1.0f + std::tanh(inner));
}

} // namespace

Result<Tensor> whereSelect(const Tensor &cond, const Tensor &a, const Tensor &b, ScalarType rt)
{
    auto s1 = broadcastShapes(cond.sizes, a.sizes);
    if (!s1)
        return s1.error();
    auto shape = broadcastShapes(*s1, b.sizes);
    if (!shape)
        return shape.error();
    auto ca = cast(a, rt), cb = cast(b, rt);
    if (!ca || !cb)
        return kernelError("where: cannot cast operands");
    auto out = makeTensor(rt, *shape);
    if (!out)
        return out.error();
    const auto sc = broadcastStrides(cond.sizes, *shape), sa = broadcastStrides(a.sizes, *shape),
               sb = broadcastStrides(b.sizes, *shape);
    const std::size_t es = out->itemSize();
    std::uint8_t *o = out->mutableBytes();
    const std::uint8_t *pa = ca->bytes(), *pb = cb->bytes();
    // Walk three broadcasts: reuse broadcastLoop twice (cond with a, then b) via flat indices.
    std::vector<std::int64_t> ia(static_cast<std::size_t>(out->numel())), ib(ia.size()), ic(ia.size());
    broadcastLoop(*shape, sc, sa, [&](std::int64_t k, std::int64_t i, std::int64_t j) {
        ic[std::size_t(k)] = i;
        ia[std::size_t(k)] = j;
    });
    broadcastLoop(*shape, sb, sb, [&](std::int64_t k, std::int64_t i, std::int64_t) { ib[std::size_t(k)] = i; });
    for (std::size_t k = 0; k < ia.size(); ++k) {
        const bool c = cond.getInt(ic[k]) != 0;
        std::memcpy(o + k * es, c ? pa + std::size_t(ia[k]) * es : pb + std::size_t(ib[k]) * es, es);
    }
    return out;
}

void registerElementwiseKernels()
{
    auto reg = [](std::initializer_list<const char *> keys, Arith op, const char *other = "other") {
        registerKernel(keys, [op, other](const KernelArgs &a) { return one(arith(a, op, other)); });
    };
    reg({ "aten.add.Tensor", "aten.add.Scalar" }, Arith::Add);
    reg({ "aten.sub.Tensor", "aten.sub.Scalar" }, Arith::Sub);
    reg({ "aten.mul.Tensor", "aten.mul.Scalar" }, Arith::Mul);
    reg({ "aten.div.Tensor", "aten.div.Scalar" }, Arith::Div);
    reg({ "aten.maximum.default" }, Arith::Max);
    reg({ "aten.minimum.default" }, Arith::Min);
    reg({ "aten.remainder.Tensor", "aten.remainder.Scalar" }, Arith::Rem);
    reg({ "aten.fmod.Tensor", "aten.fmod.Scalar" }, Arith::Fmod);
    reg({ "aten.atan2.default" }, Arith::Atan2);
    reg({ "aten.pow.Tensor_Tensor", "aten.pow.Tensor_Scalar" }, Arith::Pow, "exponent");
    registerKernel({ "aten.pow.Scalar" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        // pow(Scalar self, Tensor exponent)
        KernelArgs b = a;
        b.names = { "self", "other" };
        auto e = a.tensor(1, "exponent");
        auto s = a.scalar(0, "self");
        if (!e || !s)
            return kernelError("pow.Scalar needs a scalar base and a tensor exponent");
        Tensor base = s->isFloat ? Tensor::scalarDouble(ScalarType::Double, s->d)
                                 : *fromIntValues(ScalarType::Long, {}, { s->i });
        const ScalarType rt = promoteScalar(e->dtype, *s);
        auto cb = cast(base, rt);
        if (!cb)
            return cb.error();
        b.values = { Value::ofTensor(*cb), Value::ofTensor(*e) };
        return one(arith(b, Arith::Pow));
    });
    registerKernel(
        { "aten.div.Tensor_mode", "aten.div.Scalar_mode" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            const Value *m = a.find(2, "rounding_mode");
            if (!m || m->isNone())
                return one(arith(a, Arith::Div));
            if (m->str == "trunc")
                return one(arith(a, Arith::DivTrunc));
            if (m->str == "floor")
                return one(arith(a, Arith::DivFloor));
            return kernelError(fmt::format("unknown rounding_mode '{}'", m->str));
        });
    registerKernel({ "aten.floor_divide.default", "aten.floor_divide.Scalar" },
        [](const KernelArgs &a) { return one(arith(a, Arith::DivFloor)); });
    registerKernel({ "aten.rsub.Scalar", "aten.rsub.Tensor" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        // other - alpha * self
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        auto o = operand(a, 1, "other");
        if (!o)
            return o.error();
        const ScalarType rt = resultType(*x, *o);
        auto co = cast(o->t, rt);
        if (!co)
            return co.error();
        KernelArgs b;
        b.threads = a.threads;
        b.names = { "self", "other", "alpha" };
        b.values
            = { Value::ofTensor(*co), Value::ofTensor(*x), a.has(2, "alpha") ? *a.find(2, "alpha") : Value::ofInt(1) };
        return one(arith(b, Arith::Sub));
    });

    auto regCmp = [](std::initializer_list<const char *> keys, Cmp op) {
        registerKernel(keys, [op](const KernelArgs &a) { return one(compare(a, op)); });
    };
    regCmp({ "aten.eq.Tensor", "aten.eq.Scalar" }, Cmp::Eq);
    regCmp({ "aten.ne.Tensor", "aten.ne.Scalar" }, Cmp::Ne);
    regCmp({ "aten.lt.Tensor", "aten.lt.Scalar" }, Cmp::Lt);
    regCmp({ "aten.gt.Tensor", "aten.gt.Scalar" }, Cmp::Gt);
    regCmp({ "aten.le.Tensor", "aten.le.Scalar" }, Cmp::Le);
    regCmp({ "aten.ge.Tensor", "aten.ge.Scalar" }, Cmp::Ge);
    auto regBits = [](std::initializer_list<const char *> keys, Bits op) {
        registerKernel(keys, [op](const KernelArgs &a) { return one(bitwise(a, op)); });
    };
    regBits({ "aten.bitwise_and.Tensor", "aten.bitwise_and.Scalar" }, Bits::And);
    regBits({ "aten.bitwise_or.Tensor", "aten.bitwise_or.Scalar" }, Bits::Or);
    regBits({ "aten.bitwise_xor.Tensor", "aten.bitwise_xor.Scalar" }, Bits::Xor);
    regBits({ "aten.logical_and.default" }, Bits::LAnd);
    regBits({ "aten.logical_or.default" }, Bits::LOr);
    regBits({ "aten.logical_xor.default" }, Bits::LXor);
    registerKernel({ "aten.logical_not.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        auto out = makeTensor(ScalarType::Bool, x->sizes);
        if (!out)
            return out.error();
        for (std::int64_t i = 0; i < x->numel(); ++i)
            out->mutableBytes()[i] = x->getDouble(i) == 0;
        return std::vector<Tensor> { *out };
    });
    registerKernel({ "aten.bitwise_not.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        if (x->dtype == ScalarType::Bool)
            return one(unaryInt(*x, [](std::int64_t v) { return std::int64_t(v == 0); }));
        if (category(x->dtype) == Category::Float)
            return kernelError("bitwise_not is only defined for integer and bool tensors");
        return one(unaryInt(*x, [](std::int64_t v) { return ~v; }));
    });

    // Unary ops that keep integer dtypes.
    registerKernel({ "aten.neg.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        if (category(x->dtype) != Category::Float)
            return one(unaryInt(*x, [](std::int64_t v) { return std::int64_t(0ull - std::uint64_t(v)); }));
        return one(unaryFloat(*x, a.threads, [](auto v) { return -v; }));
    });
    registerKernel({ "aten.abs.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        if (category(x->dtype) != Category::Float)
            return one(unaryInt(*x, [](std::int64_t v) { return v < 0 ? std::int64_t(0ull - std::uint64_t(v)) : v; }));
        return one(unaryFloat(*x, a.threads, [](auto v) { return std::abs(v); }));
    });
    registerKernel({ "aten.relu.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        if (category(x->dtype) != Category::Float)
            return one(unaryInt(*x, [](std::int64_t v) { return std::max<std::int64_t>(v, 0); }));
        return one(unaryFloat(*x, a.threads, [](auto v) { return v != v ? v : (v > 0 ? v : decltype(v)(0)); }));
    });
    registerKernel({ "aten.sign.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        if (category(x->dtype) != Category::Float)
            return one(unaryInt(*x, [](std::int64_t v) { return std::int64_t((v > 0) - (v < 0)); }));
        return one(unaryFloat(*x, a.threads, [](auto v) { return v != v ? v : decltype(v)((v > 0) - (v < 0)); }));
    });
    for (const auto &entry : { std::pair { "aten.floor.default", 0 }, { "aten.ceil.default", 1 },
             { "aten.round.default", 2 }, { "aten.trunc.default", 3 } }) {
        // Plain copies, not a structured binding: clang 14 (the fuzz build) cannot capture those.
        const char *key = entry.first;
        const int mode = entry.second;
        registerKernel({ key }, [mode](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            auto x = a.tensor(0, "self");
            if (!x)
                return x.error();
            if (category(x->dtype) != Category::Float)
                return std::vector<Tensor> { *x };
            return one(unaryFloat(*x, a.threads, [mode](auto v) {
                return mode == 0 ? std::floor(v)
                    : mode == 1  ? std::ceil(v)
                    : mode == 2  ? std::nearbyint(v)
                                 : std::trunc(v);
            }));
        });
    }

    regUnary({ "aten.exp.default" }, [](auto v) { return std::exp(v); });
    regUnary({ "aten.expm1.default" }, [](auto v) { return std::expm1(v); });
    regUnary({ "aten.log.default" }, [](auto v) { return std::log(v); });
    regUnary({ "aten.log2.default" }, [](auto v) { return std::log2(v); });
    regUnary({ "aten.log10.default" }, [](auto v) { return std::log10(v); });
    regUnary({ "aten.log1p.default" }, [](auto v) { return std::log1p(v); });
    regUnary({ "aten.sqrt.default" }, [](auto v) { return std::sqrt(v); });
    regUnary({ "aten.rsqrt.default" }, [](auto v) { return decltype(v)(1) / std::sqrt(v); });
    regUnary({ "aten.reciprocal.default" }, [](auto v) { return decltype(v)(1) / v; });
    regUnary({ "aten.sin.default" }, [](auto v) { return std::sin(v); });
    regUnary({ "aten.cos.default" }, [](auto v) { return std::cos(v); });
    regUnary({ "aten.tan.default" }, [](auto v) { return std::tan(v); });
    regUnary({ "aten.tanh.default" }, [](auto v) { return std::tanh(v); });
    regUnary({ "aten.erf.default" }, [](auto v) { return std::erf(v); });
    regUnary({ "aten.atan.default" }, [](auto v) { return std::atan(v); });
    regUnary({ "aten.sigmoid.default" }, [](auto v) {
        using C = decltype(v);
        return C(1) / (C(1) + std::exp(-v));
    });
    regUnary({ "aten.silu.default" }, [](auto v) {
        using C = decltype(v);
        return v / (C(1) + std::exp(-v));
    });
    regUnary({ "aten.hardswish.default" }, [](auto v) {
        using C = decltype(v);
        return v * std::min(std::max(v + C(3), C(0)), C(6)) / C(6);
    });
    regUnary({ "aten.hardsigmoid.default" }, [](auto v) {
        using C = decltype(v);
        return std::min(std::max(v + C(3), C(0)), C(6)) / C(6);
    });
    registerKernel({ "aten.gelu.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        const Value *ap = a.find(1, "approximate");
        const bool tanhMode = ap && ap->kind == Value::Kind::String && ap->str == "tanh";
        if (ap && ap->kind == Value::Kind::String && ap->str != "tanh" && ap->str != "none")
            return kernelError(fmt::format("unknown gelu approximation '{}'", ap->str));
        if (x->dtype == ScalarType::Double)
            return one(unaryFloat(*x, a.threads, [tanhMode](double v) {
                if (tanhMode)
                    return 0.5 * v * (1 + std::tanh(M_2_SQRTPI * M_SQRT1_2 * (v + 0.044715 * v * v * v)));
                return 0.5 * v * (1 + std::erf(v * M_SQRT1_2));
            }));
        if (tanhMode)
            return one(unaryFloat(*x, a.threads, [](float v) { return geluTanh(v); }));
        return one(unaryFloat(*x, a.threads, [](float v) { return geluErf(v); }));
    });
    registerKernel({ "aten.leaky_relu.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        auto s = a.number(1, "negative_slope", 0.01);
        if (!x || !s)
            return kernelError("leaky_relu: bad arguments");
        const double slope = *s;
        return one(unaryFloat(*x, a.threads, [slope](auto v) { return v > 0 ? v : v * decltype(v)(slope); }));
    });
    registerKernel({ "aten.elu.default" }, [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        auto al = a.number(1, "alpha", 1.0);
        auto sc = a.number(2, "scale", 1.0);
        auto is = a.number(3, "input_scale", 1.0);
        if (!x || !al || !sc || !is)
            return kernelError("elu: bad arguments");
        const double alpha = *al, scale = *sc, inScale = *is;
        return one(unaryFloat(*x, a.threads, [=](auto v) {
            using C = decltype(v);
            return v > 0 ? v * C(scale) : C(alpha) * C(scale) * (std::exp(v * C(inScale)) - C(1));
        }));
    });
    // clamp / hardtanh: bounds are Scalars (or tensors for clamp.Tensor); result keeps the
    // promoted dtype; NaN input stays NaN.
    auto clampKernel = [](const KernelArgs &a, const char *loName, const char *hiName, std::optional<double> loDef,
                           std::optional<double> hiDef) -> Result<std::vector<Tensor>> {
        auto x = a.tensor(0, "self");
        if (!x)
            return x.error();
        const Value *lo = a.find(1, loName), *hi = a.find(2, hiName);
        if ((lo && lo->kind == Value::Kind::Tensor) || (hi && hi->kind == Value::Kind::Tensor)) {
            Tensor cur = *x;
            if (lo && lo->kind == Value::Kind::Tensor) {
                KernelArgs b;
                b.threads = a.threads;
                b.names = { "self", "other" };
                b.values = { Value::ofTensor(cur), *lo };
                auto r = arith(b, Arith::Max);
                if (!r)
                    return r.error();
                cur = *r;
            }
            if (hi && hi->kind == Value::Kind::Tensor) {
                KernelArgs b;
                b.threads = a.threads;
                b.names = { "self", "other" };
                b.values = { Value::ofTensor(cur), *hi };
                auto r = arith(b, Arith::Min);
                if (!r)
                    return r.error();
                cur = *r;
            }
            return std::vector<Tensor> { cur };
        }
        std::optional<KernelArgs::Scalar> l, h;
        if (a.has(1, loName) || loDef) {
            auto s = a.scalar(1, loName, loDef);
            if (!s)
                return s.error();
            l = *s;
        }
        if (a.has(2, hiName) || hiDef) {
            auto s = a.scalar(2, hiName, hiDef);
            if (!s)
                return s.error();
            h = *s;
        }
        ScalarType rt = x->dtype;
        if (l)
            rt = promoteScalar(rt, *l);
        if (h)
            rt = promoteScalar(rt, *h);
        if (category(rt) != Category::Float) {
            auto cx = cast(*x, rt);
            if (!cx)
                return cx.error();
            const std::int64_t li = l ? l->i : std::numeric_limits<std::int64_t>::min();
            const std::int64_t hi2 = h ? h->i : std::numeric_limits<std::int64_t>::max();
            return one(unaryInt(*cx, [li, hi2](std::int64_t v) { return std::min(std::max(v, li), hi2); }));
        }
        const double ld = l ? l->d : -std::numeric_limits<double>::infinity();
        const double hd = h ? h->d : std::numeric_limits<double>::infinity();
        return one(unaryFloat(
            *x, a.threads,
            [ld, hd](auto v) {
                using C = decltype(v);
                if (v != v)
                    return v;
                return std::min(std::max(v, C(ld)), C(hd));
            },
            rt));
    };
    registerKernel({ "aten.clamp.default", "aten.clamp.Tensor" },
        [clampKernel](const KernelArgs &a) { return clampKernel(a, "min", "max", std::nullopt, std::nullopt); });
    registerKernel({ "aten.hardtanh.default" },
        [clampKernel](const KernelArgs &a) { return clampKernel(a, "min_val", "max_val", -1.0, 1.0); });
    registerKernel({ "aten.clamp_min.default" },
        [clampKernel](const KernelArgs &a) { return clampKernel(a, "min", "__none", std::nullopt, std::nullopt); });
    registerKernel({ "aten.clamp_max.default" }, [clampKernel](const KernelArgs &a) -> Result<std::vector<Tensor>> {
        KernelArgs b = a;
        for (auto &n : b.names)
            if (n == "max")
                n = "max_";
        b.names.insert(b.names.begin() + 1, "__none");
        b.values.insert(b.values.begin() + 1, Value::none());
        return clampKernel(b, "__none", "max_", std::nullopt, std::nullopt);
    });

    // masked_fill(self, mask, value): value where mask, in self's dtype.
    registerKernel({ "aten.masked_fill.Scalar", "aten.masked_fill.Tensor" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            auto x = a.tensor(0, "self");
            auto m = a.tensor(1, "mask");
            if (!x || !m)
                return kernelError("masked_fill needs self and mask tensors");
            if (m->dtype != ScalarType::Bool)
                return kernelError("masked_fill: mask must be a bool tensor");
            auto v = a.scalar(2, "value");
            if (!v)
                return v.error();
            Tensor fill = category(x->dtype) == Category::Float ? Tensor::scalarDouble(x->dtype, v->d)
                                                                : *fromIntValues(x->dtype, {}, { v->i });
            auto r = whereSelect(*m, fill, *x, x->dtype);
            if (!r)
                return r.error();
            if (r->sizes != x->sizes)
                return kernelError("masked_fill: mask does not broadcast to self's shape");
            return std::vector<Tensor> { *r };
        });
    registerKernel({ "aten.where.self", "aten.where.ScalarOther", "aten.where.ScalarSelf", "aten.where.Scalar" },
        [](const KernelArgs &a) -> Result<std::vector<Tensor>> {
            auto c = a.tensor(0, "condition");
            if (!c)
                return c.error();
            auto x = operand(a, 1, "self");
            auto y = operand(a, 2, "other");
            if (!x || !y)
                return kernelError("where: bad operands");
            ScalarType rt;
            if (!x->wrapped && !y->wrapped)
                rt = promoteTensors(x->t, y->t);
            else if (!x->wrapped)
                rt = promoteScalar(x->t.dtype, y->s);
            else if (!y->wrapped)
                rt = promoteScalar(y->t.dtype, x->s);
            else
                rt = (x->s.isFloat || y->s.isFloat) ? defaultFloat() : ScalarType::Long;
            return one(whereSelect(*c, x->t, y->t, rt));
        });
}

} // namespace etscope::eval
