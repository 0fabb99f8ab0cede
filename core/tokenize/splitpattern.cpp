#include "tokenize/splitpattern.h"

#include <array>

namespace tb {

namespace {

// What a code point is, for the classes the patterns use.
enum : std::uint8_t {
    Letter = 1,    // \p{L}
    Number = 2,    // \p{N}
    Space = 4,     // \s as PCRE2 reads it with Unicode properties: \p{Z}, \h and \v
    Newline = 8,   // [\r\n]
    Upperish = 16, // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k_base)
    Lowerish = 32, // [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k_base)
};

std::uint8_t classify(char32_t c)
{
    switch (QChar::category(c)) {
    case QChar::Letter_Uppercase:
    case QChar::Letter_Titlecase:
        return Letter | Upperish;
    case QChar::Letter_Lowercase:
        return Letter | Lowerish;
    case QChar::Letter_Modifier:
    case QChar::Letter_Other:
        return Letter | Upperish | Lowerish;
    case QChar::Mark_NonSpacing:
    case QChar::Mark_SpacingCombining:
    case QChar::Mark_Enclosing:
        return Upperish | Lowerish;
    case QChar::Number_DecimalDigit:
    case QChar::Number_Letter:
    case QChar::Number_Other:
        return Number;
    case QChar::Separator_Space:
    case QChar::Separator_Line:
    case QChar::Separator_Paragraph:
        return Space;
    default:
        break;
    }
    if (c == '\r' || c == '\n')
        return Space | Newline;
    if ((c >= 0x09 && c <= 0x0D) || c == 0x85 || c == 0x180E)
        return Space;
    return 0;
}

const std::array<std::uint8_t, 128> &asciiClasses()
{
    static const std::array<std::uint8_t, 128> table = [] {
        std::array<std::uint8_t, 128> t{};
        for (char32_t c = 0; c < 128; ++c)
            t[c] = classify(c);
        return t;
    }();
    return table;
}

struct CodePoint {
    char32_t c;
    std::uint8_t classes;
    qsizetype size; ///< UTF-16 units
};

/// Reads the text one code point at a time, with its classes.
class Cursor
{
public:
    explicit Cursor(QStringView text)
        : m_text(text)
        , m_ascii(asciiClasses())
    {}
    qsizetype size() const { return m_text.size(); }
    CodePoint at(qsizetype i) const
    {
        const char16_t u = m_text[i].unicode();
        if (u < 128)
            return {u, m_ascii[u], 1};
        if (QChar::isHighSurrogate(u) && i + 1 < m_text.size() && QChar::isLowSurrogate(m_text[i + 1].unicode())) {
            const char32_t c = QChar::surrogateToUcs4(u, m_text[i + 1].unicode());
            return {c, classify(c), 2};
        }
        return {u, classify(u), 1};
    }
    char16_t unit(qsizetype i) const { return i < m_text.size() ? m_text[i].unicode() : 0; }
    /// The end of the run of code points from i that have any of `classes`.
    qsizetype run(qsizetype i, std::uint8_t classes) const
    {
        while (i < size()) {
            const CodePoint p = at(i);
            if (!(p.classes & classes))
                break;
            i += p.size;
        }
        return i;
    }
    /// The end of the run of at most `most` code points from i that have any of `classes`.
    qsizetype runAtMost(qsizetype i, std::uint8_t classes, int most) const
    {
        for (int k = 0; k < most && i < size(); ++k) {
            const CodePoint p = at(i);
            if (!(p.classes & classes))
                break;
            i += p.size;
        }
        return i;
    }
    /// The end of the run from i of code points that are none of `classes`.
    qsizetype runOutside(qsizetype i, std::uint8_t classes) const
    {
        while (i < size()) {
            const CodePoint p = at(i);
            if (p.classes & classes)
                break;
            i += p.size;
        }
        return i;
    }
    /// 's 't 're 've 'm 'll 'd at i: their length, or 0. Caseless as PCRE2 is with Unicode (ſ is s).
    qsizetype contraction(qsizetype i, bool caseless) const
    {
        if (unit(i) != u'\'')
            return 0;
        const auto is = [&](qsizetype at, char16_t lower) {
            const char16_t u = unit(at);
            if (u == lower)
                return true;
            return caseless && (u == lower - 32 || (lower == u's' && u == u'\u017F'));
        };
        if (is(i + 1, u's') || is(i + 1, u't') || is(i + 1, u'm') || is(i + 1, u'd'))
            return 2;
        if ((is(i + 1, u'r') || is(i + 1, u'v')) && is(i + 2, u'e'))
            return 3;
        if (is(i + 1, u'l') && is(i + 2, u'l'))
            return 3;
        return 0;
    }

private:
    QStringView m_text;
    const std::array<std::uint8_t, 128> &m_ascii;
};

const char16_t kCl100k[] =
    uR"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char16_t kQwen[] =
    uR"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char16_t kO200k[] =
    uR"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    uR"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    uR"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char16_t kGpt2[] = uR"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

} // namespace

QString SplitPattern::cl100kRegex()
{
    return QString::fromUtf16(kCl100k);
}

QString SplitPattern::o200kRegex()
{
    return QString::fromUtf16(kO200k);
}

QString SplitPattern::gpt2Regex()
{
    return QString::fromUtf16(kGpt2);
}

std::optional<SplitPattern> SplitPattern::fromRegex(const QString &pattern)
{
    if (pattern == QStringView(kCl100k))
        return SplitPattern(Kind::Cl100k, 3);
    if (pattern == QStringView(kQwen))
        return SplitPattern(Kind::Cl100k, 1);
    if (pattern == QStringView(kO200k))
        return SplitPattern(Kind::O200k, 3);
    if (pattern == QStringView(kGpt2))
        return SplitPattern(Kind::Gpt2, 0);
    return std::nullopt;
}

qsizetype SplitPattern::matchAt(QStringView text, qsizetype i) const
{
    const Cursor t(text);
    const qsizetype n = t.size();
    const CodePoint first = t.at(i);
    const qsizetype next = i + first.size;
    const std::uint8_t nextClasses = next < n ? t.at(next).classes : 0;
    constexpr std::uint8_t Word = Letter | Number;
    const bool spaceFirst = first.c == u' ';
    // Where cl100k's and o200k's  ?[^\s\p{L}\p{N}]+ starts at i: after its optional space, or at i;
    // -1 when it does not.
    const auto punctuationFrom = [&]() -> qsizetype {
        if (spaceFirst && next < n && !(nextClasses & (Word | Space)))
            return next;
        if (!(first.classes & (Word | Space)))
            return i;
        return -1;
    };

    if (m_kind == Kind::Gpt2) {
        // 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+
        if (const qsizetype c = t.contraction(i, false))
            return i + c;
        for (const std::uint8_t cls : {Letter, Number}) {
            if (first.classes & cls)
                return t.run(i, cls);
            if (spaceFirst && (nextClasses & cls))
                return t.run(next, cls);
        }
        if (!(first.classes & (Word | Space)))
            return t.runOutside(i, Word | Space);
        if (spaceFirst && next < n && !(nextClasses & (Word | Space)))
            return t.runOutside(next, Word | Space);
    } else if (m_kind == Kind::Cl100k) {
        // (?i:'s|…)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,k}| ?[^\s\p{L}\p{N}]+[\r\n]*
        if (const qsizetype c = t.contraction(i, true))
            return i + c;
        if (!(first.classes & (Word | Newline)) && (nextClasses & Letter))
            return t.run(next, Letter);
        if (first.classes & Letter)
            return t.run(i, Letter);
        if (first.classes & Number)
            return t.runAtMost(i, Number, m_maxDigits);
        if (const qsizetype from = punctuationFrom(); from >= 0)
            return t.run(t.runOutside(from, Word | Space), Newline);
    } else {
        // Two word forms (optional prefix, then upper-ish*lower-ish+ or upper-ish+lower-ish*, then an
        // optional contraction), \p{N}{1,3}, then  ?[^\s\p{L}\p{N}]+[\r\n/]*
        const bool prefix = !(first.classes & (Word | Newline)) && next < n;
        // Upper-ish* lower-ish+ from s; as the regex backtracks, the upper-ish run may give back
        // its last characters that are lower-ish too.
        const auto upperLower = [&](qsizetype s) -> qsizetype {
            qsizetype u = s, lastBoth = -1;
            while (u < n) {
                const CodePoint p = t.at(u);
                if (!(p.classes & Upperish))
                    break;
                u += p.size;
                if (p.classes & Lowerish)
                    lastBoth = u;
            }
            qsizetype end = -1;
            if (u < n && (t.at(u).classes & Lowerish))
                end = t.run(u, Lowerish);
            else if (lastBoth >= 0)
                end = lastBoth;
            return end < 0 ? -1 : end + t.contraction(end, true);
        };
        const auto upperThenLower = [&](qsizetype s) -> qsizetype {
            const qsizetype u = t.run(s, Upperish);
            if (u == s)
                return -1;
            const qsizetype end = t.run(u, Lowerish);
            return end + t.contraction(end, true);
        };
        qsizetype end = -1;
        if (prefix)
            end = upperLower(next);
        if (end < 0)
            end = upperLower(i);
        if (end < 0 && prefix)
            end = upperThenLower(next);
        if (end < 0)
            end = upperThenLower(i);
        if (end >= 0)
            return end;
        if (first.classes & Number)
            return t.runAtMost(i, Number, m_maxDigits);
        if (const qsizetype from = punctuationFrom(); from >= 0) {
            qsizetype e = t.runOutside(from, Word | Space);
            while (e < n && (t.unit(e) == u'\r' || t.unit(e) == u'\n' || t.unit(e) == u'/'))
                ++e;
            return e;
        }
    }

    // Whitespace: \s*[\r\n]+ (not GPT-2), then \s+(?!\S), then \s+.
    if (!(first.classes & Space))
        return i; // no match here
    qsizetype end = i, lastNewline = -1, lastStart = i;
    while (end < n) {
        const CodePoint p = t.at(end);
        if (!(p.classes & Space))
            break;
        lastStart = end;
        end += p.size;
        if (p.classes & Newline)
            lastNewline = end;
    }
    if (m_kind != Kind::Gpt2 && lastNewline > 0)
        return lastNewline;
    if (end == n || lastStart == i)
        return end; // \s+(?!\S) at the end of the text, or \s+ of one character
    return lastStart;
}

void SplitPattern::matches(QStringView text, std::vector<Span> &out) const
{
    for (qsizetype i = 0; i < text.size();) {
        const qsizetype end = matchAt(text, i);
        if (end > i) {
            out.push_back({i, end});
            i = end;
        } else {
            i += text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate() ? 2 : 1;
        }
    }
}

} // namespace tb
