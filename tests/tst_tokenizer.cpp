#include "tokenize/tokenizer.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include "support/testfiles.h"

using tb::ApproxTokenizer;
using tb::Tokenizer;
using Ids = std::vector<std::int32_t>;

using tb::test::testFile;

class TestTokenizer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void counts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("tokens");
        QTest::newRow("empty") << QString() << qint64(0);
        QTest::newRow("spaces only") << QStringLiteral("  \n\t ") << qint64(0);
        QTest::newRow("short word") << QStringLiteral("the") << qint64(1);
        QTest::newRow("four letters") << QStringLiteral("four") << qint64(1);
        QTest::newRow("five letters") << QStringLiteral("model") << qint64(2);
        QTest::newRow("long word") << QStringLiteral("tokenization") << qint64(3);
        QTest::newRow("sentence") << QStringLiteral("Hello, world!") << qint64(6); // hell o , worl d !
        QTest::newRow("digits") << QStringLiteral("12345") << qint64(2);
        QTest::newRow("leading spaces belong to words") << QStringLiteral(" a b c") << qint64(3);
        QTest::newRow("non-ascii letters") << QStringLiteral("naïve") << qint64(2);
        QTest::newRow("cjk") << QStringLiteral("吞吐量") << qint64(1);
        QTest::newRow("emoji") << QStringLiteral("ok 👍") << qint64(2);
    }

    void counts()
    {
        QFETCH(QString, text);
        QFETCH(qint64, tokens);
        QCOMPARE(qint64(ApproxTokenizer::count(text)), tokens);
        const QByteArray utf8 = text.toUtf8();
        QCOMPARE(qint64(ApproxTokenizer::countUtf8(utf8.constData(), size_t(utf8.size()))), tokens);
    }

    void piecesAreTheCountedTokens_data() { counts_data(); }

    void piecesAreTheCountedTokens()
    {
        QFETCH(QString, text);
        QFETCH(qint64, tokens);
        const std::string utf8 = text.toStdString();
        const std::vector<std::string_view> pieces = ApproxTokenizer::pieces(utf8);
        QCOMPARE(qint64(pieces.size()), tokens);
        std::string joined;
        for (const std::string_view piece : pieces)
            joined += piece;
        QCOMPARE(joined, tokens > 0 ? utf8 : std::string());
    }

    void piecesCarryTheSpaceBeforeThem()
    {
        const std::vector<std::string_view> pieces = ApproxTokenizer::pieces(" Hello, naïve world!  ");
        const std::vector<std::string_view> expected{" Hell", "o", ",", " naïv", "e", " worl", "d", "!  "};
        QCOMPARE(pieces, expected);
    }

    // The small files in tests/data (see its README) pin each kind of tokenizer file in every
    // environment; tst_tokenizeroracle compares real ones with the reference implementations.
    void files_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("text");
        QTest::addColumn<Ids>("ids");
        const QString byteLevel = testFile("tiny-bytelevel-tokenizer.json");
        QTest::newRow("byte-level: merges by rank, special token")
            << byteLevel << QStringLiteral("hello world<|end|>!") << Ids{259, 262, 108, 100, 263, 33};
        QTest::newRow("byte-level: UTF-8 bytes") << byteLevel << QStringLiteral("é") << Ids{195, 169};
        const QString metaspace = testFile("tiny-metaspace-tokenizer.json");
        QTest::newRow("metaspace: ▁ and byte fallback")
            << metaspace << QStringLiteral("hello wé") << Ids{271, 259, 264, 198, 172};
        QTest::newRow("metaspace: special token ends it") << metaspace << QStringLiteral("hi</s>") << Ids{267, 108, 2};
        QTest::newRow("metaspace: prepended after a special token")
            << metaspace << QStringLiteral("</s>hi") << Ids{2, 267, 108};
        const QString tiktoken = testFile("tiny.tiktoken");
        QTest::newRow("tiktoken: ranks, whole pieces")
            << tiktoken << QStringLiteral("hello world") << Ids{258, 111, 259};
        QTest::newRow("tiktoken: digits split in threes") << tiktoken << QStringLiteral("12345") << Ids{260, 52, 53};
        QTest::newRow("model folder") << QStringLiteral(TOKENBENCH_TESTDATA "/tiny-model") << QStringLiteral("hello")
                                      << Ids{259};
    }

    void files()
    {
        QFETCH(QString, file);
        QFETCH(QString, text);
        QFETCH(Ids, ids);
        QString error;
        const auto tokenizer = Tokenizer::load(file, &error);
        QVERIFY2(tokenizer, qPrintable(error));
        QVERIFY(tokenizer->exact());
        const std::string utf8 = text.toStdString();
        QCOMPARE(tokenizer->encode(utf8), ids);
        QCOMPARE(tokenizer->count(utf8), std::int64_t(ids.size()));
    }

    /// A Metaspace pre-tokenizer (newer Llama 2 / Mistral files) instead of the normalizers.
    void metaspacePreTokenizer()
    {
        QFile base(testFile("tiny-metaspace-tokenizer.json"));
        QVERIFY(base.open(QIODevice::ReadOnly));
        nlohmann::json json = nlohmann::json::parse(base.readAll().toStdString());
        json["normalizer"] = nullptr;
        json["pre_tokenizer"] = {
            {"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "first"}, {"split", true}};
        QTemporaryDir dir;
        const QString path =
            tb::test::writeFile(dir, QStringLiteral("tokenizer.json"), QByteArray::fromStdString(json.dump()));
        QVERIFY(!path.isEmpty());
        QString error;
        const auto tokenizer = Tokenizer::load(path, &error);
        QVERIFY2(tokenizer, qPrintable(error));
        QCOMPARE(tokenizer->encode("hello w\xc3\xa9"), (Ids{271, 259, 264, 198, 172}));
        // "first": only the text's start gets a ▁, not the text after a special token.
        QCOMPARE(tokenizer->encode("</s>hi"), (Ids{2, 260, 108}));
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("problem");
        QTest::newRow("empty") << QByteArray("  \n") << QStringLiteral("empty");
        QTest::newRow("not JSON") << QByteArray("{oops") << QStringLiteral("not JSON");
        QTest::newRow("WordPiece") << QByteArray("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}}")
                                   << QStringLiteral("model type 'WordPiece' is not supported (only BPE)");
        QTest::newRow("unknown pre-tokenizer")
            << QByteArray("{\"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"}, \"model\": {\"type\": \"BPE\", "
                          "\"vocab\": {\"a\": 0}, \"merges\": []}}")
            << QStringLiteral("pre_tokenizer type 'BertPreTokenizer' is not supported");
        QTest::newRow("merge of unknown tokens")
            << QByteArray("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1}, \"merges\": [\"a c\"]}}")
            << QStringLiteral("merge 0 'a c' uses a token that is not in the vocabulary");
        QTest::newRow("bad regex")
            << QByteArray(
                   "{\"pre_tokenizer\": {\"type\": \"Split\", \"pattern\": {\"Regex\": \"[unclosed\"}, \"behavior\": "
                   "\"Isolated\"}, \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}")
            << QStringLiteral("pre_tokenizer Split: regex not supported");
        QTest::newRow("byte fallback without bytes")
            << QByteArray(
                   "{\"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": {\"a\": 0}, \"merges\": []}}")
            << QStringLiteral("byte_fallback is set but token <0x00> is missing");
        QTest::newRow("tiktoken: bad line") << QByteArray("aGk= 1\nnot-a-line\n") << QStringLiteral("line 2: expected");
        QTest::newRow("tiktoken: missing bytes") << QByteArray("aGk= 0\n") << QStringLiteral("no token for byte 0x00");
    }

    void badFiles()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString path = tb::test::writeFile(dir, QStringLiteral("broken.json"), content);
        QVERIFY(!path.isEmpty());
        QString error;
        QVERIFY(!Tokenizer::load(path, &error));
        QVERIFY2(error.startsWith(QStringLiteral("tokenizer file '%1': ").arg(path)), qPrintable(error));
        QVERIFY2(error.contains(problem), qPrintable(error));
    }

    void missingFileIsNamed()
    {
        QString error;
        QVERIFY(!Tokenizer::load(QStringLiteral("/nonexistent/tokenizer.json"), &error));
        QVERIFY2(error.startsWith(QStringLiteral("tokenizer file '/nonexistent/tokenizer.json': ")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
