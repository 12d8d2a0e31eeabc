#include "common/atomicwrite.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace etscope {

namespace {

bool writesInPlace(const std::string &path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    return !ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
}

Error ioError(const std::string &path, const char *what, int err)
{
    return makeError(ErrorCode::Io, path, err ? std::string(what) + ": " + std::strerror(err) : std::string(what));
}

} // namespace

Status writeFileAtomically(const std::string &path, const std::function<Status(const WriteSink &sink)> &produce)
{
    const bool inPlace = writesInPlace(path);
    const std::string tmp = path + ".tmp-etscope";
    std::FILE *f = std::fopen(inPlace ? path.c_str() : tmp.c_str(), "wb");
    if (!f)
        return ioError(path, "cannot open for writing", errno);
    int writeErrno = 0;
    const Status st = produce([f, &writeErrno](std::string_view chunk) {
        if (std::fwrite(chunk.data(), 1, chunk.size(), f) == chunk.size())
            return true;
        writeErrno = errno;
        return false;
    });
    const bool closed = std::fclose(f) == 0;
    const int closeErrno = closed ? 0 : errno;
    if (!st || !closed || writeErrno) {
        if (!inPlace)
            std::remove(tmp.c_str());
        if (!st)
            return st;
        return ioError(path, "write failed", writeErrno ? writeErrno : closeErrno);
    }
    if (!inPlace && std::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        std::remove(tmp.c_str());
        return ioError(path, "cannot replace the file", err);
    }
    return Ok {};
}

Status writeFileAtomically(const std::string &path, std::string_view bytes)
{
    return writeFileAtomically(path, [&bytes](const WriteSink &sink) -> Status {
        sink(bytes); // a failed write is reported with its reason by the caller above
        return Ok {};
    });
}

} // namespace etscope
