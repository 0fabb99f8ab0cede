#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tb::sim {

struct HttpRequest {
    std::string method;
    std::string path;  ///< origin-form path, without the query
    std::string query; ///< after '?', undecoded
    int minorVersion = 1;
    std::vector<std::pair<std::string, std::string>> headers; ///< lower-case names, trimmed values
    std::string body;

    /// The first header of that (lower-case) name, or nullptr.
    const std::string *header(std::string_view name) const;
    /// HTTP/1.1 keeps the connection unless "Connection: close"; HTTP/1.0 only with "keep-alive".
    bool keepAlive() const;
    /// A query parameter's raw value, or nullptr when absent.
    std::string queryValue(std::string_view name) const;
};

/// Incremental HTTP/1.1 request parser for the simulator's server: request line, headers, and a
/// body delimited by Content-Length or chunked transfer coding. Everything malformed, too large or
/// unsupported is an error with the HTTP status to answer (400, 413, 431, 501, 505); the server
/// then closes the connection, since the next message's start is unknown.
class HttpRequestParser
{
public:
    enum class Result { NeedMore, Complete, Error };

    static constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

    explicit HttpRequestParser(std::size_t maxBodyBytes);

    /// Parses from the front of `buffer`, erasing what it consumed. Complete: request() holds the
    /// message and the bytes after it stay in `buffer` (pipelining); call reset() before the next.
    Result feed(std::string &buffer);
    void reset();

    /// The head is parsed and the body is still to come.
    bool awaitingBody() const { return m_state != State::Head && m_state != State::Done; }
    bool expectsContinue() const { return m_expectContinue; }
    HttpRequest &request() { return m_request; }
    int errorStatus() const { return m_errorStatus; }
    const std::string &errorText() const { return m_errorText; }

private:
    enum class State { Head, Body, ChunkSize, ChunkData, ChunkDataEnd, Trailers, Done };

    Result fail(int status, std::string text);
    Result parseHead(std::string_view head);
    Result startBody();
    /// Moves the body bytes still expected (m_remaining) from buffer[pos...]; true when all are in.
    bool takeBody(const std::string &buffer, std::size_t &pos);
    /// Takes one line (without its CRLF/LF) from the front; false when none is complete yet.
    static bool takeLine(std::string &buffer, std::size_t &pos, std::string_view &line);
    /// takeLine, or what to return while no line is complete: the failure (`status`, `text`) once
    /// more than `most` bytes wait unended, else NeedMore; nullopt when `line` was taken.
    std::optional<Result> awaitLine(std::string &buffer, std::size_t &pos, std::string_view &line, std::size_t most,
                                    int status, const char *text);

    std::size_t m_maxBodyBytes;
    State m_state = State::Head;
    HttpRequest m_request;
    std::uint64_t m_remaining = 0;
    bool m_expectContinue = false;
    int m_errorStatus = 0;
    std::string m_errorText;
};

} // namespace tb::sim
