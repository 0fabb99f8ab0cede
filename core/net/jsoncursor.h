#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tb {

/// The value of one hexadecimal digit, -1 for any other character (JSON \u escapes, chunk sizes).
int hexDigit(char c);

/// A forward-only JSON reader over text that stays alive while it is read, for the engine's hot
/// path: every SSE event of every stream passes through it. It builds no tree and allocates
/// nothing — strings come back as raw views between their quotes (escapes undecoded), and values
/// nobody asks for are skipped. Measured against a DOM parser it cut the client's CPU per event
/// several-fold (docs/measuring.md).
///
/// Usage: call one value function per value. object(f) calls f(rawKey) for each member, and f
/// must consume that member's value (string(), integer(), object(), skip(), …). Every function
/// returns false on malformed input, after which ok() is false and nothing more is read.
/// Keys are compared raw: a key written with escapes ("\u0063ontent") does not match "content";
/// no API writes keys that way.
class JsonCursor
{
public:
    explicit JsonCursor(std::string_view text)
        : m_p(text.data())
        , m_end(text.data() + text.size())
    {}

    bool ok() const { return m_ok; }
    /// After the top-level value: only white space may follow.
    bool atEnd()
    {
        whitespace();
        return m_ok && m_p == m_end;
    }

    /// The next value is null (consumed) — for optional members.
    bool null()
    {
        whitespace();
        if (m_end - m_p >= 4 && std::string_view(m_p, 4) == "null") {
            m_p += 4;
            return true;
        }
        return false;
    }

    template<typename OnMember> bool object(OnMember &&onMember);
    template<typename OnElement> bool array(OnElement &&onElement);
    /// A string; *raw is what stands between the quotes, escapes undecoded.
    bool string(std::string_view *raw = nullptr);
    /// A number that is a whole value, read exactly (token counts): 500, 500.0, 5e2 and 0.5e3 are
    /// all 500. A number with a fraction (7.9, 5e-1) or outside int64 is refused, and so is any other
    /// value: truncating or clamping would turn a server's garbage into a plausible count.
    /// notWhole() and outOfRange() tell such a number apart from bad JSON.
    bool integer(std::int64_t *out);
    /// The failure was integer() refusing a number outside int64, not malformed text.
    bool outOfRange() const { return m_refused == Refused::OutOfRange; }
    /// The failure was integer() refusing a number with a fraction, not malformed text.
    bool notWhole() const { return m_refused == Refused::NotWhole; }
    /// Any value.
    bool skip();
    /// Any value; *text is its JSON text (Anthropic's tool input, an object kept as written).
    bool skip(std::string_view *text)
    {
        whitespace();
        const char *begin = m_p;
        if (!skip())
            return false;
        *text = std::string_view(begin, std::size_t(m_p - begin));
        return true;
    }

    /// The UTF-8 byte length of a raw string once unescaped.
    static std::size_t decodedSize(std::string_view raw);
    /// Appends the unescaped UTF-8 of a raw string (invalid escapes become U+FFFD).
    static void decode(std::string_view raw, std::string &out);

private:
    bool fail()
    {
        m_ok = false;
        m_p = m_end;
        return false;
    }
    void whitespace()
    {
        while (m_p < m_end && (*m_p == ' ' || *m_p == '\n' || *m_p == '\r' || *m_p == '\t'))
            ++m_p;
    }
    bool expect(char c)
    {
        whitespace();
        if (m_p < m_end && *m_p == c) {
            ++m_p;
            return true;
        }
        return fail();
    }
    bool literal(std::string_view word)
    {
        if (std::size_t(m_end - m_p) < word.size() || std::string_view(m_p, word.size()) != word)
            return fail();
        m_p += word.size();
        return true;
    }
    bool number();

    const char *m_p;
    const char *m_end;
    bool m_ok = true;
    enum class Refused : std::uint8_t { No, OutOfRange, NotWhole };
    Refused m_refused = Refused::No;
    int m_depth = 0;
    static constexpr int kMaxDepth = 64;
};

template<typename OnMember> bool JsonCursor::object(OnMember &&onMember)
{
    if (!expect('{') || ++m_depth > kMaxDepth)
        return fail();
    whitespace();
    if (m_p < m_end && *m_p == '}') {
        ++m_p;
        --m_depth;
        return true;
    }
    for (;;) {
        std::string_view key;
        if (!string(&key) || !expect(':'))
            return fail();
        if (!onMember(key) || !m_ok)
            return fail();
        whitespace();
        if (m_p < m_end && *m_p == ',') {
            ++m_p;
            continue;
        }
        if (!expect('}'))
            return false;
        --m_depth;
        return true;
    }
}

template<typename OnElement> bool JsonCursor::array(OnElement &&onElement)
{
    if (!expect('[') || ++m_depth > kMaxDepth)
        return fail();
    whitespace();
    if (m_p < m_end && *m_p == ']') {
        ++m_p;
        --m_depth;
        return true;
    }
    for (;;) {
        if (!onElement() || !m_ok)
            return fail();
        whitespace();
        if (m_p < m_end && *m_p == ',') {
            ++m_p;
            continue;
        }
        if (!expect(']'))
            return false;
        --m_depth;
        return true;
    }
}

} // namespace tb
