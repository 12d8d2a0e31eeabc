#pragma once

// torch.save archives (formats.md §4): a zip with <prefix>/data.pkl, <prefix>/data/<key>
// storages and <prefix>/byteorder. Loading reads the pickle and the central directory only;
// storage bytes are read when tensorValues() (or PyStorage::bytes()) first asks for them.

#include "common/error.h"
#include "common/mappedfile.h"
#include "etrecord/pyvalue.h"

#include <memory>
#include <string>
#include <vector>

namespace etscope {

class ZipArchive;

Result<PyValue> loadTorchSave(const std::string &path);
Result<PyValue> loadTorchSave(std::shared_ptr<const MappedFile> bytes);
// An already opened archive (e.g. a stored ETRecord entry viewed in place).
Result<PyValue> loadTorchSave(std::shared_ptr<const ZipArchive> archive);

// Elements in logical row-major order, honoring offset and strides, converted to double
// (half, bfloat16 and float8 included; complex yields the real part; bool 0/1).
Result<std::vector<double>> tensorValues(const PyTensor &tensor);

} // namespace etscope
