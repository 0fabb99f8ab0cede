#pragma once

#include <QByteArray>

#include <cstdint>
#include <string>
#include <string_view>

namespace tb {

/// The parts of a response head the engine acts on.
struct ResponseHead {
    int status = 0;
    QByteArray contentType;  ///< lower case, without parameters
    double retryAfterS = -1; ///< Retry-After in seconds (delta form, at most a year), -1 when absent or beyond
    bool keepAlive = true;
    QByteArray contentEncoding; ///< lower case; empty for none or identity (the engine asks for identity)
    bool http2 = false;         ///< carried over HTTP/2 (qnam only)
    int streams = 1;            ///< requests in flight on the connection as this response began
    QByteArray location;        ///< the Location header (redirects)
};

/// Incremental HTTP/1.1 response parser: status line, headers, then a body delimited by
/// Content-Length, chunked transfer coding, or the end of the connection. Skips 1xx responses.
/// Bodies are handed out in place, without copying.
class HttpResponseParser
{
public:
    enum class Result { NeedMore, Complete, Error };

    /// The largest chunk a response may declare, and the largest body the engine buffers: a
    /// larger size is a hostile or broken server, never an allocation.
    static constexpr std::int64_t kMaxBodyBytes = 32 * 1024 * 1024;
    /// A response head's header fields, counted as RFC 9113 sizes a header list (name, value and
    /// 32 bytes each), and how many: an endless head is a hostile server, never an allocation.
    static constexpr std::size_t kMaxHeadBytes = 256 * 1024;
    static constexpr int kMaxHeaderFields = 256;

    /// How a transport names a response that breaks HTTP's rules, before what broke them.
    static constexpr const char *kMalformed = "malformed HTTP response: ";
    /// A status outside 100–999 is a broken status line (HTTP's status is three digits).
    static bool validStatus(int status) { return status >= 100 && status <= 999; }
    /// The error for a status line it cannot read (`line`: as received, or as another transport
    /// tells it): also for transports that parse HTTP themselves (qnam).
    static std::string badStatusLine(std::string_view line);

    /// Fills in what `head` says of one header field (name in lower case; value trimmed): also
    /// for transports that parse HTTP themselves (qnam).
    static void readHeadField(ResponseHead &head, const std::string &lowerName, const std::string &value);

    /// For a response to HEAD-like requests there is no body; not needed by the engine.
    void reset();

    /// Feeds bytes; onHead(const ResponseHead&) once, onBody(const char*, size_t) per body piece.
    /// Returns Complete at the end of the message (bytes after it are not consumed: *consumed
    /// tells how many were), Error with errorText() on malformed input.
    template<typename OnHead, typename OnBody>
    Result feed(const char *data, std::size_t size, std::size_t *consumed, OnHead &&onHead, OnBody &&onBody);

    /// The connection closed: completes a close-delimited body, otherwise the message is truncated.
    bool closeCompletes() const { return m_state == State::BodyUntilClose; }
    bool headReceived() const { return m_headDone; }
    const ResponseHead &head() const { return m_head; }
    const std::string &errorText() const { return m_error; }

private:
    enum class State {
        StatusLine,
        Headers,
        BodyLength,
        BodyUntilClose,
        ChunkSize,
        ChunkData,
        ChunkDataEnd,
        Trailers,
        Done
    };

    /// A whole line, without its line break: a view of `data` when it is all there (the chunk
    /// framing of every read), else of the bytes gathered across reads; valid until the next call.
    bool takeLine(const char *data, std::size_t size, std::size_t &pos, std::string_view &line);
    bool headerLine(const std::string &line);
    bool statusLine(const std::string &line);
    bool statusStart(const char *data, std::size_t size);
    bool chunkSize(std::string_view line);
    State bodyState();

    /// Bytes of a status line looked at before it is complete (see statusStart).
    static constexpr std::size_t kStatusProbe = 40;

    State m_state = State::StatusLine;
    ResponseHead m_head;
    bool m_headDone = false;
    bool m_chunked = false;
    std::int64_t m_contentLength = -1;
    std::int64_t m_remaining = 0;
    std::size_t m_headBytes = 0;
    int m_headerFields = 0;
    std::string m_line;  ///< a line's bytes so far, when it spans reads
    std::string m_taken; ///< the last line taken from m_line (what takeLine's view shows)
    std::string m_error;
};

template<typename OnHead, typename OnBody>
HttpResponseParser::Result HttpResponseParser::feed(const char *data, std::size_t size, std::size_t *consumed,
                                                    OnHead &&onHead, OnBody &&onBody)
{
    std::size_t pos = 0;
    const auto finish = [&](Result r) {
        if (consumed)
            *consumed = pos;
        return r;
    };
    std::string_view line;
    while (pos < size || m_state == State::Done) {
        if (!m_error.empty())
            return finish(Result::Error);
        switch (m_state) {
        case State::StatusLine:
            if (m_line.size() < kStatusProbe && !statusStart(data + pos, size - pos))
                return finish(Result::Error);
            if (!takeLine(data, size, pos, line))
                return finish(m_error.empty() ? Result::NeedMore : Result::Error);
            if (line.empty())
                break; // tolerate stray CRLF between messages
            if (!statusLine(std::string(line)))
                return finish(Result::Error);
            m_state = State::Headers;
            break;
        case State::Headers:
            if (!takeLine(data, size, pos, line))
                return finish(m_error.empty() ? Result::NeedMore : Result::Error);
            if (!line.empty()) {
                if (!headerLine(std::string(line)))
                    return finish(Result::Error);
                break;
            }
            if (m_head.status >= 100 && m_head.status < 200) { // interim response: the real one follows
                m_head = {};
                m_chunked = false;
                m_contentLength = -1;
                m_state = State::StatusLine;
                break;
            }
            m_headDone = true;
            onHead(m_head);
            m_state = bodyState();
            break;
        case State::BodyLength:
        case State::ChunkData: {
            const std::size_t take = std::size_t(std::min<std::int64_t>(m_remaining, std::int64_t(size - pos)));
            if (take > 0)
                onBody(data + pos, take);
            pos += take;
            m_remaining -= std::int64_t(take);
            if (m_remaining > 0)
                return finish(Result::NeedMore);
            m_state = m_state == State::BodyLength ? State::Done : State::ChunkDataEnd;
            break;
        }
        case State::BodyUntilClose:
            onBody(data + pos, size - pos);
            pos = size;
            return finish(Result::NeedMore);
        case State::ChunkSize: {
            if (!takeLine(data, size, pos, line))
                return finish(m_error.empty() ? Result::NeedMore : Result::Error);
            if (!chunkSize(line))
                return finish(Result::Error);
            m_state = m_remaining == 0 ? State::Trailers : State::ChunkData;
            break;
        }
        case State::ChunkDataEnd:
            if (!takeLine(data, size, pos, line))
                return finish(m_error.empty() ? Result::NeedMore : Result::Error);
            if (!line.empty()) {
                m_error = "chunk data longer than its declared size";
                return finish(Result::Error);
            }
            m_state = State::ChunkSize;
            break;
        case State::Trailers:
            if (!takeLine(data, size, pos, line))
                return finish(m_error.empty() ? Result::NeedMore : Result::Error);
            if (line.empty())
                m_state = State::Done;
            break;
        case State::Done:
            return finish(Result::Complete);
        }
    }
    return finish(Result::NeedMore);
}

} // namespace tb
