#pragma once

#include <cstring>
#include <string>
#include <string_view>

namespace tb {

/// Incremental parser for text/event-stream (the WHATWG Server-Sent Events format) as it arrives in
/// arbitrary pieces off a socket: lines end in CR, LF or CRLF (a CRLF may be split across reads),
/// comments (": …") are skipped, several `data:` lines join with '\n', an event is dispatched at the
/// blank line that ends it, and an unterminated event at end of stream is dropped (as browsers do).
///
/// Hot path: one call per socket read. Complete lines are parsed in place, and an event whose one
/// data line and blank line arrive in the same read is handed out without a copy; only a trailing
/// partial line, and data spanning lines or reads, are copied.
///
/// Bounded: a line, or an event's data, longer than kMaxBytes (a stream that never sends a line
/// break, one endless event) stops the parser with error() set; nothing more is read.
class SseParser
{
public:
    /// Of the same order as the largest JSON body the engine buffers; real events are a few
    /// hundred bytes.
    static constexpr std::size_t kMaxBytes = 1024 * 1024;

    /// Feeds bytes; calls onEvent(std::string_view event, std::string_view data) for every complete
    /// event (the views are valid only during the call). `event` is empty when the stream gave none
    /// (the spec's default type "message").
    template<typename OnEvent> void feed(const char *data, std::size_t size, OnEvent &&onEvent);

    void reset();
    /// Why parsing stopped ("SSE line exceeds 1048576 bytes"); nullptr while all is well.
    const char *error() const { return m_error; }

private:
    template<typename OnEvent> void line(std::string_view text, OnEvent &&onEvent);
    /// Copies the event's data into m_data when it is still a view of bytes about to go.
    void ownData();

    std::string m_partial; ///< an unterminated line carried to the next read
    std::string m_data;    ///< data of the event being assembled, when it had to be copied
    /// The event's data so far: in the bytes being fed (one line, not yet copied) or in m_data.
    std::string_view m_dataView;
    bool m_dataOwned = false;
    std::string m_event; ///< its event type
    bool m_hasData = false;
    bool m_skipLf = false;  ///< the previous read ended in CR: a leading LF belongs to it
    bool m_started = false; ///< past a possible UTF-8 BOM
    const char *m_error = nullptr;
};
static_assert(SseParser::kMaxBytes == 1048576, "the error texts name the limit");

template<typename OnEvent> void SseParser::feed(const char *data, std::size_t size, OnEvent &&onEvent)
{
    std::size_t pos = 0;
    if (m_error)
        return;
    if (!m_started && size > 0) {
        m_partial.append(data, size);
        if (m_partial.size() < 3 && std::string_view("\xEF\xBB\xBF").starts_with(m_partial))
            return; // wait: might still be a BOM
        m_started = true;
        std::string buffered;
        buffered.swap(m_partial);
        if (std::string_view(buffered).starts_with("\xEF\xBB\xBF"))
            buffered.erase(0, 3);
        feed(buffered.data(), buffered.size(), onEvent);
        return;
    }
    if (m_skipLf && pos < size && data[pos] == '\n')
        ++pos;
    m_skipLf = false;
    while (pos < size && !m_error) {
        // memchr scans many bytes a step; a CR, if any, ends the line before the LF.
        const char *begin = data + pos;
        const auto *lf = static_cast<const char *>(std::memchr(begin, '\n', size - pos));
        const std::size_t upToLf = lf ? std::size_t(lf - begin) : size - pos;
        const auto *cr = static_cast<const char *>(std::memchr(begin, '\r', upToLf));
        std::size_t end = pos + (cr ? std::size_t(cr - begin) : upToLf);
        if (m_partial.size() + (end - pos) > kMaxBytes) {
            m_error = "SSE line exceeds 1048576 bytes";
            return;
        }
        if (end == size) {
            m_partial.append(data + pos, size - pos);
            break;
        }
        if (m_partial.empty()) {
            line(std::string_view(data + pos, end - pos), onEvent);
        } else {
            m_partial.append(data + pos, end - pos);
            line(m_partial, onEvent);
            ownData(); // before m_partial is reused
            m_partial.clear();
        }
        if (data[end] == '\r') {
            if (end + 1 < size) {
                if (data[end + 1] == '\n')
                    ++end;
            } else {
                m_skipLf = true;
            }
        }
        pos = end + 1;
    }
    ownData(); // the caller's bytes are gone after this call
}

template<typename OnEvent> void SseParser::line(std::string_view text, OnEvent &&onEvent)
{
    if (text.empty()) {
        if (m_hasData) {
            onEvent(std::string_view(m_event), m_dataView);
            m_data.clear();
            m_dataView = {};
            m_dataOwned = false;
            m_hasData = false;
        }
        m_event.clear();
        return;
    }
    if (text.front() == ':')
        return; // comment (keep-alive pings)
    const std::size_t colon = text.find(':');
    const std::string_view field = text.substr(0, colon);
    std::string_view value;
    if (colon != std::string_view::npos) {
        value = text.substr(colon + 1);
        if (!value.empty() && value.front() == ' ')
            value.remove_prefix(1);
    }
    if (field == "data") {
        if ((m_hasData ? m_dataView.size() : 0) + value.size() + 1 > kMaxBytes) {
            m_error = "SSE event exceeds 1048576 bytes";
            return;
        }
        if (m_hasData) {
            ownData();
            m_data.push_back('\n');
            m_data.append(value);
            m_dataView = m_data;
        } else {
            m_dataView = value; // the usual one-line event: read in place, not copied
        }
        m_hasData = true;
    } else if (field == "event") {
        m_event.assign(value);
    }
    // "id" and "retry" are reconnection hints; a benchmark never reconnects a stream.
}

inline void SseParser::ownData()
{
    if (m_hasData && !m_dataOwned) {
        m_data.assign(m_dataView);
        m_dataView = m_data;
        m_dataOwned = true;
    }
}

inline void SseParser::reset()
{
    m_partial.clear();
    m_data.clear();
    m_dataView = {};
    m_dataOwned = false;
    m_event.clear();
    m_hasData = false;
    m_skipLf = false;
    m_started = false;
    m_error = nullptr;
}

} // namespace tb
