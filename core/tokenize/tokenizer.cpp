#include "tokenize/tokenizer.h"

#include "tokenize/bpetokenizer.h"

#include <QChar>
#include <QFileInfo>
#include <QString>

namespace tb {

namespace {

constexpr int kMaxPiece = 4;

class Counter
{
public:
    void add(char32_t c)
    {
        const bool word = QChar::isLetterOrNumber(c);
        if (word) {
            if (m_run == 0 || m_run == kMaxPiece) {
                ++m_tokens;
                m_run = 0;
            }
            ++m_run;
            return;
        }
        m_run = 0;
        if (!QChar::isSpace(c))
            ++m_tokens;
    }
    std::int64_t tokens() const { return m_tokens; }

private:
    std::int64_t m_tokens = 0;
    int m_run = 0;
};

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
