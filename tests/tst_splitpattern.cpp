#include "tokenize/splitpattern.h"

#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

#include <nlohmann/json.hpp>

using tb::SplitPattern;

namespace {

const char16_t kQwenRegex[] =
    uR"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

/// The regex's own matches, as BpeTokenizer took them before the hand-written splitters.
QList<QPair<qsizetype, qsizetype>> regexMatches(const QRegularExpression &re, const QString &text)
{
    QList<QPair<qsizetype, qsizetype>> out;
    for (auto it = re.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        if (m.capturedLength() > 0)
            out.append({m.capturedStart(), m.capturedEnd()});
    }
    return out;
}

QList<QPair<qsizetype, qsizetype>> handMatches(const SplitPattern &pattern, const QString &text)
{
    std::vector<SplitPattern::Span> spans;
    pattern.matches(text, spans);
    QList<QPair<qsizetype, qsizetype>> out;
    for (const SplitPattern::Span &s : spans)
        out.append({s.start, s.end});
    return out;
}

/// Characters at every edge of the patterns' classes: cased and caseless letters (Lu, Ll, Lt, Lm,
/// Lo, also outside the BMP), the three kinds of marks and numbers, every kind of space PCRE2's \s
/// takes (and U+FEFF, which it does not), newlines, contractions' letters, punctuation and '/'.
const QList<char32_t> &alphabet()
{
    static const QList<char32_t> chars{
        'a',   'e',    'l',     'm',     'r',     's',    't',     'v',     'd',     'S',    'T',    'R',   'E',
        'L',   'D',    'M',     'V',     'x',     'Q',    '\'',    '0',     '7',     ' ',    ' ',    ' ',   '\t',
        '\n',  '\r',   '\v',    '\f',    '.',     ',',    '!',     '/',     '-',     '_',    '"',    '(',   0xA0,
        0x85,  0x180E, 0x2028,  0x2029,  0x3000,  0x2003, 0xFEFF,  0x17F,   0x3A3,   0x3C3,  0x416,  0x436, 0x1C5,
        0x2B0, 0x4E2D, 0x6587,  0x3042,  0x30A2,  0xAC00, 0x627,   0x301,   0x308,   0x903,  0x20DD, 0x663, 0x216B,
        0xBD,  0xB2,   0x1F600, 0x1F44D, 0x1F3FD, 0x200D, 0x1D400, 0x1D41A, 0x1D7D9, 0x20AC, 0xFF01, 0x2019};
    return chars;
}

} // namespace

class TestSplitPattern : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// The hand-written splitters find exactly the regex's matches, on the tokenizer corpus and on
    /// random text over the characters at the edges of the patterns' classes.
    void matchesTheRegex_data()
    {
        QTest::addColumn<QString>("regex");
        QTest::newRow("cl100k_base (and Llama 3)") << SplitPattern::cl100kRegex();
        QTest::newRow("Qwen 2/3") << QString::fromUtf16(kQwenRegex);
        QTest::newRow("o200k_base") << SplitPattern::o200kRegex();
        QTest::newRow("GPT-2 ByteLevel") << SplitPattern::gpt2Regex();
    }
    void matchesTheRegex()
    {
        QFETCH(QString, regex);
        const auto pattern = SplitPattern::fromRegex(regex);
        QVERIFY(pattern);
        const QRegularExpression re(regex, QRegularExpression::UseUnicodePropertiesOption);
        QVERIFY2(re.isValid(), qPrintable(re.errorString()));

        QStringList texts;
        QFile corpus(QStringLiteral(TOKENBENCH_TESTDATA "/tokenizer-corpus.json"));
        QVERIFY(corpus.open(QIODevice::ReadOnly));
        for (const auto &text : nlohmann::json::parse(corpus.readAll().toStdString()))
            texts << QString::fromStdString(text.get<std::string>());
        QRandomGenerator random(20261201);
        const QList<char32_t> &chars = alphabet();
        for (int i = 0; i < 4000; ++i) {
            QString text;
            for (int n = random.bounded(1, 24); n > 0; --n) {
                const char32_t c = chars.at(random.bounded(int(chars.size())));
                text += QString::fromUcs4(&c, 1);
            }
            texts << text;
        }
        for (const QString &text : texts) {
            const auto expected = regexMatches(re, text);
            const auto actual = handMatches(*pattern, text);
            if (actual != expected) {
                QStringList codes;
                for (const char32_t c : text.toUcs4())
                    codes << QString::number(c, 16);
                QFAIL(qPrintable(QStringLiteral("text [%1]: pieces differ").arg(codes.join(QLatin1Char(' ')))));
            }
        }
    }

    void unknownPatternsKeepTheRegex_data()
    {
        QTest::addColumn<QString>("regex");
        QTest::newRow("whitespace") << QStringLiteral("\\s+");
        QTest::newRow("cl100k_base but two digits")
            << SplitPattern::cl100kRegex().replace(QStringLiteral("{1,3}"), QStringLiteral("{1,2}"));
        QTest::newRow("empty") << QString();
    }
    void unknownPatternsKeepTheRegex()
    {
        QFETCH(QString, regex);
        QVERIFY(!SplitPattern::fromRegex(regex));
    }
};

QTEST_GUILESS_MAIN(TestSplitPattern)
#include "tst_splitpattern.moc"
