#include "net/jsoncursor.h"

#include <bit>
#include <cstring>
#include <limits>

namespace tb {

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

namespace {

/// Reads the 4 hex digits after "\u" at raw[i]; -1 when malformed.
long hex4(std::string_view raw, std::size_t i)
{
    if (i + 4 > raw.size())
        return -1;
    long v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        const int h = hexDigit(raw[i + k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/// Walks a raw string's escapes, calling onCodePoint(cp) for each \u escape (pairs joined, bad
/// ones as U+FFFD), onByte(c) for every other unescaped byte.
template<typename OnByte, typename OnCodePoint>
void unescape(std::string_view raw, OnByte &&onByte, OnCodePoint &&onCodePoint)
{
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c != '\\' || i + 1 >= raw.size()) {
            onByte(c);
            continue;
        }
        const char e = raw[++i];
        switch (e) {
        case 'n':
            onByte('\n');
            break;
        case 't':
            onByte('\t');
            break;
        case 'r':
            onByte('\r');
            break;
        case 'b':
            onByte('\b');
            break;
        case 'f':
            onByte('\f');
            break;
        case 'u': {
            long cp = hex4(raw, i + 1);
            if (cp < 0) {
                onCodePoint(0xFFFD);
                break;
            }
            i += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                const long low =
                    (i + 2 < raw.size() && raw[i + 1] == '\\' && raw[i + 2] == 'u') ? hex4(raw, i + 3) : -1;
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    i += 6;
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            onCodePoint(char32_t(cp));
            break;
        }
        default:
            onByte(e);
            break; // \" \\ \/
        }
    }
}

std::size_t utf8Size(char32_t cp)
{
    return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/// The bytes among the 8 at p that a string scan must stop at ('"', '\\', a control character),
/// each marked by its high bit — eight bytes a step. (x − 0x0101…) & ~x & 0x8080… marks the zero
/// bytes of x, and (x − 0x2020…) & ~x & 0x8080… the bytes below 0x20; a borrow can only mark a
/// byte after a marked one, so the first mark is always a real stop.
std::uint64_t stopBytes(const char *p)
{
    constexpr std::uint64_t ones = 0x0101010101010101;
    constexpr std::uint64_t highs = 0x8080808080808080;
    std::uint64_t w;
    std::memcpy(&w, p, sizeof(w));
    const std::uint64_t quote = w ^ (ones * '"');
    const std::uint64_t backslash = w ^ (ones * '\\');
    return (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) | ((w - ones * 0x20) & ~w)) & highs;
}

/// Bytes from p to the first one stopBytes marked.
int firstStop(std::uint64_t stops)
{
    if constexpr (std::endian::native == std::endian::little)
        return std::countr_zero(stops) / 8;
    else
        return std::countl_zero(stops) / 8;
}

} // namespace

bool JsonCursor::string(std::string_view *raw)
{
    if (!expect('"'))
        return false;
    // Scanned through a local pointer: a byte read through m_p might alias m_p itself, and the
    // compiler would reload it on every byte (a third of the client's work per event).
    const char *p = m_p;
    const char *const end = m_end;
    const char *const begin = p;
    for (;;) {
        if (end - p >= 8) {
            const std::uint64_t stops = stopBytes(p);
            if (stops == 0) {
                p += 8;
                continue;
            }
            p += firstStop(stops);
        } else if (p >= end) {
            break;
        }
        const char c = *p;
        if (c == '"') {
            if (raw)
                *raw = std::string_view(begin, std::size_t(p - begin));
            m_p = p + 1;
            return true;
        }
        if (static_cast<unsigned char>(c) < 0x20)
            return fail(); // raw control characters are not allowed in JSON strings
        if (c == '\\') {
            if (end - p < 2)
                return fail();
            const char e = p[1];
            if (e == 'u') {
                if (end - p < 6 || hex4(std::string_view(p, 6), 2) < 0)
                    return fail();
                p += 6;
                continue;
            }
            if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't')
                return fail();
            p += 2;
            continue;
        }
        ++p;
    }
    return fail();
}

bool JsonCursor::number()
{
    whitespace();
    const auto digits = [this] {
        const char *start = m_p;
        while (m_p < m_end && *m_p >= '0' && *m_p <= '9')
            ++m_p;
        return m_p > start;
    };
    if (m_p < m_end && *m_p == '-')
        ++m_p;
    if (m_p < m_end && *m_p == '0')
        ++m_p;
    else if (!digits())
        return fail();
    if (m_p < m_end && *m_p == '.') {
        ++m_p;
        if (!digits())
            return fail();
    }
    if (m_p < m_end && (*m_p == 'e' || *m_p == 'E')) {
        ++m_p;
        if (m_p < m_end && (*m_p == '+' || *m_p == '-'))
            ++m_p;
        if (!digits())
            return fail();
    }
    return true;
}

bool JsonCursor::integer(std::int64_t *out)
{
    whitespace();
    const char *p = m_p;
    if (!number())
        return false;
    // The number is [-] int [. frac] [e exp]: its digits (int, then frac) as one integer, times
    // 10^(exp − digits in frac). Whole when no digit other than 0 falls after the decimal point.
    const bool negative = *p == '-';
    p += negative ? 1 : 0;
    const auto digitsFrom = [this](const char *from) {
        while (from < m_p && *from >= '0' && *from <= '9')
            ++from;
        return from;
    };
    const char *const intBegin = p;
    const char *const intEnd = digitsFrom(intBegin);
    const char *const fracBegin = intEnd < m_p && *intEnd == '.' ? intEnd + 1 : intEnd;
    const char *const fracEnd = digitsFrom(fracBegin);
    // Saturated far beyond any text's length: 1e99999999999999999999 is simply out of range.
    constexpr std::int64_t kExponentBound = std::int64_t(1) << 60;
    std::int64_t exponent = 0;
    if (fracEnd < m_p) { // e or E
        const char *e = fracEnd + 1;
        const bool negativeExponent = *e == '-';
        e += *e == '-' || *e == '+' ? 1 : 0;
        for (; e < m_p; ++e)
            exponent = exponent > kExponentBound / 10 ? kExponentBound : exponent * 10 + (*e - '0');
        exponent = negativeExponent ? -exponent : exponent;
    }
    const std::int64_t intDigits = intEnd - intBegin;
    const std::int64_t allDigits = intDigits + (fracEnd - fracBegin);
    const auto digitAt = [&](std::int64_t i) {
        return i < intDigits ? intBegin[i] - '0' : fracBegin[i - intDigits] - '0';
    };
    std::int64_t first = 0;
    while (first < allDigits && digitAt(first) == 0)
        ++first;
    if (first == allDigits) { // 0, -0.0, 0e7
        if (out)
            *out = 0;
        return true;
    }
    std::int64_t last = allDigits - 1;
    while (digitAt(last) == 0)
        --last;
    const auto refuse = [this](Refused why) {
        m_refused = why;
        return fail();
    };
    // The powers of ten of the first and last digits that are not 0.
    const std::int64_t lastPower = intDigits - 1 - last + exponent;
    if (lastPower < 0)
        return refuse(Refused::NotWhole);
    if (intDigits - 1 - first + exponent > 18) // 10^19 and more: beyond int64 whatever the digits
        return refuse(Refused::OutOfRange);
    // Accumulated negatively: the int64 range is one larger below zero.
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    std::int64_t value = 0;
    const auto shift = [&value](int digit) {
        if (value < (kMin + digit) / 10)
            return false;
        value = value * 10 - digit;
        return true;
    };
    for (std::int64_t i = first; i <= last; ++i) {
        if (!shift(digitAt(i)))
            return refuse(Refused::OutOfRange);
    }
    for (std::int64_t i = 0; i < lastPower; ++i) {
        if (!shift(0))
            return refuse(Refused::OutOfRange);
    }
    if (!negative && value == kMin)
        return refuse(Refused::OutOfRange);
    if (out)
        *out = negative ? value : -value;
    return true;
}

bool JsonCursor::skip()
{
    whitespace();
    if (m_p >= m_end)
        return fail();
    switch (*m_p) {
    case '{':
        return object([this](std::string_view) { return skip(); });
    case '[':
        return array([this] { return skip(); });
    case '"':
        return string();
    case 't':
        return literal("true");
    case 'f':
        return literal("false");
    case 'n':
        return literal("null");
    default:
        return number();
    }
}

std::size_t JsonCursor::decodedSize(std::string_view raw)
{
    if (raw.find('\\') == std::string_view::npos)
        return raw.size();
    std::size_t size = 0;
    unescape(
        raw, [&size](char) { ++size; }, [&size](char32_t cp) { size += utf8Size(cp); });
    return size;
}

void JsonCursor::decode(std::string_view raw, std::string &out)
{
    if (raw.find('\\') == std::string_view::npos) {
        out.append(raw);
        return;
    }
    unescape(
        raw, [&out](char c) { out.push_back(c); },
        [&out](char32_t cp) {
            if (cp < 0x80) {
                out.push_back(char(cp));
            } else if (cp < 0x800) {
                out.push_back(char(0xC0 | (cp >> 6)));
                out.push_back(char(0x80 | (cp & 0x3F)));
            } else if (cp < 0x10000) {
                out.push_back(char(0xE0 | (cp >> 12)));
                out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
                out.push_back(char(0x80 | (cp & 0x3F)));
            } else {
                out.push_back(char(0xF0 | (cp >> 18)));
                out.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
                out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
                out.push_back(char(0x80 | (cp & 0x3F)));
            }
        });
}

} // namespace tb
