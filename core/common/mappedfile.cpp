#include "common/mappedfile.h"

// The one platform-specific reader of the core: POSIX (Linux, macOS) maps the file; elsewhere
// (Windows) the file is read once into memory, which the readers cannot tell apart.

#include <cerrno>
#include <cstring>

#if defined(_WIN32)
#include <filesystem>
#include <fstream>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace etscope {

void MappedFile::prefault() const
{
#if defined(MADV_POPULATE_READ) && !defined(_WIN32)
    if (m_map)
        ::madvise(m_map, m_size, MADV_POPULATE_READ); // advisory: older kernels refuse it, which is fine
#endif
}

MappedFile::~MappedFile()
{
#if !defined(_WIN32)
    if (m_map)
        ::munmap(m_map, m_size);
#endif
}

std::shared_ptr<const MappedFile> MappedFile::fromBytes(std::string path, std::string bytes)
{
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_path = std::move(path);
    f->m_owned = std::move(bytes);
    f->m_data = reinterpret_cast<const std::uint8_t *>(f->m_owned.data());
    f->m_size = f->m_owned.size();
    return f;
}

#if defined(_WIN32)
Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string &path)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return makeError(ErrorCode::Io, path, "is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::Io, path, std::string("cannot open: ") + std::strerror(errno));
    std::string buf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        return makeError(ErrorCode::Io, path, "cannot read");
    return fromBytes(path, std::move(buf));
}
#else
Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return makeError(ErrorCode::Io, path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {
    };
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        return makeError(ErrorCode::Io, path, std::string("cannot stat: ") + std::strerror(err));
    }
    if (S_ISDIR(st.st_mode)) {
        ::close(fd);
        return makeError(ErrorCode::Io, path, "is a directory, not a file");
    }
    std::shared_ptr<MappedFile> f(new MappedFile);
    f->m_path = path;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void *p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            ::close(fd);
            f->m_map = p;
            f->m_data = static_cast<const std::uint8_t *>(p);
            f->m_size = static_cast<std::size_t>(st.st_size);
            return std::shared_ptr<const MappedFile>(std::move(f));
        }
    }
    // Pipes, empty files and mmap failures: read the whole stream once.
    std::string buf;
    char chunk[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int err = errno;
            ::close(fd);
            return makeError(ErrorCode::Io, path, std::string("cannot read: ") + std::strerror(err));
        }
        if (n == 0)
            break;
        buf.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(fd);
    f->m_owned = std::move(buf);
    f->m_data = reinterpret_cast<const std::uint8_t *>(f->m_owned.data());
    f->m_size = f->m_owned.size();
    return std::shared_ptr<const MappedFile>(std::move(f));
}
#endif

} // namespace etscope
