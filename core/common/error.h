#pragma once

#include <string>
#include <utility>
#include <variant>

namespace etscope {

// What went wrong, coarse enough for callers to branch on (e.g. the GUI asks for a missing
// ETDump when a debug buffer is opened alone) and fine enough for tests to assert on.
enum class ErrorCode {
    Io, // cannot open / read / map the file
    Empty, // zero bytes
    Truncated, // shorter than its own headers claim
    BadIdentifier, // not the file type we expected (wrong magic / identifier)
    Corrupt, // structurally invalid (verifier failed, offsets out of range, ...)
    Unsupported, // valid but uses something we cannot interpret (dtype, old schema, ...)
    LimitExceeded, // claims a size we refuse to allocate
    Refused, // deliberately rejected (e.g. a pickle global outside the allow-list)
    InvalidArgument,
    Cancelled, // the caller asked to stop (a progress callback returned false)
};

const char *errorCodeName(ErrorCode code);

// A typed error with a one-line message: "<file>: <reason>".
struct Error {
    ErrorCode code = ErrorCode::Corrupt;
    std::string file; // path of the offending file, empty when not file related
    std::string reason; // one line, no trailing period

    std::string message() const { return file.empty() ? reason : file + ": " + reason; }
};

inline Error makeError(ErrorCode code, std::string file, std::string reason)
{
    return Error { code, std::move(file), std::move(reason) };
}

// Minimal expected<T, Error> (std::expected is C++23). Never throws on access misuse in
// release builds: callers check ok() first.
template <typename T> class [[nodiscard]] Result
{
public:
    Result(T value)
        : m_v(std::in_place_index<0>, std::move(value))
    { }
    Result(Error error)
        : m_v(std::in_place_index<1>, std::move(error))
    { }

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() & { return std::get<0>(m_v); }
    const T &value() const & { return std::get<0>(m_v); }
    T &&value() && { return std::get<0>(std::move(m_v)); }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const Error &error() const { return std::get<1>(m_v); }

private:
    std::variant<T, Error> m_v;
};

// Result for operations without a value.
struct Ok {
};
using Status = Result<Ok>;

} // namespace etscope
