#pragma once

// What the topic files of etscope._native (app/python/native/*.cpp) share: the Python objects
// that hold a loaded session or ETRecord, the core's errors on their way to Python, text from a
// file as a Python str, the evaluator's options as Python names them, and streaming text to a
// Python file. Internal to the module: the pure-Python layer only sees what the bind* functions
// of bindings.h register.

#include "analysis/comparator.h"
#include "common/chunkedwriter.h"
#include "common/error.h"
#include "etrecord/etrecord.h"
#include "eval/evaluator.h"
#include "events/timescale.h"
#include "session/session.h"

#include <pybind11/pybind11.h>

#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace etscope::python {

// An etscope error on its way to Python: OSError for files we cannot read, ValueError for
// content we refuse (bindErrors registers the translation). The message is the core's one line,
// file first.
struct CoreError : std::runtime_error {
    bool io;
    explicit CoreError(const Error &e)
        : std::runtime_error(e.message())
        , io(e.code == ErrorCode::Io)
    { }
};

template <typename T> T orThrow(Result<T> r)
{
    if (!r)
        throw CoreError(r.error());
    return std::move(r.value());
}

// Text from a file as a Python str: names need not be UTF-8, so bad bytes become \xNN escapes
// instead of an exception.
pybind11::str text(std::string_view s);

// Length of the longest prefix of `s` that does not end inside a UTF-8 sequence, so that text
// streamed in chunks is decoded whole.
std::size_t completeUtf8Prefix(std::string_view s);

inline std::optional<TimeScale> scaleOf(const std::string &s)
{
    return parseTimeScale(s);
}

// The distance a Python caller names ("MSE", "SNR", ...), or ValueError as upstream raises it.
analysis::Metric metricOrThrow(const std::string &name);

// The evaluator's inputs as the Python keyword arguments give them (empty: representative_inputs).
eval::InputChoice inputChoice(const std::string &inputsFile, const std::string &bundledProgram, int testCase);

// The ETRecord as read once; an Inspector links it without reading it again.
struct NativeETRecord {
    std::shared_ptr<const ETRecord> record;
};

// One loaded ETDump (+ debug buffer + ETRecord): immutable, so any Python thread may read it.
struct NativeSession {
    std::shared_ptr<const Session> session;
    // Event names as Python strs, made once: they are interned in the session's store and repeat
    // over every block of a generation. Filled and read with the GIL held.
    mutable std::unordered_map<const char *, pybind11::object> eventNames;

    NativeSession() = default;
    NativeSession(const NativeSession &) = delete;
    NativeSession &operator=(const NativeSession &) = delete;
    // The exit policy: defined in process.cpp, with the module's other process-wide effects.
    ~NativeSession();

    pybind11::object eventName(std::string_view name) const
    {
        auto [it, fresh] = eventNames.try_emplace(name.data());
        if (fresh)
            it->second = text(name);
        return it->second;
    }

    const EventBlock &block(std::size_t i) const
    {
        if (i >= session->blocks.size())
            throw pybind11::index_error("no such event block");
        return session->blocks[i];
    }
};

// The Python classes etscope._native.Session and .ETRecord, registered by bindSession and
// bindETRecord; the other topics add their methods to them.
using SessionClass = pybind11::class_<NativeSession, std::shared_ptr<NativeSession>>;
using ETRecordClass = pybind11::class_<NativeETRecord, std::shared_ptr<NativeETRecord>>;
inline SessionClass sessionClass(pybind11::module_ &m)
{
    return SessionClass(m.attr("Session"));
}
inline ETRecordClass etrecordClass(pybind11::module_ &m)
{
    return ETRecordClass(m.attr("ETRecord"));
}

// Runs `produce` without the GIL, handing each chunk of its text to the Python callable `write`
// (a file's write method) with the GIL; an exception raised by `write` stops it and is re-raised.
template <typename Produce> void streamToPython(const pybind11::function &write, Produce produce)
{
    std::exception_ptr writeError;
    std::string carry; // the start of a UTF-8 sequence cut by the chunk boundary
    auto hand = [&](std::string_view chunk) {
        pybind11::gil_scoped_acquire gil;
        try {
            write(text(chunk));
            return true;
        } catch (...) {
            writeError = std::current_exception();
            return false;
        }
    };
    const TextSink sink = [&](std::string_view chunk) {
        if (!carry.empty()) { // rare: the previous chunk ended inside a character
            std::string joined = std::exchange(carry, {});
            joined.append(chunk);
            const std::size_t n = completeUtf8Prefix(joined);
            carry = joined.substr(n);
            return hand(std::string_view(joined).substr(0, n));
        }
        const std::size_t n = completeUtf8Prefix(chunk);
        carry.assign(chunk.substr(n));
        return hand(chunk.substr(0, n));
    };
    {
        pybind11::gil_scoped_release release;
        produce(sink);
        if (!carry.empty() && !writeError)
            hand(carry);
    }
    if (writeError)
        std::rethrow_exception(writeError);
}

} // namespace etscope::python
