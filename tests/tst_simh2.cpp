// The simulator's HTTP/2 (h2c by prior knowledge, on the HTTP/1.1 port): every route through
// curl --http2-prior-knowledge, many streams on one connection and RST_STREAM through node's http2
// client (tests/data/h2client.mjs), our own qnam transport with --http2 at concurrency 200, and
// hostile framing on a raw socket. curl and node are independent clients; each test that needs one
// skips visibly without it.
#include "sim/simulatorhost.h"
#include "support/loadrun.h"
#include "support/testsimulator.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpSocket>
#include <QTest>

#include <algorithm>

using namespace Qt::Literals::StringLiterals;

using namespace tb;
using namespace tb::sim;

namespace {

const QByteArray kPreface("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

QByteArray frame(quint8 type, quint8 flags, quint32 stream, const QByteArray &payload, quint32 length)
{
    QByteArray f;
    f.append(char(length >> 16)).append(char(length >> 8)).append(char(length));
    f.append(char(type)).append(char(flags));
    f.append(char(stream >> 24)).append(char(stream >> 16)).append(char(stream >> 8)).append(char(stream));
    return f + payload;
}

/// An HPACK string as a literal: 7-bit prefix length, no Huffman coding.
QByteArray hpackLiteral(const QByteArray &text)
{
    QByteArray out;
    quint32 n = quint32(text.size());
    if (n < 127) {
        out.append(char(n));
    } else {
        out.append(char(127));
        for (n -= 127; n >= 128; n >>= 7)
            out.append(char((n & 0x7f) | 0x80));
        out.append(char(n));
    }
    return out + text;
}

QByteArray frame(quint8 type, quint8 flags, quint32 stream, const QByteArray &payload = {})
{
    return frame(type, flags, stream, payload, quint32(payload.size()));
}

/// Writes `bytes`, then (when `stop` is set) stops the host once the server has answered
/// something; returns all the server sent until it closed the connection.
QByteArray exchangeRaw(SimulatorHost &host, const QByteArray &bytes, bool stop = false)
{
    QTcpSocket socket;
    socket.connectToHost(QHostAddress(QHostAddress::LocalHost), host.port());
    if (!socket.waitForConnected(10000))
        return {};
    socket.write(bytes);
    QByteArray got;
    if (stop) {
        while (got.isEmpty() && socket.waitForReadyRead(10000))
            got += socket.readAll();
        host.stop();
    }
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(10000))
        got += socket.readAll();
    got += socket.readAll();
    return got;
}

/// The frame types of an HTTP/2 byte stream, with the error code of the GOAWAY if any.
QList<int> frameTypes(const QByteArray &bytes, quint32 *goawayError = nullptr)
{
    QList<int> types;
    qsizetype pos = 0;
    while (pos + 9 <= bytes.size()) {
        const auto u = [&](qsizetype i) { return quint32(quint8(bytes[pos + i])); };
        const quint32 length = (u(0) << 16) | (u(1) << 8) | u(2);
        types.append(int(u(3)));
        if (u(3) == 7 && goawayError && pos + 9 + 8 <= bytes.size())
            *goawayError = (u(13) << 24) | (u(14) << 16) | (u(15) << 8) | u(16);
        pos += 9 + qsizetype(length);
    }
    return types;
}

struct Frame {
    int type;
    int flags;
    quint32 stream;
    qsizetype length;
};

QList<Frame> frames(const QByteArray &bytes)
{
    QList<Frame> list;
    qsizetype pos = 0;
    while (pos + 9 <= bytes.size()) {
        const auto u = [&](qsizetype i) { return quint32(quint8(bytes[pos + i])); };
        const qsizetype length = qsizetype((u(0) << 16) | (u(1) << 8) | u(2));
        if (pos + 9 + length > bytes.size())
            break;
        list.append({int(u(3)), int(u(4)), ((u(5) & 0x7f) << 24) | (u(6) << 16) | (u(7) << 8) | u(8), length});
        pos += 9 + length;
    }
    return list;
}

/// Bytes of DATA the server sent on `stream`, and whether it ended the stream.
qsizetype dataOn(const QByteArray &bytes, quint32 stream, bool *ended)
{
    qsizetype total = 0;
    *ended = false;
    for (const Frame &f : frames(bytes)) {
        if (f.type == 0 && f.stream == stream) {
            total += f.length;
            *ended = *ended || (f.flags & 1);
        }
    }
    return total;
}

QByteArray u32(quint32 v)
{
    QByteArray b;
    b.append(char(v >> 24)).append(char(v >> 16)).append(char(v >> 8)).append(char(v));
    return b;
}

SimConfig quickSim()
{
    SimConfig c = *SimConfig::preset(QStringLiteral("fast"));
    c.model = QStringLiteral("default"); // the name the curl and node requests ask for
    c.maxBatch = 1024;
    c.queueLimit = 4096;
    return c;
}

QJsonObject runNodeClient(quint16 port, int streams, int cancel)
{
    QProcess node;
    node.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    node.start(QStringLiteral(TOKENBENCH_NODE),
               {QStringLiteral(TOKENBENCH_TESTDATA "/h2client.mjs"), QString::number(port), QString::number(streams),
                QString::number(cancel)});
    if (!node.waitForStarted() || !node.waitForFinished(120000))
        return {};
    return QJsonDocument::fromJson(node.readAllStandardOutput().trimmed()).object();
}

} // namespace

class TestSimH2 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyRouteOverCurlPriorKnowledge_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("contains");
        const QByteArray chat(R"({"model":"default","messages":[{"role":"user","content":"hi"}],"stream":true})");
        QTest::newRow("chat completions, streaming")
            << "/v1/chat/completions" << chat << 200 << QByteArray("data: [DONE]");
        QTest::newRow("completions") << "/v1/completions"
                                     << QByteArray(R"({"model":"default","prompt":"hi","max_tokens":4})") << 200
                                     << QByteArray(R"("object":"text_completion")");
        QTest::newRow("responses, streaming")
            << "/v1/responses" << QByteArray(R"({"model":"default","input":"hi","stream":true})") << 200
            << QByteArray("event: response.completed");
        QTest::newRow("messages, streaming")
            << "/v1/messages"
            << QByteArray(
                   R"({"model":"default","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]})")
            << 200 << QByteArray("event: message_stop");
        QTest::newRow("models") << "/v1/models" << QByteArray() << 200 << QByteArray(R"("id":"default")");
        QTest::newRow("metrics") << "/metrics" << QByteArray() << 200 << QByteArray("vllm:num_requests_running");
        QTest::newRow("sim stats") << "/sim/stats" << QByteArray() << 200 << QByteArray(R"("h2_connections":)");
        QTest::newRow("tokenize") << "/tokenize" << QByteArray(R"({"model":"default","prompt":"hello world"})") << 200
                                  << QByteArray(R"("count":)");
        QTest::newRow("unknown path") << "/nowhere" << QByteArray() << 404 << QByteArray("Unknown path");
        QTest::newRow("wrong method") << "/v1/chat/completions" << QByteArray() << 405 << QByteArray("use POST");
    }

    void everyRouteOverCurlPriorKnowledge()
    {
        QFETCH(QString, path);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QByteArray, contains);
        const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
        if (curl.isEmpty())
            QSKIP("curl not found (Debian: curl): the simulator's h2c is not checked with curl");
        auto host = test::startSimulator(quickSim());
        QVERIFY(host);
        QProcess process;
        QStringList args{QStringLiteral("--http2-prior-knowledge"), QStringLiteral("-sS"), QStringLiteral("-w"),
                         QStringLiteral("\n%{http_version} %{http_code}")};
        if (!body.isEmpty())
            args << QStringLiteral("-H") << QStringLiteral("content-type: application/json")
                 << QStringLiteral("--data-binary") << QString::fromUtf8(body);
        args << QStringLiteral("http://127.0.0.1:%1%2").arg(host->port()).arg(path);
        process.start(curl, args);
        QVERIFY(process.waitForFinished(30000));
        const QByteArray out = process.readAllStandardOutput();
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QByteArray tail = out.mid(out.lastIndexOf('\n') + 1);
        QCOMPARE(tail, QByteArray("2 ") + QByteArray::number(status));
        QVERIFY2(out.contains(contains), out.left(400).constData());
        QCOMPARE(host->stats().h2Connections, qint64(1));
    }

    void oversizedHeaderListGets431()
    {
        // A client that does not wait for the server's SETTINGS (so nghttp2 enforces no header
        // list size yet) sends seven 10 KB fields: over the 64 KB an HTTP/1.1 head may have.
        QByteArray block;
        const auto field = [&block](const QByteArray &name, const QByteArray &value) {
            block += char(0) + hpackLiteral(name) + hpackLiteral(value); // literal, new name, not indexed
        };
        field(":method", "GET");
        field(":scheme", "http");
        field(":authority", "127.0.0.1");
        field(":path", "/v1/models");
        for (int i = 0; i < 7; ++i)
            field("x-big-" + QByteArray::number(i), QByteArray(10000, 'a'));
        QByteArray bytes = kPreface + frame(4, 0, 0);
        for (qsizetype at = 0; at < block.size(); at += 16384) {
            const bool first = at == 0;
            const bool last = at + 16384 >= block.size();
            bytes += frame(first ? 1 : 9, quint8((first ? 1 : 0) | (last ? 4 : 0)), 1, block.mid(at, 16384));
        }
        auto host = test::startSimulator(quickSim());
        QVERIFY(host);
        QTcpSocket socket;
        socket.connectToHost(QHostAddress(QHostAddress::LocalHost), host->port());
        QVERIFY(socket.waitForConnected(10000));
        socket.write(bytes);
        QTRY_COMPARE_WITH_TIMEOUT(host->stats().rejections.value(431), qint64(1), 10000);
        QCOMPARE(host->stats().h2Connections, qint64(1));
    }

    void manyStreamsOnOneConnectionAndResets_data()
    {
        QTest::addColumn<int>("streams");
        QTest::addColumn<int>("cancel");
        QTest::newRow("200 streams") << 200 << 0;
        QTest::newRow("100 streams, 10 reset after their first event") << 100 << 10;
    }

    void manyStreamsOnOneConnectionAndResets()
    {
#ifndef TOKENBENCH_NODE
        QSKIP("node not found (Debian: nodejs): the simulator's h2c is not checked with node's http2 client");
#else
        QFETCH(int, streams);
        QFETCH(int, cancel);
        SimConfig config = quickSim();
        config.ttftMs = 500; // every stream is in flight at once, also on a loaded machine
        config.outputTokens = 40;
        config.outputDist = OutputDistribution::Fixed;
        config.stepMs = 20;
        auto host = test::startSimulator(config);
        QVERIFY(host);
        const QJsonObject result = runNodeClient(host->port(), streams, cancel);
        QVERIFY2(!result.isEmpty(), "the node client printed no result");
        QVERIFY2(result.value(u"errors"_s).toArray().isEmpty(),
                 QJsonDocument(result.value(u"errors"_s).toArray()).toJson().constData());
        QCOMPARE(result.value(u"maxConcurrentStreams"_s).toInt(), 1000);
        QCOMPARE(result.value(u"ok"_s).toInt(), streams - cancel);
        QCOMPARE(result.value(u"cancelled"_s).toInt(), cancel);
        // The server's view: all streams at once over a single connection.
        const SimStats stats = host->stats();
        QCOMPARE(stats.peakConcurrentRequests, qint64(streams));
        QCOMPARE(stats.peakOpenConnections, qint64(1));
        QCOMPARE(stats.h2Connections, qint64(1));
        // A reset stream stops its generation as a closed HTTP/1.1 connection does.
        QTRY_COMPARE_WITH_TIMEOUT(host->stats().requestsInProgress, qint64(0), 10000);
        QCOMPARE(host->stats().clientDisconnects, qint64(cancel));
        QCOMPARE(host->stats().requestsServed, qint64(streams - cancel));
        // The stamps are taken when the kernel has the bytes: never after a client read them.
        const QJsonObject arrivals = result.value(u"arrivals"_s).toObject();
        QCOMPARE(arrivals.size(), streams - cancel);
        int ok = 0;
        int closed = 0;
        for (const RequestTrace &t : host->requests()) {
            if (t.outcome == QLatin1String("client_closed")) {
                ++closed;
                QVERIFY(t.completionTokens < 40);
                continue;
            }
            QCOMPARE(t.outcome, QStringLiteral("ok"));
            ++ok;
            QCOMPARE(t.completionTokens, qint64(40));
            QVERIFY(t.receivedNs > 0);
            QVERIFY(t.receivedNs <= t.headersNs);
            QVERIFY(t.headersNs <= t.firstTokenNs);
            QVERIFY(t.firstTokenNs <= t.lastTokenNs);
            QVERIFY(t.lastTokenNs <= t.doneNs);
            QVERIFY(t.firstTokenNs - t.receivedNs >= qint64(500'000'000));
            const QJsonArray seen = arrivals.value(t.id).toArray();
            QCOMPARE(seen.size(), 2);
            QVERIFY(t.headersNs <= seen[0].toString().toLongLong());
            QVERIFY(t.doneNs <= seen[1].toString().toLongLong());
        }
        QCOMPARE(ok, streams - cancel);
        QCOMPARE(closed, cancel);
#endif
    }

    void maxStreamsRefusesTheExcess()
    {
#ifndef TOKENBENCH_NODE
        QSKIP("node not found (Debian: nodejs): SETTINGS_MAX_CONCURRENT_STREAMS is not checked");
#else
        SimConfig config = quickSim();
        config.maxStreams = 2;
        config.ttftMs = 300;
        auto host = test::startSimulator(config);
        QVERIFY(host);
        const QJsonObject result = runNodeClient(host->port(), 6, 0);
        QCOMPARE(result.value(u"maxConcurrentStreams"_s).toInt(), 2);
        // Node opens all six before it reads the limit: the server refuses the excess (REFUSED_STREAM,
        // safe to retry) and never serves more than two at once.
        QVERIFY(result.value(u"ok"_s).toInt() >= 2);
        for (const QJsonValue &e : result.value(u"errors"_s).toArray())
            QVERIFY2(e.toString().contains(u"REFUSED_STREAM"_s), qPrintable(e.toString()));
        QCOMPARE(host->stats().peakConcurrentRequests, qint64(2));
#endif
    }

    void qnamHttp2ReachesConcurrency200OverFewConnections()
    {
        SimConfig simConfig = quickSim();
        simConfig.ttftMs = 500;
        auto host = test::startSimulator(simConfig);
        QVERIFY(host);
        constexpr int kConcurrency = 200;
        RunConfig config;
        config.target = test::targetOf(*host, QStringLiteral("sim"));
        config.target.transport = TransportKind::Qnam;
        config.target.httpVersion = HttpVersion::Http2;
        config.load.concurrency = kConcurrency;
        config.load.requests = kConcurrency * 2;
        config.load.timeoutMs = 60000;
        config.request.maxTokens = 16;
        config.prompt.promptTokens = 16;
        const test::LoadRun run = test::runLoad(config);
        QVERIFY(run.finished);
        const std::vector<RequestRecord> &records = run.records;
        QCOMPARE(int(records.size()), kConcurrency * 2);
        for (const RequestRecord &r : records) {
            QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            QCOMPARE(r.httpVersion, 2);
        }
        // The wire: 200 requests at once, carried by a handful of HTTP/2 connections (QNAM opens
        // one per 100 streams per worker), so streams per connection are many.
        const SimStats stats = host->stats();
        QCOMPARE(stats.peakConcurrentRequests, qint64(kConcurrency));
        QVERIFY2(stats.peakOpenConnections <= 8, qPrintable(QString::number(stats.peakOpenConnections)));
        QVERIFY(stats.h2Connections >= 1 && stats.h2Connections <= 8);
    }

    void hostileFramingIsClosedCleanly_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<int>("goawayError");
        const QByteArray settings = frame(4, 0, 0);
        QTest::newRow("a frame over SETTINGS_MAX_FRAME_SIZE")
            << kPreface + settings + frame(0, 0, 1, QByteArray(16385, 'x')) << 6; // FRAME_SIZE_ERROR
        QTest::newRow("HEADERS on stream 0")
            << kPreface + settings + frame(1, 5, 0, QByteArray(4, 'x')) << 1; // PROTOCOL_ERROR
        QTest::newRow("a header block that is not HPACK")
            << kPreface + settings + frame(1, 5, 1, QByteArray(8, char(0xff))) << 9; // COMPRESSION_ERROR
        QTest::newRow("no SETTINGS first") << kPreface + frame(6, 0, 0, QByteArray(8, 'p')) << 1;
    }

    void hostileFramingIsClosedCleanly()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(int, goawayError);
        auto host = test::startSimulator(quickSim());
        QVERIFY(host);
        const QByteArray got = exchangeRaw(*host, bytes);
        quint32 error = 0xffffffff;
        const QList<int> types = frameTypes(got, &error);
        QVERIFY2(types.contains(7), qPrintable(QString::number(got.size())));
        QCOMPARE(int(error), goawayError);
        // The server goes on serving others.
        QTRY_COMPARE_WITH_TIMEOUT(host->stats().openConnections, qint64(0), 10000);
        QVERIFY(exchangeRaw(*host, "GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").contains("200 OK"));
    }

    void flowControlHoldsDataToTheClientsWindow()
    {
        // The client allows 1000 bytes per stream; /metrics is several times that.
        QByteArray block;
        for (const auto &[name, value] : {std::pair<QByteArray, QByteArray>{":method", "GET"},
                                          {":scheme", "http"},
                                          {":authority", "127.0.0.1"},
                                          {":path", "/metrics"}})
            block += char(0) + hpackLiteral(name) + hpackLiteral(value);
        const QByteArray windowSetting = QByteArray::fromHex("0004") + u32(1000); // SETTINGS_INITIAL_WINDOW_SIZE
        auto host = test::startSimulator(quickSim());
        QVERIFY(host);
        QTcpSocket socket;
        socket.connectToHost(QHostAddress(QHostAddress::LocalHost), host->port());
        QVERIFY(socket.waitForConnected(10000));
        socket.write(kPreface + frame(4, 0, 0, windowSetting) + frame(1, 5, 1, block));
        QByteArray got;
        bool ended = false;
        QVERIFY(QTest::qWaitFor(
            [&] {
                got += socket.readAll();
                return dataOn(got, 1, &ended) >= 1000;
            },
            10000));
        // Nothing beyond the window comes, however long the server has to send it.
        while (socket.waitForReadyRead(500))
            got += socket.readAll();
        QCOMPARE(dataOn(got, 1, &ended), qsizetype(1000));
        QVERIFY(!ended);
        socket.write(frame(8, 0, 1, u32(1 << 20))); // WINDOW_UPDATE for the stream
        QVERIFY(QTest::qWaitFor(
            [&] {
                got += socket.readAll();
                dataOn(got, 1, &ended);
                return ended;
            },
            10000));
        QVERIFY(dataOn(got, 1, &ended) > 1000);
    }

    void shutdownSendsGoaway()
    {
        auto host = test::startSimulator(quickSim());
        QVERIFY(host);
        quint32 error = 0xffffffff;
        const QList<int> types = frameTypes(exchangeRaw(*host, kPreface + frame(4, 0, 0), true), &error);
        QVERIFY(types.contains(4)); // the server's SETTINGS
        QVERIFY(types.contains(7));
        QCOMPARE(error, quint32(0)); // NO_ERROR
    }
};

QTEST_GUILESS_MAIN(TestSimH2)
#include "tst_simh2.moc"
