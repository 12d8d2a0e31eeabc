#pragma once

// The text form of a Core ML ML Program: model.mil of a compiled model (model.mlmodelc), the same
// program the .mlpackage holds as protobuf (MIL.proto), printed by Core ML's compiler. Its shape:
//
//   program(1.0)
//   [buildInfo = dict<…>({…})]
//   {
//       func main<ios17>(tensor<fp32, [1, 3]> x) {
//           tensor<fp32, [4, 3]> w = const()[name = string("w"), val = tensor<fp32, [4, 3]>(
//               BLOBFILE(path = string("@model_path/weights/weight.bin"), offset = uint64(64)))];
//           tensor<fp32, [1, 4]> y = linear(weight = w, x = x)[name = string("y")];
//       } -> (y);
//   }
//
// (older compilers spell scalars `tensor<string, []>("…")`). A statement is `OUTPUTS = OP(ARGS)[ATTRS];`
// with OUTPUTS one `TYPE NAME` or a parenthesised list of them, ARGS `param = value` pairs whose
// value is a name, a parenthesised list of names, or a literal. Parsed without a grammar of the
// types: brackets and strings are balanced, everything else is taken as text. Bounded: never reads
// past the text, at most kMaxOps operations.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etscope::delegates {

struct MilTextValue {
    std::string name;
    std::string dtype; // "fp32", "int32", …; the whole type when it is not a tensor ("bool")
    std::optional<std::vector<std::uint64_t>> shape; // absent when a dimension is not a number
};

struct MilTextOp {
    std::string op; // "conv", "const"
    std::vector<MilTextValue> outputs;
    // param → the value names it reads (empty for a literal)
    std::vector<std::pair<std::string, std::vector<std::string>>> args;
    // A const's (or any argument's) BLOBFILE reference: the file and the offset of its record.
    std::string blobPath;
    std::optional<std::uint64_t> blobOffset;
    bool inlineValue = false; // a const whose value is written in the text
    std::size_t inlineChars = 0; // its length in the text
};

struct MilTextFunction {
    std::string name, opset; // "main", "ios17"
    std::vector<MilTextValue> inputs;
    std::vector<MilTextOp> ops;
    std::vector<std::string> outputs;
};

struct MilTextProgram {
    std::string version; // "1.0"
    std::vector<MilTextFunction> functions;
    std::string error; // where the text stopped making sense (what was read before stays)
};

inline constexpr std::size_t kMaxMilTextOps = 1'000'000;

MilTextProgram parseMilText(std::string_view text);

} // namespace etscope::delegates
