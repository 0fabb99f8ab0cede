#include "net/jsoncursor.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <limits>

using tb::JsonCursor;

class TestJsonCursor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validDocumentsAreSkipped_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("empty object") << QByteArray("{}");
        QTest::newRow("empty array") << QByteArray(" [ ] ");
        QTest::newRow("nested") << QByteArray("{\"a\":[1,2,{\"b\":null,\"c\":[true,false]}],\"d\":{\"e\":\"f\"}}");
        QTest::newRow("numbers") << QByteArray("[0,-1,3.25,1e9,-2.5E-3,10]");
        QTest::newRow("escapes") << QByteArray(
            "[\"\\\"quoted\\\"\",\"back\\\\slash\",\"\\/\",\"\\b\\f\\n\\r\\t\",\"\\u00e9\\u4e2d\\ud83d\\ude00\"]");
        QTest::newRow("utf8 raw") << QByteArray("{\"k\":\"吞吐量 ✓\"}");
        QTest::newRow("whitespace") << QByteArray(" {\n\t\"a\" :\r\n 1 } \n");
    }

    void validDocumentsAreSkipped()
    {
        QFETCH(QByteArray, json);
        JsonCursor c(std::string_view(json.constData(), std::size_t(json.size())));
        QVERIFY(c.skip());
        QVERIFY(c.atEnd());
    }

    void malformedDocumentsFail_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("truncated object") << QByteArray("{\"a\":1");
        QTest::newRow("truncated string") << QByteArray("{\"a\":\"abc");
        QTest::newRow("trailing comma") << QByteArray("{\"a\":1,}");
        QTest::newRow("missing colon") << QByteArray("{\"a\" 1}");
        QTest::newRow("bad literal") << QByteArray("[tru]");
        QTest::newRow("bad number") << QByteArray("[01x]");
        QTest::newRow("leading zero then digit") << QByteArray("[-]");
        QTest::newRow("bad escape") << QByteArray("[\"\\x\"]");
        QTest::newRow("bad unicode escape") << QByteArray("[\"\\u12g4\"]");
        QTest::newRow("raw control character") << QByteArray("[\"a\x01\"]");
        QTest::newRow("garbage after") << QByteArray("{} x");
        QTest::newRow("html") << QByteArray("<html>");
        QTest::newRow("empty") << QByteArray("");
        QTest::newRow("too deep") << QByteArray(200, '[');
    }

    void malformedDocumentsFail()
    {
        QFETCH(QByteArray, json);
        JsonCursor c(std::string_view(json.constData(), std::size_t(json.size())));
        const bool ok = c.skip() && c.atEnd();
        QVERIFY(!ok);
        // Agrees with a reference parser (except depth, which nlohmann allows).
        if (json.size() < 200)
            QVERIFY(!nlohmann::json::accept(json.constData(), json.constData() + json.size()));
    }

    void integerBeyondInt64IsOutOfRangeNotOverflow_data()
    {
        QTest::addColumn<QByteArray>("number");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<qint64>("value");
        QTest::newRow("twenty nines") << QByteArray("99999999999999999999") << false << qint64(0);
        QTest::newRow("int64 max + 1") << QByteArray("9223372036854775808") << false << qint64(0);
        QTest::newRow("int64 min - 1") << QByteArray("-9223372036854775809") << false << qint64(0);
        QTest::newRow("long, written with a fraction") << QByteArray("123456789012345678901.0") << false << qint64(0);
        QTest::newRow("int64 max") << QByteArray("9223372036854775807") << true << std::numeric_limits<qint64>::max();
        QTest::newRow("int64 min") << QByteArray("-9223372036854775808") << true << std::numeric_limits<qint64>::min();
        QTest::newRow("int64 max, with an exponent")
            << QByteArray("9.223372036854775807e18") << true << std::numeric_limits<qint64>::max();
        QTest::newRow("int64 max + 1, with an exponent")
            << QByteArray("9.223372036854775808E+18") << false << qint64(0);
        QTest::newRow("huge exponent") << QByteArray("1e99999999999999999999999") << false << qint64(0);
    }

    void integerBeyondInt64IsOutOfRangeNotOverflow()
    {
        QFETCH(QByteArray, number);
        QFETCH(bool, accepted);
        QFETCH(qint64, value);
        const std::string json = "{\"n\":" + number.toStdString() + "}";
        JsonCursor c(json);
        std::int64_t n = -42;
        const bool ok = c.object([&](std::string_view) { return c.integer(&n); });
        QCOMPARE(ok, accepted);
        QCOMPARE(c.outOfRange(), !accepted);
        QVERIFY(!c.notWhole());
        QCOMPARE(qint64(n), accepted ? value : qint64(-42)); // a rejected value is not written
    }

    // Regression: integer() truncated at the first '.', 'e' or 'E': a usage count of 5e2 read as
    // 5 tokens and 7.9 as 7. A whole value is read exactly however it is written; a fraction is
    // refused, never truncated.
    void exponentOrFractionIsExactOrRefusedNotTruncated_data()
    {
        QTest::addColumn<QByteArray>("number");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<qint64>("value");
        QTest::newRow("5e2") << QByteArray("5e2") << true << qint64(500);
        QTest::newRow("500.0") << QByteArray("500.0") << true << qint64(500);
        QTest::newRow("5.00E+2") << QByteArray("5.00E+2") << true << qint64(500);
        QTest::newRow("0.5e3") << QByteArray("0.5e3") << true << qint64(500);
        QTest::newRow("50000e-2") << QByteArray("50000e-2") << true << qint64(500);
        QTest::newRow("-1.5e1") << QByteArray("-1.5e1") << true << qint64(-15);
        QTest::newRow("0e999999") << QByteArray("0e999999") << true << qint64(0);
        QTest::newRow("-0.0") << QByteArray("-0.0") << true << qint64(0);
        QTest::newRow("1e18") << QByteArray("1e18") << true << qint64(1'000'000'000'000'000'000);
        QTest::newRow("fraction 7.9") << QByteArray("7.9") << false << qint64(0);
        QTest::newRow("fraction 0.75") << QByteArray("0.75") << false << qint64(0);
        QTest::newRow("fraction 5e-1") << QByteArray("5e-1") << false << qint64(0);
        QTest::newRow("fraction 5001e-1") << QByteArray("5001e-1") << false << qint64(0);
        QTest::newRow("fraction far down") << QByteArray("1.0000000000000000000000001") << false << qint64(0);
        QTest::newRow("fraction, huge negative exponent")
            << QByteArray("7e-99999999999999999999") << false << qint64(0);
    }

    void exponentOrFractionIsExactOrRefusedNotTruncated()
    {
        QFETCH(QByteArray, number);
        QFETCH(bool, accepted);
        QFETCH(qint64, value);
        const QByteArray text = "[" + number + "]";
        const std::string_view json(text.constData(), std::size_t(text.size()));
        JsonCursor c(json);
        std::int64_t n = -42;
        QCOMPARE(c.array([&] { return c.integer(&n); }) && c.atEnd(), accepted);
        QCOMPARE(c.notWhole(), !accepted);
        QVERIFY(!c.outOfRange());
        QCOMPARE(qint64(n), accepted ? value : qint64(-42));
        // What integer() refuses is still a valid number to skip.
        JsonCursor skipped(json);
        QVERIFY(skipped.skip() && skipped.atEnd());
    }

    void membersAndValues()
    {
        const std::string json = "{\"id\":\"x-1\",\"n\":42,\"f\":7e0,\"neg\":-3,\"s\":\"a\\\"b\",\"skip\":{\"deep\":[1,"
                                 "{\"x\":2}]},\"last\":null}";
        JsonCursor c(json);
        std::string_view id, s;
        std::int64_t n = 0, f = 0, neg = 0;
        bool lastNull = false;
        QStringList order;
        QVERIFY(c.object([&](std::string_view key) {
            order << QString::fromLatin1(key.data(), qsizetype(key.size()));
            if (key == "id")
                return c.string(&id);
            if (key == "n")
                return c.integer(&n);
            if (key == "f")
                return c.integer(&f);
            if (key == "neg")
                return c.integer(&neg);
            if (key == "s")
                return c.string(&s);
            if (key == "last") {
                lastNull = c.null();
                return lastNull;
            }
            return c.skip();
        }));
        QVERIFY(c.atEnd());
        QCOMPARE(id, std::string_view("x-1"));
        QCOMPARE(n, std::int64_t(42));
        QCOMPARE(f, std::int64_t(7));
        QCOMPARE(neg, std::int64_t(-3));
        QCOMPARE(s, std::string_view("a\\\"b"));
        QVERIFY(lastNull);
        QCOMPARE(order.join(QLatin1Char(',')), QStringLiteral("id,n,f,neg,s,skip,last"));
    }

    // Strings are scanned eight bytes a step: a stop ('"', '\\', a control character) must be found
    // wherever it falls in a step, and bytes of 0x80 and above next to it must neither hide nor fake one.
    void stringStopsAnywhereInAStep_data()
    {
        QTest::addColumn<QByteArray>("middle");
        QTest::newRow("nothing") << QByteArray();
        QTest::newRow("escape") << QByteArray("\\n");
        QTest::newRow("escaped quote") << QByteArray("\\\"");
        QTest::newRow("unicode escape") << QByteArray("\\u00e9");
        QTest::newRow("raw utf-8") << QByteArray(
            "\xC3\xA9\xE2\x80\x9C\xC2\xA2\xDC\x80"); // é “ ¢ ܀: 0xA2, 0xDC are '"', '\\' with the high bit set
        QTest::newRow("control character") << QByteArray("\x01");
        QTest::newRow("unit separator") << QByteArray("\x1f");
        QTest::newRow("tab") << QByteArray("\t");
    }

    void stringStopsAnywhereInAStep()
    {
        QFETCH(QByteArray, middle);
        for (int before = 0; before <= 17; ++before) {
            for (int after = 0; after <= 17; ++after) {
                const QByteArray content = QByteArray(before, 'a') + middle + QByteArray(after, 'b');
                const QByteArray json = "\"" + content + "\" ";
                JsonCursor c(std::string_view(json.constData(), std::size_t(json.size())));
                std::string_view raw;
                const bool ok = c.string(&raw) && c.atEnd();
                const QByteArray where = middle.toPercentEncoding() + " after " + QByteArray::number(before);
                QVERIFY2(ok == nlohmann::json::accept(json.constData(), json.constData() + json.size()),
                         where.constData());
                if (ok)
                    QCOMPARE(QByteArray(raw.data(), qsizetype(raw.size())), content);
                // Without its closing quote the same string is malformed, wherever the text ends.
                JsonCursor open(std::string_view(json.constData(), std::size_t(json.size() - 2)));
                QVERIFY2(!open.string(), where.constData());
            }
        }
    }

    void decodingMatchesAReferenceParser_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::newRow("plain") << QByteArray("hello world");
        QTest::newRow("simple escapes") << QByteArray("line\\nnext\\ttab \\\"q\\\" \\\\ \\/");
        QTest::newRow("bmp escapes") << QByteArray("caf\\u00e9 \\u4e2d\\u6587");
        QTest::newRow("surrogate pair") << QByteArray("smile \\ud83d\\ude00!");
        QTest::newRow("raw utf-8") << QByteArray("naïve 吞吐");
        QTest::newRow("lone high surrogate") << QByteArray("x\\ud83dy");
        QTest::newRow("lone low surrogate") << QByteArray("x\\ude00y");
    }

    void decodingMatchesAReferenceParser()
    {
        QFETCH(QByteArray, raw);
        const std::string rawText(raw.constData(), std::size_t(raw.size()));
        std::string decoded;
        JsonCursor::decode(rawText, decoded);
        QCOMPARE(JsonCursor::decodedSize(rawText), decoded.size());
        const nlohmann::json reference = nlohmann::json::parse("\"" + rawText + "\"", nullptr, false);
        if (!reference.is_discarded()) // nlohmann rejects lone surrogates; we substitute U+FFFD
            QCOMPARE(decoded, reference.get<std::string>());
        else
            QVERIFY(decoded.find("\xEF\xBF\xBD") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestJsonCursor)
#include "tst_jsoncursor.moc"
