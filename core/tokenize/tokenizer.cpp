#include "tokenize/tokenizer.h"

#include "tokenize/bpetokenizer.h"

#include <QChar>
#include <QFileInfo>
#include <QString>

#include <algorithm>
#include <utility>

namespace tb {

namespace {

constexpr int kMaxPiece = 4;

/// The rules: which characters start a token.
class TokenStarts
{
public:
    bool add(char32_t c)
    {
        if (QChar::isLetterOrNumber(c)) {
            const bool starts = m_run == 0 || m_run == kMaxPiece;
            m_run = starts ? 1 : m_run + 1;
            return starts;
        }
        m_run = 0;
        return !QChar::isSpace(c);
    }

private:
    int m_run = 0;
};

class Counter
{
public:
    void add(char32_t c) { m_tokens += m_starts.add(c) ? 1 : 0; }
    std::int64_t tokens() const { return m_tokens; }

private:
    TokenStarts m_starts;
    std::int64_t m_tokens = 0;
};

/// The code point at `at` and its length in bytes; an invalid byte is U+FFFD, one byte long.
std::pair<char32_t, std::size_t> decodeUtf8(std::string_view s, std::size_t at)
{
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80)
        return {lead, 1};
    const std::size_t length = lead >= 0xF0 && lead < 0xF5 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead < 0xE0 ? 2 : 0;
    if (length == 0 || at + length > s.size())
        return {0xFFFD, 1};
    char32_t c = lead & (0x7F >> length);
    for (std::size_t i = 1; i < length; ++i) {
        if ((byte(at + i) & 0xC0) != 0x80)
            return {0xFFFD, 1};
        c = (c << 6) | (byte(at + i) & 0x3F);
    }
    constexpr char32_t kShortest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < kShortest[length] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return {0xFFFD, 1};
    return {c, length};
}

} // namespace

std::int64_t ApproxTokenizer::count(QStringView text)
{
    Counter counter;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c.isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            counter.add(QChar::surrogateToUcs4(c, text[i + 1]));
            ++i;
        } else {
            counter.add(c.unicode());
        }
    }
    return counter.tokens();
}

std::int64_t ApproxTokenizer::countUtf8(const char *data, std::size_t size)
{
    Counter counter;
    // ASCII fast path: most generated text is ASCII; fall back to full decoding otherwise.
    for (std::size_t i = 0; i < size; ++i) {
        const auto byte = static_cast<unsigned char>(data[i]);
        if (byte >= 0x80)
            return count(QString::fromUtf8(data, qsizetype(size)));
        counter.add(char32_t(byte));
    }
    return counter.tokens();
}

std::vector<std::string_view> ApproxTokenizer::pieces(std::string_view utf8)
{
    // A piece starts where its token does, or where the white space before that begins.
    std::vector<std::size_t> starts;
    TokenStarts rules;
    std::size_t spaceFrom = std::string_view::npos;
    for (std::size_t at = 0; at < utf8.size();) {
        const auto [c, length] = decodeUtf8(utf8, at);
        const bool startsToken = rules.add(c);
        if (QChar::isSpace(c)) {
            if (spaceFrom == std::string_view::npos)
                spaceFrom = at;
        } else {
            if (startsToken)
                starts.push_back(starts.empty() ? 0 : std::min(at, spaceFrom));
            spaceFrom = std::string_view::npos;
        }
        at += length;
    }
    std::vector<std::string_view> out;
    out.reserve(starts.size());
    for (std::size_t i = 0; i < starts.size(); ++i)
        out.push_back(utf8.substr(starts[i], (i + 1 < starts.size() ? starts[i + 1] : utf8.size()) - starts[i]));
    return out;
}

namespace {

class Approximation final : public Tokenizer
{
public:
    QString description() const override { return QStringLiteral("approx"); }
    std::int64_t count(std::string_view utf8) const override
    {
        return ApproxTokenizer::countUtf8(utf8.data(), utf8.size());
    }
    std::vector<std::int32_t> encode(std::string_view) const override { return {}; }
    bool exact() const override { return false; }
};

} // namespace

std::shared_ptr<const Tokenizer> Tokenizer::approx()
{
    static const auto instance = std::make_shared<const Approximation>();
    return instance;
}

std::shared_ptr<const Tokenizer> Tokenizer::load(const QString &spec, QString *error)
{
    if (spec == QLatin1String("approx"))
        return approx();
    // A model folder stands for the tokenizer.json in it.
    const QString path = QFileInfo(spec).isDir() ? spec + QStringLiteral("/tokenizer.json") : spec;
    return BpeTokenizer::fromFile(path, error);
}

} // namespace tb
