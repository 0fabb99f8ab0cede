#include "net/httpresponseparser.h"

#include "config/runconfig.h"
#include "net/jsoncursor.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace tb {

namespace {

constexpr std::size_t kMaxLine = 64 * 1024;

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string trim(const std::string &s)
{
    const std::size_t b = s.find_first_not_of(" \t");
    const std::size_t e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

} // namespace

void HttpResponseParser::reset()
{
    *this = HttpResponseParser();
}

bool HttpResponseParser::takeLine(const char *data, std::size_t size, std::size_t &pos, std::string_view &line)
{
    const char *begin = data + pos;
    const char *nl = static_cast<const char *>(std::memchr(begin, '\n', size - pos));
    if (!nl) {
        m_line.append(begin, size - pos);
        pos = size;
        if (m_line.size() > kMaxLine)
            m_error = "header line too long";
        return false;
    }
    if (m_line.empty()) {
        line = std::string_view(begin, std::size_t(nl - begin));
    } else {
        m_line.append(begin, std::size_t(nl - begin));
        m_taken.swap(m_line); // both keep their capacity
        m_line.clear();
        line = m_taken;
    }
    if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
    pos = std::size_t(nl - data) + 1;
    return true;
}

bool HttpResponseParser::statusLine(const std::string &line)
{
    // "HTTP/1.1 200 OK"
    if (line.rfind("HTTP/", 0) != 0 || line.size() < 12 || line[8] != ' ') {
        m_error = "not an HTTP response: '" + line.substr(0, 40) + "'";
        return false;
    }
    // from_chars, not atoi: a status of twenty digits is refused, not undefined behaviour.
    const std::size_t digits = line.find_first_not_of(' ', 9);
    int status = 0;
    if (digits != std::string::npos &&
        std::from_chars(line.data() + digits, line.data() + line.size(), status).ec != std::errc())
        status = 0;
    if (!validStatus(status)) {
        m_error = badStatusLine(line);
        return false;
    }
    m_head.status = status;
    m_head.keepAlive = line.compare(5, 3, "1.0") != 0;
    return true;
}

std::string HttpResponseParser::badStatusLine(std::string_view line)
{
    return "bad HTTP status line: '" + std::string(line.substr(0, 40)) + "'";
}

bool HttpResponseParser::statusStart(const char *data, std::size_t size)
{
    // A peer that is not an HTTP/1.1 server may never send a line break: an HTTP/2-only server
    // sends its binary SETTINGS frame and waits, a TLS server sends an alert. Judge the first
    // bytes as they come instead of waiting for a line that never ends.
    char probe[kStatusProbe];
    const std::size_t have = std::min(m_line.size(), kStatusProbe);
    std::memcpy(probe, m_line.data(), have);
    const std::size_t n = have + std::min(size, kStatusProbe - have);
    std::memcpy(probe + have, data, n - have);
    if (n == 0 || probe[0] == '\r' || probe[0] == '\n')
        return true; // stray CRLF before a response: takeLine skips it
    if (std::memcmp(probe, "HTTP/", std::min<std::size_t>(n, 5)) == 0)
        return true;
    const auto byte = [&probe](std::size_t i) { return static_cast<unsigned char>(probe[i]); };
    // A line that ends within the frame header is a (broken) line, however the bytes arrived.
    const auto *lineEnd = static_cast<const char *>(std::memchr(probe, '\n', n));
    const bool frameSized = n >= 4 && (!lineEnd || lineEnd - probe >= 4);
    if (frameSized && byte(0) == 0 && (byte(3) == 0x04 || byte(3) == 0x07)) // SETTINGS or GOAWAY frame
        m_error = "the server answered in HTTP/2, not HTTP/1.1 (it may speak only HTTP/2)";
    else if (n >= 2 && (byte(0) == 0x15 || byte(0) == 0x16) && byte(1) == 0x03)
        m_error = "the server answered in TLS (use an https:// URL)";
    else if (n == kStatusProbe || lineEnd)
        m_error = "not an HTTP response: '" + std::string(probe, std::min(n, std::size_t(40))) + "'";
    else
        return true; // undecided yet: the line is not complete
    if (const std::size_t nl = m_error.find('\n'); nl != std::string::npos)
        m_error.resize(nl); // the snippet ends at its line
    return false;
}

bool HttpResponseParser::chunkSize(std::string_view line)
{
    std::int64_t n = 0;
    std::size_t i = 0;
    for (; i < line.size(); ++i) {
        const int digit = hexDigit(line[i]);
        if (digit < 0)
            break;
        // Checked before it is added: any length of digits stays a bounded number.
        if (n > (kMaxBodyBytes - digit) / 16) {
            m_error = "chunk size '" + std::string(line.substr(0, 40)) + "' exceeds the " +
                      std::to_string(kMaxBodyBytes / (1024 * 1024)) + " MiB limit";
            return false;
        }
        n = n * 16 + digit;
    }
    if (i == 0 || (i < line.size() && line[i] != ';' && line[i] != ' ' && line[i] != '\t')) {
        m_error = "malformed chunk size '" + std::string(line.substr(0, 40)) + "'";
        return false;
    }
    m_remaining = n;
    return true;
}

void HttpResponseParser::readHeadField(ResponseHead &head, const std::string &lowerName, const std::string &value)
{
    if (lowerName == "content-encoding") {
        const std::string encoding = lower(value);
        head.contentEncoding = encoding == "identity" ? QByteArray() : QByteArray::fromStdString(encoding);
    } else if (lowerName == "content-type") {
        std::string type = lower(value);
        type = trim(type.substr(0, type.find(';')));
        head.contentType = QByteArray::fromStdString(type);
    } else if (lowerName == "connection") {
        const std::string v = lower(value);
        if (v.find("close") != std::string::npos)
            head.keepAlive = false;
        else if (v.find("keep-alive") != std::string::npos)
            head.keepAlive = true;
    } else if (lowerName == "location") {
        head.location = QByteArray::fromStdString(value);
    } else if (lowerName == "retry-after") {
        char *end = nullptr;
        const double seconds = std::strtod(value.c_str(), &end);
        // The HTTP-date form is not used by LLM APIs. A wait beyond the longest duration a run
        // knows (inf, 1e300) is a broken server's: absent, like a value that is not a number.
        if (end != value.c_str() && seconds >= 0 && seconds <= double(limits::kMaxDurationMs) / 1000)
            head.retryAfterS = seconds;
    }
}

bool HttpResponseParser::headerLine(const std::string &line)
{
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos || colon == 0) {
        m_error = "malformed header line '" + line.substr(0, 40) + "'";
        return false;
    }
    m_headBytes += line.size() + 32;
    if (m_headBytes > kMaxHeadBytes || ++m_headerFields > kMaxHeaderFields) {
        m_error = "response head over " + std::to_string(kMaxHeadBytes / 1024) + " KiB or " +
                  std::to_string(kMaxHeaderFields) + " header fields";
        return false;
    }
    const std::string name = lower(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (name == "content-length") {
        char *end = nullptr;
        const long long n = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || n < 0) {
            m_error = "bad Content-Length '" + value + "'";
            return false;
        }
        m_contentLength = n;
    } else if (name == "transfer-encoding") {
        m_chunked = lower(value).find("chunked") != std::string::npos;
    } else {
        readHeadField(m_head, name, value);
    }
    return true;
}

HttpResponseParser::State HttpResponseParser::bodyState()
{
    if (m_head.status == 204 || m_head.status == 304)
        return State::Done;
    if (m_chunked)
        return State::ChunkSize;
    if (m_contentLength >= 0) {
        m_remaining = m_contentLength;
        return m_contentLength == 0 ? State::Done : State::BodyLength;
    }
    m_head.keepAlive = false; // the end of the connection ends the body
    return State::BodyUntilClose;
}

} // namespace tb
