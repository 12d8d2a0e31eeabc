// The XNNPACK delegate's payload: an XNNHeader ("XH00", payloaddecoders.h), an XNNGraph
// flatbuffer (identifier XN01, or XN00 for the older runtime schema) and the constant data,
// each 16-byte aligned (backends/xnnpack/serialization/xnnpack_graph_serialize.py,
// backends/xnnpack/runtime/XNNCompiler.cpp at ExecuTorch commit
// cff6f4dd32e630945b7188512c1f2b4f102b05ad). A payload without the header is a bare XNNGraph
// whose constants are inline buffers (the compiler's fallback). Our transcription of the graph
// schema is xnnpack.fbs.
#include "program/delegates/payloaddecoders.h"

#include "xnnpack_generated.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace etscope::delegates {
namespace {

namespace xf = etscope::xnnfb;

// XNN_VALUE_FLAG_EXTERNAL_INPUT / _OUTPUT (XNNPACK's xnnpack.h).
constexpr std::uint32_t kExternalInput = 1, kExternalOutput = 2;
constexpr std::uint32_t kInvalidId = 0xFFFFFFFFu;

std::string datatypeName(xf::XNNDatatype t)
{
    const char *name = xf::EnumNameXNNDatatype(t);
    std::string_view s = name ? name : "";
    constexpr std::string_view prefix = "xnn_datatype_";
    if (s.starts_with(prefix))
        return std::string(s.substr(prefix.size()));
    return fmt::format("datatype{}", static_cast<int>(t));
}

template <typename V> std::vector<std::uint64_t> toU64(const V *v)
{
    std::vector<std::uint64_t> out;
    if (v)
        out.assign(v->begin(), v->end());
    return out;
}

std::string listText(const flatbuffers::Vector<std::uint32_t> *v)
{
    return v ? fmt::format("[{}]", fmt::join(*v, ", ")) : "[]";
}

void addId(std::vector<std::int64_t> &to, std::uint32_t id)
{
    if (id != kInvalidId)
        to.push_back(id);
}

DelegateQuant quantOf(const xf::XNNQuantizedTensorValue &q)
{
    DelegateQuant out;
    auto scaleRange = [&out](const flatbuffers::Vector<float> *scales) {
        if (!scales || scales->size() == 0)
            return;
        out.scaleCount = scales->size();
        const auto [lo, hi] = std::minmax_element(scales->begin(), scales->end());
        out.minScale = *lo;
        out.maxScale = *hi;
    };
    switch (q.quant_params_type()) {
    case xf::XNNQuantParams::PerTensorQuant:
        if (const auto *p = q.quant_params_as_PerTensorQuant()) {
            out.kind = DelegateQuant::Kind::PerTensor;
            out.scale = p->scale();
            out.zeroPoint = p->zero_point();
        }
        break;
    case xf::XNNQuantParams::PerChannelQuant:
        if (const auto *p = q.quant_params_as_PerChannelQuant()) {
            out.kind = DelegateQuant::Kind::PerChannel;
            out.channelDim = p->channel_dim();
            scaleRange(p->scale());
            out.scaleConstant = p->scale_buffer_idx();
            if (out.scaleCount == 0)
                out.scaleCount = p->num_scales();
        }
        break;
    case xf::XNNQuantParams::PerTokenDynamicQuant:
        if (const auto *p = q.quant_params_as_PerTokenDynamicQuant()) {
            out.kind = DelegateQuant::Kind::PerTokenDynamic;
            out.nonBatchDims = p->num_nonbatch_dims();
        }
        break;
    case xf::XNNQuantParams::PerChannelGroupQuant:
        if (const auto *p = q.quant_params_as_PerChannelGroupQuant()) {
            out.kind = DelegateQuant::Kind::Blockwise;
            out.channelDim = p->channel_dim();
            out.groupSize = p->group_size();
            scaleRange(p->scale());
            out.scaleConstant = p->scale_buffer_idx();
            if (out.scaleCount == 0)
                out.scaleCount
                    = p->scale_bf16() && p->scale_bf16()->size() > 0 ? p->scale_bf16()->size() : p->num_scales();
        }
        break;
    default:
        break;
    }
    return out;
}

DelegateValue valueOf(const xf::XNNTensorValue &t, std::size_t index)
{
    DelegateValue v;
    // The runtime defines a value under id_out; graphs written by the serializer number them
    // in order, so the index stands in when id_out is absent.
    v.id = flatbuffers::IsFieldPresent(&t, xf::XNNTensorValue::VT_ID_OUT) ? t.id_out() : std::uint32_t(index);
    v.dtype = datatypeName(t.datatype());
    v.shape = toU64(t.dims());
    v.flags = t.flags();
    v.input = (t.flags() & kExternalInput) != 0;
    v.output = (t.flags() & kExternalOutput) != 0;
    v.constant = t.constant_buffer_idx();
    if ((v.input || v.output) && t.external_id() != std::numeric_limits<std::uint32_t>::max())
        v.externalId = t.external_id();
    return v;
}

std::string minMaxText(const xf::XNode &n)
{
    const xf::OutputMinMax *mm = n.output_min_max();
    if (!mm)
        return {};
    auto bound = [](float f) {
        if (f >= std::numeric_limits<float>::max())
            return std::string("+inf");
        if (f <= std::numeric_limits<float>::lowest())
            return std::string("-inf");
        return fmt::format("{}", f);
    };
    return fmt::format("clamp [{}, {}]", bound(mm->output_min()), bound(mm->output_max()));
}

void conv(DelegateNode &out, const xf::_XNNNodeConv *c)
{
    if (!c)
        return;
    addId(out.inputs, c->input1_id());
    addId(out.inputs, c->filter_id());
    addId(out.inputs, c->bias_id());
    addId(out.outputs, c->output_id());
    out.flags = c->flags();
    out.params = fmt::format("kernel {}x{}, stride {}x{}, dilation {}x{}, padding {},{},{},{}, groups {} ({}->{} "
                             "channels each)",
        c->kernel_height(), c->kernel_width(), c->subsampling_height(), c->subsampling_width(), c->dilation_height(),
        c->dilation_width(), c->padding_top(), c->padding_right(), c->padding_bottom(), c->padding_left(), c->groups(),
        c->group_input_channels(), c->group_output_channels());
    if (c->adjustment_height() != 0 || c->adjustment_width() != 0)
        out.params += fmt::format(", adjustment {}x{}", c->adjustment_height(), c->adjustment_width());
}

void pooling(DelegateNode &out, const xf::_XNNPooling2D *p)
{
    if (!p)
        return;
    addId(out.inputs, p->input_id());
    addId(out.outputs, p->output_id());
    out.flags = p->flags();
    out.params = fmt::format("pool {}x{}, stride {}x{}, dilation {}x{}, padding {},{},{},{}", p->pooling_height(),
        p->pooling_width(), p->stride_height(), p->stride_width(), p->dilation_height(), p->dilation_width(),
        p->padding_top(), p->padding_right(), p->padding_bottom(), p->padding_left());
}

template <typename T> void unary(DelegateNode &out, const T *n)
{
    if (!n)
        return;
    addId(out.inputs, n->input_id());
    addId(out.outputs, n->output_id());
    out.flags = n->flags();
}

DelegateNode nodeOf(const xf::XNode &n)
{
    using U = xf::XNodeUnion;
    DelegateNode out;
    const U type = n.xnode_union_type();
    const char *name = xf::EnumNameXNodeUnion(type);
    std::string_view op = name ? name : "";
    if (op.starts_with("XNN"))
        op.remove_prefix(3);
    out.op = op.empty() ? fmt::format("node type {}", static_cast<int>(type)) : std::string(op);
    if (flatbuffers::IsFieldPresent(&n, xf::XNode::VT_DEBUG_HANDLE))
        out.debugHandle = n.debug_handle();
    const void *body = n.xnode_union();
    if (!body)
        return out;
    switch (type) {
    case U::XNNAdd:
    case U::XNNDiv:
    case U::XNNMinimum:
    case U::XNNMultiply:
    case U::XNNSubtract:
    case U::XNNMaximum:
    case U::XNNPReLU:
    case U::XNNBatchMatrixMultiply: {
        const auto *b = static_cast<const xf::_XNNNode2x1 *>(body);
        addId(out.inputs, b->input1_id());
        addId(out.inputs, b->input2_id());
        addId(out.outputs, b->output_id());
        out.flags = b->flags();
        break;
    }
    case U::XNNFullyConnected: {
        const auto *f = n.xnode_union_as_XNNFullyConnected();
        addId(out.inputs, f->input1_id());
        addId(out.inputs, f->filter_id());
        addId(out.inputs, f->bias_id());
        addId(out.outputs, f->output_id());
        out.flags = f->flags();
        break;
    }
    case U::XNNConv2d:
    case U::XNNDepthwiseConv2d:
    case U::XNNConvTranspose2d:
        conv(out, static_cast<const xf::_XNNNodeConv *>(body));
        break;
    case U::XNNAvgPooling2d:
    case U::XNNMaxPooling2d:
        pooling(out, static_cast<const xf::_XNNPooling2D *>(body));
        break;
    case U::XNNStaticTranspose: {
        const auto *t = n.xnode_union_as_XNNStaticTranspose();
        unary(out, t);
        out.params = "perm " + listText(t->perm());
        break;
    }
    case U::XNNStaticResizeBilinear2D: {
        const auto *r = n.xnode_union_as_XNNStaticResizeBilinear2D();
        unary(out, r);
        out.params = fmt::format("to {}x{}", r->new_height(), r->new_width());
        break;
    }
    case U::XNNStaticConstantPad: {
        const auto *p = n.xnode_union_as_XNNStaticConstantPad();
        unary(out, p);
        out.params = fmt::format(
            "pre {}, post {}, value {}", listText(p->pre_paddings()), listText(p->post_paddings()), p->padding_value());
        break;
    }
    case U::XNNStaticReshape: {
        const auto *r = n.xnode_union_as_XNNStaticReshape();
        unary(out, r);
        out.params = "shape " + listText(r->new_shape());
        break;
    }
    case U::XNNStaticSlice: {
        const auto *s = n.xnode_union_as_XNNStaticSlice();
        unary(out, s);
        out.params = fmt::format("offsets {}, sizes {}", listText(s->offsets()), listText(s->sizes()));
        break;
    }
    case U::XNNArgMaxPooling2d: {
        const auto *a = n.xnode_union_as_XNNArgMaxPooling2d();
        addId(out.inputs, a->input_id());
        addId(out.outputs, a->output_value_id());
        addId(out.outputs, a->output_index_id());
        out.flags = a->flags();
        out.params = fmt::format("pool {}x{}, padding {},{},{},{}", a->pooling_height(), a->pooling_width(),
            a->padding_top(), a->padding_right(), a->padding_bottom(), a->padding_left());
        break;
    }
    case U::XNNLeakyReLU: {
        const auto *l = n.xnode_union_as_XNNLeakyReLU();
        unary(out, l);
        out.params = fmt::format("negative slope {}", l->negative_slope());
        break;
    }
    case U::XNNELU: {
        const auto *e = n.xnode_union_as_XNNELU();
        unary(out, e);
        out.params = fmt::format("alpha {}", e->alpha());
        break;
    }
    case U::XNNConcatenate2:
    case U::XNNConcatenate3:
    case U::XNNConcatenate4:
    case U::XNNConcatenate5: {
        const auto *c = static_cast<const xf::_XNNCat *>(body);
        const int count = 2 + static_cast<int>(type) - static_cast<int>(U::XNNConcatenate2);
        const std::uint32_t ids[] = { c->input1_id(), c->input2_id(), c->input3_id(), c->input4_id(), c->input5_id() };
        for (int i = 0; i < (type == U::XNNConcatenate5 ? 5 : count); ++i)
            addId(out.inputs, ids[i]);
        addId(out.outputs, c->output_id());
        out.flags = c->flags();
        out.params = fmt::format("axis {}", c->axis());
        break;
    }
    case U::XNNScaledDotProductAttention: {
        const auto *s = n.xnode_union_as_XNNScaledDotProductAttention();
        for (std::uint32_t id : { s->query_id(), s->key_id(), s->value_id(), s->scale_id(), s->mask_id() })
            addId(out.inputs, id);
        addId(out.outputs, s->output_id());
        out.flags = s->flags();
        break;
    }
    case U::XNNSoftmax:
    case U::XNNSigmoid:
    case U::XNNClamp:
    case U::XNNFloor:
    case U::XNNConvert:
    case U::XNNGlobalAvgPooling2d:
    case U::XNNSquareRoot:
    case U::XNNCeiling:
    case U::XNNHardswish:
    case U::XNNNegate:
    case U::XNNSquare:
    case U::XNNAbs:
    case U::XNNReciprocalSquareRoot:
    case U::XNNLog:
    case U::XNNGelu:
    case U::XNNTanh:
    case U::XNNExp:
    case U::XNNSin:
    case U::XNNCopy:
    case U::XNNCos:
        // The schema's aliases of _XNNNode1x1 (one input, one output): verified as that table.
        unary(out, static_cast<const xf::_XNNNode1x1 *>(body));
        break;
    default:
        // Another table read as _XNNNode1x1 could read past its verified end (found by
        // fuzz_xnnpack_payload): a member not handled above is shown by its type alone.
        break;
    }
    if (const std::string mm = minMaxText(n); !mm.empty())
        out.params = out.params.empty() ? mm : out.params + ", " + mm;
    return out;
}

} // namespace

bool looksLikeXnnpack(std::span<const std::uint8_t> blob)
{
    if (blob.size() >= 8 && std::memcmp(blob.data() + 4, "XH00", 4) == 0)
        return true;
    const std::string id = flatbufferIdentifier(blob);
    return id == "XN01" || id == "XN00";
}

DelegatePayload decodeXnnpack(std::span<const std::uint8_t> blob)
{
    const SegmentedHeaderRead hr = readSegmentedHeader(blob, "XH00");
    if (!hr.error.empty())
        return opaquePayload(blob, "XNNPACK header: " + hr.error);
    std::span<const std::uint8_t> fb = blob;
    std::span<const std::uint8_t> constantData;
    if (hr.header) {
        fb = blob.subspan(hr.header->flatbufferOffset, hr.header->flatbufferSize);
        constantData = blob.subspan(hr.header->constantOffset, hr.header->constantSize);
    }
    const std::string ident = flatbufferIdentifier(fb);
    if (ident != "XN01" && ident != "XN00")
        return opaquePayload(blob, fmt::format("XNNPACK graph identifier '{}' (expected XN01 or XN00)", ident));
    const VerifiedGraph<xf::XNNGraph> graph(fb);
    const xf::XNNGraph *g = graph.root();
    if (!g)
        return opaquePayload(blob, "XNNPACK graph fails flatbuffer verification");

    DelegatePayload p;
    p.backend = "XNNPACK";
    p.decoded = true;
    p.identifier = hr.header ? "XH00 " + ident : ident;
    p.version = g->version() ? g->version()->str() : "";
    p.bytes = blob.size();
    if (g->xvalues()) {
        p.values.reserve(g->xvalues()->size());
        for (flatbuffers::uoffset_t i = 0; i < g->xvalues()->size(); ++i) {
            const xf::XValue *xv = g->xvalues()->Get(i);
            if (const auto *t = xv->xvalue_union_as_XNNTensorValue()) {
                p.values.push_back(valueOf(*t, i));
            } else if (const auto *q = xv->xvalue_union_as_XNNQuantizedTensorValue()) {
                if (!q->tensor_value())
                    continue;
                p.values.push_back(valueOf(*q->tensor_value(), i));
                p.values.back().quant = quantOf(*q);
            }
        }
    }
    if (g->input_ids())
        p.inputs.assign(g->input_ids()->begin(), g->input_ids()->end());
    if (g->output_ids())
        p.outputs.assign(g->output_ids()->begin(), g->output_ids()->end());
    if (g->xnodes()) {
        p.nodes.reserve(g->xnodes()->size());
        for (const xf::XNode *n : *g->xnodes())
            p.nodes.push_back(nodeOf(*n));
    }
    // The constants: constant_data entries when the payload has a constant-data region
    // (entry 0 is the reserved "not constant"), otherwise the deprecated inline buffers.
    if (hr.header && g->constant_data()) {
        for (flatbuffers::uoffset_t i = 1; i < g->constant_data()->size(); ++i) {
            const xf::ConstantDataOffset *c = g->constant_data()->Get(i);
            DelegateConstant k;
            k.bytes = c->size();
            if (c->named_key()) {
                k.place = DelegateConstant::Place::Named;
                k.namedKey = c->named_key()->str();
            } else {
                k.offset = c->offset();
                if (k.offset > constantData.size() || k.bytes > constantData.size() - k.offset)
                    p.note = fmt::format("constant {} ({} bytes at {}) lies past the constant data ({} bytes)", i,
                        k.bytes, k.offset, constantData.size());
            }
            p.constants.push_back(std::move(k));
        }
    } else if (g->constant_buffer()) {
        for (flatbuffers::uoffset_t i = 1; i < g->constant_buffer()->size(); ++i) {
            const xf::Buffer *b = g->constant_buffer()->Get(i);
            DelegateConstant k;
            k.place = DelegateConstant::Place::Inline;
            k.bytes = b && b->storage() ? b->storage()->size() : 0;
            p.constants.push_back(std::move(k));
        }
    }
    if (hr.header)
        addSegmentedParts(p, *hr.header, "graph", "constant data");
    else
        p.parts.push_back({ "graph", blob.size() }); // constants inline in the flatbuffer
    p.finish();
    return p;
}

} // namespace etscope::delegates
