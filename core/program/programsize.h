#pragma once

// Every byte of a .pte accounted for: a tree of parts whose top level adds up to the file size
// exactly, and each part's children to the part. Top level, in file order: the flatbuffer
// (its header; per method the instructions, the values, the stack traces and the rest of the
// method's tables; inline constants; inline delegate payloads; everything else in it — root
// table, vtables, alignment), the padding before the segments, then each segment (the constant
// segment per tensor, naming the operators that read it; each delegate payload split by its
// decoder into graph, weights and other parts; named data) and the padding between them.
// Attribution inside the flatbuffer is by ownership of byte ranges: every table, vector and
// string is measured exactly and counted once; what no method or blob owns is "other".

#include "program/program.h"

#include <cstdint>
#include <string>
#include <vector>

namespace etscope {

struct SizePart {
    std::string name;
    std::uint64_t bytes = 0;
    std::vector<SizePart> parts; // add up to bytes when not empty
};

struct SizeReport {
    std::string file;
    std::uint64_t fileBytes = 0;
    std::vector<SizePart> parts; // add up to fileBytes
    // The .ptd files attached to the program, each split into header, flatbuffer, its tensors and
    // named data, padding (adding up to that file's size).
    std::vector<SizeReport> dataFiles;
};

SizeReport programSize(const Program &program);

// Sum of the parts' bytes (one level).
std::uint64_t sumOfParts(const std::vector<SizePart> &parts);

// An indented listing: "name  bytes  share%" per part, children under their parent, down to
// `depth` levels (0: all).
std::string sizeText(const SizeReport &report, int depth = 0);
// {"file", "file_bytes", "parts": [{"name", "bytes", "parts": [...]}], "data_files": [...]}
std::string sizeJson(const SizeReport &report);

} // namespace etscope
