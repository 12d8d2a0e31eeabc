#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <string_view>

namespace etscope {

// Receives output chunk by chunk; returns false when writing failed (the producer stops).
using TextSink = std::function<bool(std::string_view chunk)>;

// Text formatted into one buffer that is handed to a TextSink whenever it passes `chunk`
// bytes, so that a large table or trace is never held whole in memory.
class ChunkedWriter
{
public:
    ChunkedWriter(const TextSink &sink, std::size_t chunk = std::size_t(1) << 20)
        : m_sink(sink)
        , m_chunk(std::max<std::size_t>(chunk, 4096))
    {
        m_buf.reserve(m_chunk + m_chunk / 4);
    }

    fmt::memory_buffer &buf() { return m_buf; }
    // Call between records: flushes once the buffer is full. False once the sink failed.
    bool maybeFlush() { return m_buf.size() < m_chunk || flush(); }
    bool flush()
    {
        if (m_buf.size() == 0)
            return m_ok;
        m_bytes += m_buf.size();
        m_ok = m_ok && m_sink(std::string_view(m_buf.data(), m_buf.size()));
        m_buf.clear();
        return m_ok;
    }
    std::size_t bytes() const { return m_bytes + m_buf.size(); }

private:
    const TextSink &m_sink;
    std::size_t m_chunk;
    fmt::memory_buffer m_buf;
    std::size_t m_bytes = 0;
    bool m_ok = true;
};

} // namespace etscope
