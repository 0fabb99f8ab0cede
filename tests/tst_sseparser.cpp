#include "net/sseparser.h"

#include <QTest>

using tb::SseParser;

namespace {

/// "event|data" per dispatched event.
QStringList parseAll(const QByteArray &stream, const QList<int> &cuts)
{
    SseParser parser;
    QStringList events;
    const auto onEvent = [&events](std::string_view event, std::string_view data) {
        events << QString::fromUtf8(event.data(), qsizetype(event.size())) + QLatin1Char('|') +
                      QString::fromUtf8(data.data(), qsizetype(data.size()));
    };
    // Each piece is fed from one read buffer, overwritten after the call as a socket's is: the
    // parser must not keep views of bytes it was fed.
    QByteArray read;
    const auto feed = [&](int from, int to) {
        read = QByteArray(stream.constData() + from, to - from); // a copy of its own, filled in place below
        parser.feed(read.constData(), std::size_t(read.size()), onEvent);
        read.fill('#');
    };
    int from = 0;
    for (int cut : cuts) {
        feed(from, cut);
        from = cut;
    }
    feed(from, int(stream.size()));
    return events;
}

} // namespace

class TestSseParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void events_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addColumn<QStringList>("expected");

        QTest::newRow("openai") << QByteArray("data: {\"a\":1}\n\ndata: [DONE]\n\n")
                                << QStringList{QStringLiteral("|{\"a\":1}"), QStringLiteral("|[DONE]")};
        QTest::newRow("crlf") << QByteArray("data: x\r\n\r\ndata: y\r\n\r\n")
                              << QStringList{QStringLiteral("|x"), QStringLiteral("|y")};
        QTest::newRow("bare cr") << QByteArray("data: x\r\rdata: y\r\r")
                                 << QStringList{QStringLiteral("|x"), QStringLiteral("|y")};
        QTest::newRow("mixed endings") << QByteArray("data: a\r\n\ndata: b\n\r\n")
                                       << QStringList{QStringLiteral("|a"), QStringLiteral("|b")};
        QTest::newRow("comments and keep-alives")
            << QByteArray(": ping\n\n: OPENROUTER PROCESSING\ndata: x\n\n") << QStringList{QStringLiteral("|x")};
        QTest::newRow("multi-line data") << QByteArray("data: one\ndata: two\ndata:three\n\n")
                                         << QStringList{QStringLiteral("|one\ntwo\nthree")};
        QTest::newRow("anthropic events")
            << QByteArray("event: message_start\ndata: {}\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\n")
            << QStringList{QStringLiteral("message_start|{}"), QStringLiteral("ping|{\"type\": \"ping\"}")};
        QTest::newRow("event type resets") << QByteArray("event: error\ndata: e\n\ndata: m\n\n")
                                           << QStringList{QStringLiteral("error|e"), QStringLiteral("|m")};
        QTest::newRow("no space after colon") << QByteArray("data:x\n\n") << QStringList{QStringLiteral("|x")};
        QTest::newRow("only one space stripped") << QByteArray("data:  x\n\n") << QStringList{QStringLiteral("| x")};
        QTest::newRow("empty data dispatches") << QByteArray("data\n\n") << QStringList{QStringLiteral("|")};
        QTest::newRow("id and retry ignored")
            << QByteArray("id: 7\nretry: 10\ndata: x\n\n") << QStringList{QStringLiteral("|x")};
        QTest::newRow("unterminated event dropped")
            << QByteArray("data: x\n\ndata: partial") << QStringList{QStringLiteral("|x")};
        QTest::newRow("blank lines without data") << QByteArray("\n\n\nevent: x\n\n") << QStringList{};
        QTest::newRow("utf-8 bom") << QByteArray("\xEF\xBB\xBF"
                                                 "data: x\n\n")
                                   << QStringList{QStringLiteral("|x")};
        QTest::newRow("utf-8 payload") << QByteArray("data: {\"c\":\"吞吐\"}\n\n")
                                       << QStringList{QStringLiteral("|{\"c\":\"吞吐\"}")};
    }

    void events()
    {
        QFETCH(QByteArray, stream);
        QFETCH(QStringList, expected);
        QCOMPARE(parseAll(stream, {}), expected);
    }

    // Reads are arbitrary: every split point, and byte-at-a-time, must give the same events.
    void splitAnywhere_data() { events_data(); }

    void splitAnywhere()
    {
        QFETCH(QByteArray, stream);
        QFETCH(QStringList, expected);
        for (int cut = 1; cut < stream.size(); ++cut)
            QVERIFY2(parseAll(stream, {cut}) == expected, qPrintable(QStringLiteral("split at %1").arg(cut)));
        QList<int> everyByte;
        for (int i = 1; i < stream.size(); ++i)
            everyByte << i;
        QCOMPARE(parseAll(stream, everyByte), expected);
    }

    void endlessLineOrEventIsBounded_data()
    {
        QTest::addColumn<QByteArray>("piece");
        QTest::addColumn<QString>("error");
        // Regression: a stream without a line break grew without bound (256 MiB in, 513 MiB RSS).
        QTest::newRow("no line break") << QByteArray(2048, 'x') << QStringLiteral("SSE line exceeds 1048576 bytes");
        QTest::newRow("data line without break")
            << QByteArray("data: ") + QByteArray(2042, 'x') << QStringLiteral("SSE line exceeds 1048576 bytes");
        QTest::newRow("one endless event") << QByteArray("data: ") + QByteArray(2041, 'x') + '\n'
                                           << QStringLiteral("SSE event exceeds 1048576 bytes");
    }

    void endlessLineOrEventIsBounded()
    {
        QFETCH(QByteArray, piece);
        QFETCH(QString, error);
        SseParser parser;
        int events = 0;
        std::size_t fed = 0;
        while (!parser.error() && fed < 4 * SseParser::kMaxBytes) {
            parser.feed(piece.constData(), std::size_t(piece.size()),
                        [&events](std::string_view, std::string_view) { ++events; });
            fed += std::size_t(piece.size());
        }
        QVERIFY(parser.error());
        QCOMPARE(QString::fromLatin1(parser.error()), error);
        QVERIFY2(fed < SseParser::kMaxBytes * 11 / 10,
                 qPrintable(QString::number(fed))); // stopped near the cap, not at the 4 MiB fed
        QCOMPARE(events, 0);
        // Once stopped it reads nothing more, not even a well-formed event.
        parser.feed("\n\ndata: x\n\n", 12, [&events](std::string_view, std::string_view) { ++events; });
        QCOMPARE(events, 0);
        parser.reset();
        parser.feed("data: x\n\n", 9, [&events](std::string_view, std::string_view) { ++events; });
        QCOMPARE(events, 1);
    }

    void eventJustUnderTheLimitPasses()
    {
        SseParser parser;
        const QByteArray stream = "data: " + QByteArray(int(SseParser::kMaxBytes) - 16, 'y') + "\n\n";
        std::size_t size = 0;
        for (qsizetype from = 0; from < stream.size(); from += 2048)
            parser.feed(stream.constData() + from, std::size_t(std::min<qsizetype>(2048, stream.size() - from)),
                        [&size](std::string_view, std::string_view data) { size = data.size(); });
        QVERIFY(!parser.error());
        QCOMPARE(size, SseParser::kMaxBytes - 16);
    }

    void crlfSplitAcrossReadsIsOneLineEnd()
    {
        // Regression guard: "\r" at the end of one read and "\n" at the start of the next are one
        // line ending, not an empty line that would end the event early.
        const QByteArray stream("data: a\r\ndata: b\r\n\r\n");
        QCOMPARE(parseAll(stream, {8}), QStringList{QStringLiteral("|a\nb")});
    }
};

QTEST_GUILESS_MAIN(TestSseParser)
#include "tst_sseparser.moc"
