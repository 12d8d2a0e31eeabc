#include "program/delegates/nodelink.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace etscope {
namespace {

// Lower-case letters and digits only: "Fully Connected" and "FullyConnected" compare equal.
std::string squash(std::string_view s)
{
    std::string out;
    for (char c : s)
        if (std::isalnum(static_cast<unsigned char>(c)) != 0)
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// XNNPACK operator names (xnn_operator_type_to_string) whose kind differs from the node's
// name beyond spacing and case (XNNPACK's operator-type names; only the fixture's FC, Add, GELU,
// TanH and Softmax were seen logged, docs/formats.md §7.5).
struct Alias {
    const char *op; // squashed operator-name prefix
    const char *node; // decoded node op
};
constexpr Alias kAliases[] = {
    { "convolution", "Conv2d" },
    { "deconvolution", "ConvTranspose2d" },
    { "maxpooling", "MaxPooling2d" },
    { "averagepooling", "AvgPooling2d" },
    { "globalaveragepooling", "GlobalAvgPooling2d" },
    { "sigmoid", "Sigmoid" },
    { "squareroot", "SquareRoot" },
    { "reciprocalsquareroot", "ReciprocalSquareRoot" },
    { "batchmatrixmultiply", "BatchMatrixMultiply" },
    { "constantpad", "StaticConstantPad" },
    { "resizebilinear", "StaticResizeBilinear2D" },
    { "transpose", "StaticTranspose" },
    { "slice", "StaticSlice" },
    { "concatenate", "Concatenate2" },
    { "leakyrelu", "LeakyReLU" },
    { "elu", "ELU" },
};

bool nodeOfKind(std::string_view nodeOp, const std::string &kind)
{
    if (kind.empty())
        return false;
    const std::string n = squash(nodeOp), k = squash(kind);
    if (n == k)
        return true;
    // Concatenate2..5 are one operator kind; a depthwise convolution is a convolution operator.
    return (k == "concatenate2" && n.starts_with("concatenate")) || (k == "conv2d" && n == "depthwiseconv2d");
}

} // namespace

std::string xnnpackOperatorKind(std::string_view operatorName)
{
    // Drop " #n" and the parenthesised layout/type: "Fully Connected (NC, F32) GEMM #1".
    std::string_view name = operatorName;
    if (const auto hash = name.rfind(" #"); hash != std::string_view::npos)
        name = name.substr(0, hash);
    if (const auto paren = name.find(" ("); paren != std::string_view::npos)
        name = name.substr(0, paren);
    const std::string s = squash(name);
    for (const Alias &a : kAliases)
        if (s == a.op)
            return a.node;
    // Most names are the node's name spaced out: "Fully Connected", "Add", "GELU", "TanH".
    return s;
}

DelegateEventLinks linkXnnpackEvents(const DelegatePayload &payload, const std::vector<std::string> &eventNames)
{
    DelegateEventLinks out;
    out.events.resize(eventNames.size());
    std::size_t next = 0; // nodes before `next` are linked or passed over
    std::vector<bool> used(payload.nodes.size(), false);
    std::size_t unlinked = 0;
    for (std::size_t e = 0; e < eventNames.size(); ++e) {
        const std::string kind = xnnpackOperatorKind(eventNames[e]);
        std::size_t n = next;
        while (n < payload.nodes.size() && !nodeOfKind(payload.nodes[n].op, kind))
            ++n;
        if (n == payload.nodes.size()) {
            ++unlinked; // no later node of this kind: an operator XNNPACK added, or a kind we do not know
            continue;
        }
        out.events[e] = { std::int64_t(n), true };
        used[n] = true;
        next = n + 1;
    }
    out.fusedNodes = std::size_t(std::count(used.begin(), used.end(), false));
    out.exact = unlinked == 0 && payload.decoded;
    if (!payload.decoded)
        out.note = "the payload is opaque";
    else if (unlinked > 0)
        out.note = fmt::format(
            "{} of {} events name no remaining node of their kind: left unlinked", unlinked, eventNames.size());
    return out;
}

} // namespace etscope
