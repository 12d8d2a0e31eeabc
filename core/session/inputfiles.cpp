#include "session/inputfiles.h"

#include "etdump/etdumpfile.h"
#include "program/flattensor.h"
#include "program/program.h"
#include "session/session.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace etscope {

const char *fileKindLabel(FileKind kind)
{
    switch (kind) {
    case FileKind::ETDump:
        return "ETDump";
    case FileKind::ETRecord:
        return "ETRecord";
    case FileKind::BundledProgram:
        return "BundledProgram";
    case FileKind::Program:
        return "program";
    case FileKind::ProgramData:
        return "program data (.ptd)";
    case FileKind::TorchSave:
        return "torch.save file";
    case FileKind::DebugBuffer:
        return "debug buffer";
    case FileKind::Unreadable:
        break;
    }
    return "unreadable";
}

FileSniff sniffInputFile(const std::string &path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        return { FileKind::Unreadable, path + ": no such file" };
    if (!std::filesystem::is_regular_file(status))
        return { FileKind::Unreadable, path + ": not a regular file" };
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return { FileKind::Unreadable, path + ": cannot open for reading" };
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size == 0)
        return { FileKind::Unreadable, path + ": file is empty" };
    char headBytes[64] = {};
    file.read(headBytes, sizeof headBytes);
    const auto n = std::size_t(file.gcount());
    const auto *head = reinterpret_cast<const std::uint8_t *>(headBytes);
    if (looksLikeETDump(head, n))
        return { FileKind::ETDump, {} };
    if (n >= 8 && std::memcmp(headBytes + 4, "BP08", 4) == 0)
        return { FileKind::BundledProgram, {} };
    if (looksLikeProgram(head, n))
        return { FileKind::Program, {} };
    if (looksLikeFlatTensor(head, n))
        return { FileKind::ProgramData, {} };
    std::string suffix = std::filesystem::path(path).extension().string();
    std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (suffix == ".etdp" || suffix == ".etdump")
        // Named like an ETDump but not one: a debug buffer is never saved under that name.
        return { FileKind::Unreadable, path + ": named like an ETDump but is not one (no ED00 identifier)" };
    if (n >= 4 && std::memcmp(headBytes, "PK\x03\x04", 4) == 0) {
        // The central directory sits at the end of a zip; the entry name is stored there.
        const std::uintmax_t tail = std::min<std::uintmax_t>(size, 64 * 1024);
        std::string bytes(tail, '\0');
        file.clear();
        file.seekg(std::streamoff(size - tail));
        file.read(bytes.data(), std::streamsize(tail));
        bytes.resize(std::size_t(file.gcount()));
        return { bytes.find("ETRECORD_V0") != std::string::npos ? FileKind::ETRecord : FileKind::TorchSave, {} };
    }
    return { FileKind::DebugBuffer, {} };
}

void InputFiles::applyTo(SessionInputs &inputs) const
{
    auto set = [](std::string &slot, const std::string &v) {
        if (!v.empty())
            slot = v;
    };
    set(inputs.etdump, etdump);
    set(inputs.debugBuffer, debugBuffer);
    set(inputs.etrecord, etrecord);
    set(inputs.bundledProgram, bundledProgram);
    set(inputs.program, program);
    inputs.programData.insert(inputs.programData.end(), programData.begin(), programData.end());
}

InputFiles classifyInputFiles(const std::vector<std::string> &paths)
{
    InputFiles out;
    auto take = [&](std::string &slot, const std::string &path) {
        if (!slot.empty())
            out.ignored.push_back(slot);
        slot = path;
    };
    for (const std::string &path : paths) {
        const FileSniff r = sniffInputFile(path);
        switch (r.kind) {
        case FileKind::ETDump:
            take(out.etdump, path);
            break;
        case FileKind::ETRecord:
            take(out.etrecord, path);
            break;
        case FileKind::BundledProgram:
            take(out.bundledProgram, path);
            break;
        case FileKind::Program:
            take(out.program, path);
            break;
        case FileKind::ProgramData:
            out.programData.push_back(path);
            break;
        case FileKind::DebugBuffer:
            take(out.debugBuffer, path);
            break;
        case FileKind::TorchSave:
            // AOT outputs or inputs belong to a numeric gap, not to a recording.
            out.errors.push_back(path
                + ": a torch.save file, not a companion of an ETDump (give it as a reference "
                  "of the numeric gap)");
            break;
        case FileKind::Unreadable:
            out.errors.push_back(r.error);
            break;
        }
    }
    return out;
}

std::vector<std::vector<std::string>> splitInputRecordings(const std::vector<std::string> &paths)
{
    std::vector<std::vector<std::string>> groups;
    std::vector<std::string> before; // companions before the first ETDump
    for (const std::string &path : paths) {
        if (sniffInputFile(path).kind == FileKind::ETDump)
            groups.push_back({ path });
        else if (groups.empty())
            before.push_back(path);
        else
            groups.back().push_back(path);
    }
    if (groups.empty())
        return { before };
    groups.front().insert(groups.front().begin(), before.begin(), before.end());
    return groups;
}

} // namespace etscope
