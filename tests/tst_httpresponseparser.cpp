#include "engine/httpresponseparser.h"

#include <QTest>

using tb::HttpResponseParser;

namespace {

struct Parsed {
    HttpResponseParser::Result result = HttpResponseParser::Result::NeedMore;
    int status = 0;
    QByteArray contentType;
    double retryAfter = -1;
    bool keepAlive = false;
    QByteArray body;
    int heads = 0;
    std::size_t leftover = 0;
};

Parsed parse(const QByteArray &bytes, int chunk)
{
    HttpResponseParser parser;
    Parsed p;
    for (int from = 0; from < bytes.size(); from += chunk) {
        const int n = std::min<int>(chunk, int(bytes.size()) - from);
        std::size_t consumed = 0;
        p.result = parser.feed(
            bytes.constData() + from, std::size_t(n), &consumed,
            [&p](const tb::ResponseHead &head) {
                ++p.heads;
                p.status = head.status;
                p.contentType = head.contentType;
                p.retryAfter = head.retryAfterS;
                p.keepAlive = head.keepAlive;
            },
            [&p](const char *data, std::size_t size) { p.body.append(data, qsizetype(size)); });
        if (p.result != HttpResponseParser::Result::NeedMore) {
            p.leftover = std::size_t(n) - consumed + std::size_t(bytes.size() - from - n);
            break;
        }
    }
    return p;
}

} // namespace

class TestHttpResponseParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void responses_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("complete");

        QTest::newRow("content-length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
                                        << 200 << QByteArray("{}") << true;
        QTest::newRow("chunked sse")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "7\r\ndata: x\r\n3;ext=1\r\n\n\n\n\r\n0\r\n\r\n")
            << 200 << QByteArray("data: x\n\n\n") << true;
        QTest::newRow("chunked with trailers") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\nX-T: 1\r\n\r\n")
                                               << 200 << QByteArray("a") << true;
        QTest::newRow("interim 100 continue") << QByteArray("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nz")
                                              << 201 << QByteArray("z") << true;
        QTest::newRow("empty body") << QByteArray("HTTP/1.1 204 No Content\r\n\r\n") << 204 << QByteArray() << true;
        QTest::newRow("until close") << QByteArray("HTTP/1.0 200 OK\r\n\r\npartial") << 200 << QByteArray("partial") << false;
        QTest::newRow("bare LF headers") << QByteArray("HTTP/1.1 429 Too Many\nRetry-After: 7\nContent-Length: 0\n\n") << 429 << QByteArray() << true;
    }

    void responses()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, status);
        QFETCH(QByteArray, body);
        QFETCH(bool, complete);
        for (int chunk : {1, 2, 3, 7, 4096}) {
            const Parsed p = parse(bytes, chunk);
            QCOMPARE(p.status, status);
            QCOMPARE(p.heads, 1);
            QCOMPARE(p.body, body);
            QCOMPARE(p.result == HttpResponseParser::Result::Complete, complete);
        }
    }

    void headFields()
    {
        const Parsed p = parse("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2.5\r\nConnection: close\r\n"
                               "content-type: Application/JSON; charset=utf-8\r\nContent-Length: 0\r\n\r\n",
                               5);
        QCOMPARE(p.retryAfter, 2.5);
        QCOMPARE(p.keepAlive, false);
        QCOMPARE(p.contentType, QByteArray("application/json"));
    }

    void stopsAtMessageEnd()
    {
        const Parsed p = parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA", 4096);
        QCOMPARE(p.result, HttpResponseParser::Result::Complete);
        QCOMPARE(p.leftover, std::size_t(5));
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("error");
        QTest::newRow("html instead of http") << QByteArray("<html>\r\n") << QStringLiteral("not an HTTP response");
        QTest::newRow("bad status") << QByteArray("HTTP/1.1 abc\r\n") << QStringLiteral("bad HTTP status");
        QTest::newRow("bad chunk size") << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n")
                                        << QStringLiteral("malformed chunk size");
        QTest::newRow("bad content-length") << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n")
                                            << QStringLiteral("bad Content-Length");
        QTest::newRow("header without colon") << QByteArray("HTTP/1.1 200 OK\r\nnonsense\r\n\r\n") << QStringLiteral("malformed header");
    }

    void malformed()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, error);
        HttpResponseParser parser;
        const auto result = parser.feed(bytes.constData(), std::size_t(bytes.size()), nullptr, [](const tb::ResponseHead &) {},
                                        [](const char *, std::size_t) {});
        QCOMPARE(result, HttpResponseParser::Result::Error);
        QVERIFY2(QString::fromStdString(parser.errorText()).contains(error), parser.errorText().c_str());
    }
};

QTEST_GUILESS_MAIN(TestHttpResponseParser)
#include "tst_httpresponseparser.moc"
