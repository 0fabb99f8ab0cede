// HTTP/2 end to end: both transports against node's http2 module (tests/data/h2server.mjs), in
// clear by prior knowledge (--http2) and over TLS by ALPN; the wire's own count of concurrent
// streams and sessions proves the load reached the server multiplexed.
#include "client/loadcontroller.h"

#include <QProcess>
#include <QScopeGuard>
#include <QSslSocket>
#include <QTest>

#include <algorithm>
#include <set>

using namespace tb;

class TestHttp2 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void streamsOverHttp2_data()
    {
        QTest::addColumn<bool>("tls");
        QTest::addColumn<int>("transport");
        QTest::addColumn<int>("version");
        QTest::addColumn<int>("maxSessions");
        // Asked for HTTP/2, each worker (2) opens one connection for all its streams; by ALPN
        // unasked, a worker plans for HTTP/1.1 (6 per manager) until the first answer says h2.
        QTest::newRow("h2c by prior knowledge (--http2, auto picks native)")
            << false << int(TransportKind::Auto) << int(HttpVersion::Http2) << 2;
        QTest::newRow("h2c by prior knowledge (qnam)")
            << false << int(TransportKind::Qnam) << int(HttpVersion::Http2) << 2;
        QTest::newRow("h2 by ALPN (qnam, http_version auto)")
            << true << int(TransportKind::Qnam) << int(HttpVersion::Auto) << 4;
        // The requests that wait on a worker's first connection while it negotiates all become
        // streams of it once the server picked h2.
        QTest::newRow("h2 by ALPN (auto picks native, http_version auto)")
            << true << int(TransportKind::Auto) << int(HttpVersion::Auto) << 2;
        QTest::newRow("h2 by ALPN (auto picks native, --http2)")
            << true << int(TransportKind::Auto) << int(HttpVersion::Http2) << 2;
    }

    void streamsOverHttp2()
    {
        QFETCH(bool, tls);
        QFETCH(int, transport);
        QFETCH(int, version);
        QFETCH(int, maxSessions);
        if (tls && !QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        QProcess node;
        node.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        QStringList args{QStringLiteral(TOKENBENCH_TESTDATA "/h2server.mjs")};
        if (tls)
            args << QStringLiteral("tls") << QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt")
                 << QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.key");
        node.start(QStringLiteral(TOKENBENCH_NODE), args);
        QVERIFY(node.waitForStarted());
        const auto stopNode = qScopeGuard([&node] {
            node.kill();
            node.waitForFinished();
        });
        QByteArray out;
        QVERIFY(QTest::qWaitFor(
            [&] {
                out += node.readAllStandardOutput();
                return out.contains('\n');
            },
            20000));
        const QByteArray first = out.left(out.indexOf('\n'));
        QVERIFY2(first.startsWith("port "), first.constData());
        out.remove(0, first.size() + 1);

        constexpr int kConcurrency = 20;
        RunConfig config;
        config.target.url = QStringLiteral("%1://127.0.0.1:%2/v1")
                                .arg(tls ? QLatin1String("https") : QLatin1String("http"))
                                .arg(QString::fromLatin1(first.mid(5)));
        config.target.model = QStringLiteral("m");
        config.target.tlsVerify = false;
        config.target.transport = TransportKind(transport);
        config.target.httpVersion = HttpVersion(version);
        config.load.concurrency = kConcurrency;
        config.load.requests = kConcurrency * 3;
        config.load.timeoutMs = 30000;
        QString error;
        const auto plan = RunPlan::create(config, &error);
        QVERIFY2(plan, qPrintable(error));
        std::vector<RequestRecord> records;
        bool finished = false;
        LoadController controller(plan, RunClock(), [&records](RequestRecord &&r) { records.push_back(std::move(r)); });
        connect(&controller, &LoadController::finished, this, [&finished] { finished = true; });
        controller.start(2);
        QVERIFY(QTest::qWaitFor([&finished] { return finished; }, 60000));
        QCOMPARE(int(records.size()), kConcurrency * 3);
        // Streams per connection as the run reports it: many on one HTTP/2 connection, never more
        // than the users.
        int streams = 0;
        for (const RequestRecord &r : records)
            streams = std::max(streams, r.streams);
        QVERIFY2(streams >= 2 && streams <= kConcurrency, qPrintable(QString::number(streams)));
        for (const RequestRecord &r : records) {
            QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            QCOMPARE(r.httpVersion, 2);
            QCOMPARE(r.completionTokens, std::int64_t(4));
            QVERIFY(r.firstTokenNs > r.sentNs);
        }
        // The server's own view: all users' streams at once, over few sessions (connections).
        QVERIFY(QTest::qWaitFor(
            [&] {
                out += node.readAllStandardOutput();
                return out.count('\n') >= kConcurrency * 3;
            },
            10000));
        const QList<QByteArray> last = out.trimmed().split('\n').last().split(' ');
        QCOMPARE(last.value(0), QByteArray("stats"));
        QCOMPARE(last.value(1).toInt(), kConcurrency);
        QVERIFY2(last.value(2).toInt() <= maxSessions, last.value(2).constData());
        // The connections the requests record (requests.csv's `connection`) are the server's
        // sessions: native numbers each (an ALPN connection keeps its number as it becomes an
        // HTTP/2 one); QNAM does not say which carried a request.
        std::set<std::uint64_t> connections;
        for (const RequestRecord &r : records)
            connections.insert(r.connection);
        if (TransportKind(transport) == TransportKind::Qnam) {
            QCOMPARE(connections, std::set<std::uint64_t>{0});
        } else {
            QVERIFY(!connections.count(0));
            QCOMPARE(int(connections.size()), last.value(2).toInt());
        }
    }
};

QTEST_GUILESS_MAIN(TestHttp2)
#include "tst_http2.moc"
