#include "sim/httprequestparser.h"

#include <algorithm>
#include <charconv>

namespace tb::sim {

namespace {

bool isTokenChar(char c)
{
    const auto u = static_cast<unsigned char>(c);
    if (u <= 32 || u >= 127)
        return false;
    return std::string_view("\"(),/:;<=>?@[\\]{}").find(c) == std::string_view::npos;
}

bool isToken(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), isTokenChar);
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

bool equalsNoCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
               return std::tolower(x) == std::tolower(y);
           });
}

/// Whether a comma-separated header value lists `token` (case-insensitive).
bool listsToken(std::string_view value, std::string_view token)
{
    while (!value.empty()) {
        const std::size_t comma = value.find(',');
        if (equalsNoCase(trim(value.substr(0, comma)), token))
            return true;
        if (comma == std::string_view::npos)
            break;
        value.remove_prefix(comma + 1);
    }
    return false;
}

} // namespace

const std::string *HttpRequest::header(std::string_view name) const
{
    for (const auto &[key, value] : headers) {
        if (key == name)
            return &value;
    }
    return nullptr;
}

bool HttpRequest::keepAlive() const
{
    const std::string *connection = header("connection");
    if (minorVersion == 0)
        return connection && listsToken(*connection, "keep-alive");
    return !(connection && listsToken(*connection, "close"));
}

std::string HttpRequest::queryValue(std::string_view name) const
{
    std::string_view rest = query;
    while (!rest.empty()) {
        const std::size_t amp = rest.find('&');
        const std::string_view pair = rest.substr(0, amp);
        const std::size_t eq = pair.find('=');
        if (pair.substr(0, eq) == name)
            return std::string(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
        if (amp == std::string_view::npos)
            break;
        rest.remove_prefix(amp + 1);
    }
    return {};
}

HttpRequestParser::HttpRequestParser(std::size_t maxBodyBytes)
    : m_maxBodyBytes(maxBodyBytes)
{}

void HttpRequestParser::reset()
{
    m_state = State::Head;
    m_request = HttpRequest();
    m_remaining = 0;
    m_expectContinue = false;
    m_errorStatus = 0;
    m_errorText.clear();
}

HttpRequestParser::Result HttpRequestParser::fail(int status, std::string text)
{
    m_errorStatus = status;
    m_errorText = std::move(text);
    return Result::Error;
}

bool HttpRequestParser::takeLine(std::string &buffer, std::size_t &pos, std::string_view &line)
{
    const std::size_t lf = buffer.find('\n', pos);
    if (lf == std::string::npos)
        return false;
    std::size_t end = lf;
    if (end > pos && buffer[end - 1] == '\r')
        --end;
    line = std::string_view(buffer).substr(pos, end - pos);
    pos = lf + 1;
    return true;
}

std::optional<HttpRequestParser::Result> HttpRequestParser::awaitLine(std::string &buffer, std::size_t &pos,
                                                                      std::string_view &line, std::size_t most,
                                                                      int status, const char *text)
{
    if (takeLine(buffer, pos, line))
        return std::nullopt;
    if (buffer.size() - pos > most)
        return fail(status, text);
    return Result::NeedMore;
}

HttpRequestParser::Result HttpRequestParser::feed(std::string &buffer)
{
    if (m_errorStatus != 0)
        return Result::Error;
    std::size_t pos = 0;
    const auto done = [&](Result r) {
        buffer.erase(0, pos);
        return r;
    };
    while (true) {
        switch (m_state) {
        case State::Head: {
            // Empty lines before a request line are allowed (RFC 9112 §2.2).
            while (pos < buffer.size() && (buffer[pos] == '\r' || buffer[pos] == '\n'))
                ++pos;
            std::size_t end = buffer.find("\r\n\r\n", pos);
            std::size_t terminator = 4;
            if (const std::size_t bare = buffer.find("\n\n", pos); bare < end) {
                end = bare;
                terminator = 2;
            }
            if (end == std::string::npos) {
                if (buffer.size() - pos > kMaxHeaderBytes)
                    return done(fail(431, "request headers are larger than 64 KiB"));
                return done(Result::NeedMore);
            }
            if (end - pos > kMaxHeaderBytes)
                return done(fail(431, "request headers are larger than 64 KiB"));
            if (parseHead(std::string_view(buffer).substr(pos, end - pos)) == Result::Error)
                return done(Result::Error);
            pos = end + terminator;
            if (startBody() == Result::Error)
                return done(Result::Error);
            break;
        }
        case State::Body:
            if (!takeBody(buffer, pos))
                return done(Result::NeedMore);
            m_state = State::Done;
            break;
        case State::ChunkSize: {
            std::string_view line;
            if (const auto wait =
                    awaitLine(buffer, pos, line, 1024, 400, "malformed chunked body: chunk size line too long"))
                return done(*wait);
            line = trim(line.substr(0, line.find(';')));
            std::uint64_t size = 0;
            const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), size, 16);
            if (line.empty() || ec != std::errc() || end != line.data() + line.size())
                return done(fail(400, "malformed chunked body: bad chunk size"));
            if (size > m_maxBodyBytes || m_request.body.size() + size > m_maxBodyBytes)
                return done(fail(413, "request body is larger than " + std::to_string(m_maxBodyBytes) + " bytes"));
            m_remaining = size;
            m_state = size == 0 ? State::Trailers : State::ChunkData;
            break;
        }
        case State::ChunkData:
            if (!takeBody(buffer, pos))
                return done(Result::NeedMore);
            m_state = State::ChunkDataEnd;
            break;
        case State::ChunkDataEnd: {
            // The CRLF after chunk data: anything else means the size lied.
            std::string_view line;
            if (const auto wait =
                    awaitLine(buffer, pos, line, 1, 400, "malformed chunked body: chunk data longer than its size"))
                return done(*wait);
            if (!line.empty())
                return done(fail(400, "malformed chunked body: chunk data longer than its size"));
            m_state = State::ChunkSize;
            break;
        }
        case State::Trailers: {
            std::string_view line;
            if (const auto wait =
                    awaitLine(buffer, pos, line, kMaxHeaderBytes, 431, "request trailers are larger than 64 KiB"))
                return done(*wait);
            if (line.empty())
                m_state = State::Done;
            break;
        }
        case State::Done:
            return done(Result::Complete);
        }
    }
}

bool HttpRequestParser::takeBody(const std::string &buffer, std::size_t &pos)
{
    const std::size_t take = std::min<std::uint64_t>(m_remaining, buffer.size() - pos);
    m_request.body.append(buffer, pos, take);
    pos += take;
    m_remaining -= take;
    return m_remaining == 0;
}

HttpRequestParser::Result HttpRequestParser::parseHead(std::string_view head)
{
    const std::size_t lineEnd = head.find('\n');
    std::string_view requestLine = head.substr(0, lineEnd);
    if (!requestLine.empty() && requestLine.back() == '\r')
        requestLine.remove_suffix(1);

    const std::size_t sp1 = requestLine.find(' ');
    const std::size_t sp2 = requestLine.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 == sp1)
        return fail(400, "malformed request line");
    const std::string_view method = requestLine.substr(0, sp1);
    std::string_view target = requestLine.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = requestLine.substr(sp2 + 1);
    if (!isToken(method) || target.empty() || target.find(' ') != std::string_view::npos)
        return fail(400, "malformed request line");
    if (version.size() != 8 || !version.starts_with("HTTP/"))
        return fail(400, "malformed HTTP version");
    if (version == "HTTP/1.1")
        m_request.minorVersion = 1;
    else if (version == "HTTP/1.0")
        m_request.minorVersion = 0;
    else
        return fail(505, "HTTP version not supported (use HTTP/1.1)");

    // absolute-form ("http://host/path") as proxies send it
    if (!target.starts_with('/')) {
        const std::size_t scheme = target.find("://");
        if (scheme == std::string_view::npos)
            return fail(400, "request target must be a path");
        const std::size_t slash = target.find('/', scheme + 3);
        target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
    const std::size_t question = target.find('?');
    m_request.method = std::string(method);
    m_request.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos)
        m_request.query = std::string(target.substr(question + 1));

    std::string_view rest = lineEnd == std::string_view::npos ? std::string_view() : head.substr(lineEnd + 1);
    while (!rest.empty()) {
        const std::size_t lf = rest.find('\n');
        std::string_view line = rest.substr(0, lf);
        rest = lf == std::string_view::npos ? std::string_view() : rest.substr(lf + 1);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty())
            continue;
        if (line.front() == ' ' || line.front() == '\t')
            return fail(400, "obsolete header line folding is not accepted");
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || !isToken(line.substr(0, colon)))
            return fail(400, "malformed header line");
        m_request.headers.emplace_back(lower(line.substr(0, colon)), std::string(trim(line.substr(colon + 1))));
    }
    return Result::NeedMore;
}

HttpRequestParser::Result HttpRequestParser::startBody()
{
    const std::string *transferEncoding = nullptr;
    const std::string *contentLength = nullptr;
    for (const auto &[name, value] : m_request.headers) {
        if (name == "transfer-encoding") {
            if (transferEncoding)
                return fail(400, "more than one Transfer-Encoding header");
            transferEncoding = &value;
        } else if (name == "content-length") {
            if (contentLength && *contentLength != value)
                return fail(400, "conflicting Content-Length headers");
            contentLength = &value;
        } else if (name == "expect" && equalsNoCase(value, "100-continue")) {
            m_expectContinue = true;
        }
    }
    if (transferEncoding) {
        // A message with both is a request-smuggling vector (RFC 9112 §6.3): refuse it.
        if (contentLength)
            return fail(400, "both Transfer-Encoding and Content-Length");
        if (!equalsNoCase(trim(*transferEncoding), "chunked"))
            return fail(501, "unsupported Transfer-Encoding (only chunked)");
        m_state = State::ChunkSize;
        return Result::NeedMore;
    }
    if (contentLength) {
        std::uint64_t length = 0;
        const auto [end, ec] =
            std::from_chars(contentLength->data(), contentLength->data() + contentLength->size(), length);
        if (contentLength->empty() || ec == std::errc::invalid_argument ||
            end != contentLength->data() + contentLength->size())
            return fail(400, "malformed Content-Length");
        if (ec == std::errc::result_out_of_range || length > m_maxBodyBytes)
            return fail(413, "request body is larger than " + std::to_string(m_maxBodyBytes) + " bytes");
        m_remaining = length;
        m_state = length > 0 ? State::Body : State::Done;
        return Result::NeedMore;
    }
    m_state = State::Done;
    return Result::NeedMore;
}

} // namespace tb::sim
