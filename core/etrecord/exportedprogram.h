#pragma once

// A serialized ExportedProgram (formats.md §3.4) reduced to what an inspector shows: nodes with
// targets, arguments, tensor shapes and the metadata that links them to source and modules.
// Both union spellings are accepted (one key, or every member with nulls as in 2023 files).

#include "common/error.h"
#include "etdump/scalartype.h"
#include "events/event.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace etscope {

// Exported-program ScalarType numbering (ExecuTorch copy of the schema, not ETDump's).
std::optional<ScalarType> scalarTypeFromJson(int jsonDtype);
std::string jsonDtypeName(int jsonDtype); // "float32", ... or "dtype#<n>"

struct TensorMetaInfo {
    int jsonDtype = 0;
    std::vector<std::string> sizes; // decimal, or a symbolic expression ("s0")
    std::vector<std::string> strides;
    bool requiresGrad = false;
    std::string device; // "cpu", "cuda:0"
    std::string dtypeName() const { return jsonDtypeName(jsonDtype); }
    std::string shapeText() const; // "[1, 3, 16, 16]"
};
// One TensorMeta object given as JSON text (used for fake tensors in torch.save blobs).
Result<TensorMetaInfo> parseTensorMetaJson(std::string_view text);

// One argument of a node or of the graph (an Argument union).
struct GraphArgument {
    std::string kind; // active union member, e.g. "as_tensor", "as_ints"
    std::string text; // display text (tensor name, number, compact JSON)
    std::vector<std::string> tensorNames; // tensors referenced (as_tensor/as_tensors/as_optional_tensors)
};

struct NamedArgument {
    std::string name; // schema argument name
    GraphArgument arg;
};

struct GraphNode {
    std::string name; // serialized name, or derived (see nameDerived)
    bool nameDerived = false;
    std::string target; // full operator string
    std::string opName; // Inspector's op_types entry (Edge: "aten.convolution.default", ATen: "convolution.default")
    std::vector<NamedArgument> inputs;
    std::vector<GraphArgument> outputs;
    std::vector<std::pair<std::string, std::string>> metadata; // raw, in file order
    std::optional<std::string> stackTrace;
    std::optional<std::vector<ModuleFrame>> moduleStack;
    std::optional<std::int64_t> debugHandle;
    std::optional<std::string> fromNode; // raw JSON text
    std::optional<std::string> torchFn;
    std::optional<std::string> sourceFnStack;

    // Name the Inspector gives this node in its operator graph (trailing "_").
    std::string inspectorName() const { return name + "_"; }
    bool isGetItem() const;
    bool isMemoryAlloc() const;
    bool isDelegateCall() const;
    // "file.py:88" of the node's source: its stack trace's user frame (userFrame below); empty
    // if none. The whole trace stays in stackTrace.
    std::string sourceLocation() const;
};

// One frame of a Python traceback as torch.fx records it ('File "/m.py", line 88, in forward').
struct SourceFrame {
    std::string file; // as recorded
    int line = 0;
    std::string function;
    std::string location() const; // "m.py:88" (file name only)
};
// The frames of a stack trace, outermost first (the order Python prints them).
std::vector<SourceFrame> parseSourceFrames(std::string_view trace);
// Library code rather than the user's model: a file inside torch (a "torch" folder, e.g.
// .../torch/nn/modules/linear.py), inside site-packages or dist-packages, or in the Python
// standard library (.../lib/python3.11/..., Windows' .../Lib/...), or no file at all
// ("<frozen importlib._bootstrap>", torch.fx's "<eval_with_key>.3").
bool isLibraryFrame(std::string_view file);
// "The source" of a node: the innermost frame outside library code; the innermost frame when
// every frame is library code; none without frames.
std::optional<SourceFrame> userFrame(std::string_view trace);
// userFrame(trace)->location(), or "" when the trace has no frame.
std::string userSourceLocation(std::string_view trace);

struct SignatureSpec {
    std::string kind; // "user_input", "parameter", "buffer", "user_output", ...
    std::string argName;
    std::string target; // parameter/buffer name for parameters, buffers, mutations
};

struct ExportedProgram {
    std::vector<GraphArgument> inputs;
    std::vector<GraphArgument> outputs;
    std::vector<GraphNode> nodes;
    std::unordered_map<std::string, TensorMetaInfo> tensorValues;
    std::vector<SignatureSpec> inputSpecs;
    std::vector<SignatureSpec> outputSpecs;
    std::string schemaVersion; // "5.3", or "1" for 2023 files
    std::string dialect;
    std::map<std::string, std::int64_t> opsetVersion;
    std::vector<std::string> warnings;

    const TensorMetaInfo *tensor(const std::string &name) const;
};

// `label` names file and entry for errors ("etrecord.bin:edge_dialect_exported_program/forward").
Result<ExportedProgram> parseExportedProgram(std::string_view json, const std::string &label);

// Inspector op name for a target string (the target's __name__): Edge targets lose
// "executorch.exir.dialects.edge.ops.", "torch.ops.<ns>.<op>.<overload>" keeps "<op>.<overload>",
// other dotted callables keep their last component ("_operator.getitem" -> "getitem").
std::string inspectorOpName(std::string_view target);

// One step of a node's `from_node` provenance: the node it came from and that node's graph.
struct NodeOrigin {
    std::string name;
    std::optional<std::int64_t> graphId; // absent in older exports
};
// The node's provenance along the last entry of each `from_node` list, nearest first (the list
// may be serialized twice, as JSON text of JSON; malformed or deeply nested text ends the chain).
std::vector<NodeOrigin> fromNodeChain(const GraphNode &n);

} // namespace etscope
