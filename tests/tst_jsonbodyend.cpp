// JsonBodyEnd: a JSON body is complete when its value closes and the bytes so far are that value,
// however the body is cut into reads.
#include "net/jsonbodyend.h"

#include <QTest>

#include <string>

using tb::JsonBodyEnd;

class TestJsonBodyEnd : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void completeWhenItsValueCloses_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("complete");
        QTest::newRow("object") << QByteArray("{\"id\":\"x\",\"n\":1}") << true;
        QTest::newRow("white space around") << QByteArray(" \r\n{\"a\":1}\n") << true;
        QTest::newRow("nested") << QByteArray("{\"a\":[1,[2,{\"x\":[]}]],\"b\":{}}") << true;
        QTest::newRow("array") << QByteArray("[1,2]") << true;
        QTest::newRow("brackets in a string") << QByteArray("{\"a\":\"}]{[\"}") << true;
        QTest::newRow("escaped quote") << QByteArray("{\"a\":\"\\\"}\"}") << true;
        QTest::newRow("escaped backslash") << QByteArray("{\"a\":\"\\\\\"}") << true;
        QTest::newRow("unicode escape of a brace") << QByteArray("{\"a\":\"\\u007d\"}") << true;
        QTest::newRow("not closed yet") << QByteArray("{\"a\":[1,2") << false;
        QTest::newRow("closed, not JSON") << QByteArray("{\"a\":tru}") << false;
        QTest::newRow("html") << QByteArray("<html>{}</html>") << false;
        QTest::newRow("a bare number") << QByteArray("42") << false;
        QTest::newRow("empty") << QByteArray() << false;
    }

    void completeWhenItsValueCloses()
    {
        QFETCH(QByteArray, body);
        QFETCH(bool, complete);
        const std::string whole = body.toStdString();
        // Whole, cut once anywhere, and a byte at a time: the same verdict, and once complete it stays.
        for (std::size_t cut = 0; cut <= whole.size(); ++cut) {
            JsonBodyEnd end;
            const bool first = end.feed(std::string_view(whole).substr(0, cut), cut);
            const bool last = end.feed(whole, whole.size() - cut);
            QVERIFY2(!first || last, qPrintable(QStringLiteral("cut at %1").arg(cut)));
            QVERIFY2(last == complete, qPrintable(QStringLiteral("cut at %1").arg(cut)));
        }
        JsonBodyEnd end;
        bool verdict = false;
        for (std::size_t n = 1; n <= whole.size(); ++n)
            verdict = end.feed(std::string_view(whole).substr(0, n), 1);
        QCOMPARE(verdict, complete);
    }

    // The verdict is taken when the value closes, on the bytes that have come by then: what the
    // same read brings after the value counts, a later read's is the HTTP body's to end.
    void whatFollowsTheValue_data()
    {
        QTest::addColumn<QByteArrayList>("pieces");
        QTest::addColumn<bool>("complete");
        QTest::newRow("white space in the same read") << QByteArrayList{"{\"a\":1} \r\n"} << true;
        QTest::newRow("bytes in the same read") << QByteArrayList{"{\"a\":1}x"} << false;
        QTest::newRow("a second value in the same read") << QByteArrayList{"{\"a\":1}{\"b\":2}"} << false;
        QTest::newRow("bytes in a later read") << QByteArrayList{"{\"a\":1}", "x"} << true;
    }

    void whatFollowsTheValue()
    {
        QFETCH(QByteArrayList, pieces);
        QFETCH(bool, complete);
        JsonBodyEnd end;
        std::string body;
        bool verdict = false;
        for (const QByteArray &piece : pieces) {
            body += piece.toStdString();
            verdict = end.feed(body, std::size_t(piece.size()));
        }
        QCOMPARE(verdict, complete);
    }

    void notCompleteBeforeItsLastByte()
    {
        const std::string body = "{\"choices\":[{\"message\":{\"content\":\"a } b\"}}]}";
        JsonBodyEnd end;
        for (std::size_t n = 1; n < body.size(); ++n)
            QVERIFY2(!end.feed(std::string_view(body).substr(0, n), 1), qPrintable(QString::number(n)));
        QVERIFY(end.feed(body, 1));
    }
};

QTEST_GUILESS_MAIN(TestJsonBodyEnd)
#include "tst_jsonbodyend.moc"
