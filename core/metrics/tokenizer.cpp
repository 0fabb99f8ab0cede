#include "metrics/tokenizer.h"

#include <QChar>
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

} // namespace tb
