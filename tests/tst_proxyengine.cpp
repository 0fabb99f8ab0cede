// The engine through proxies and redirects, on 127.0.0.1: a proxy written here (CONNECT tunnels,
// absolute-form requests) carries http to the simulator and https to a TLS server, NO_PROXY passes
// it by, its failures are the "proxy" class; redirect chains are followed and counted — over both
// transports (native and qnam), with the same outcomes.
#include "client/loadcontroller.h"
#include "sim/simulatorhost.h"

#include "support/httprequest.h"
#include "support/loadrun.h"
#include "support/scopedenvironment.h"
#include "support/testproxy.h"
#include "support/tlsserver.h"
#include "support/transportrows.h"

#include <QHash>
#include <QTest>
#include <QTimer>

using namespace Qt::Literals::StringLiterals;

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

/// Answers POSTs to the paths in `redirects` with that status and Location (after `delayMs`),
/// keeping each request head; anything else is a 404.
class RedirectServer : public QTcpServer
{
public:
    struct Hop {
        int status;
        QByteArray location;
    };
    QHash<QByteArray, Hop> redirects;
    QList<QByteArray> heads;
    int delayMs = 0;

    RedirectServer()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { data(socket); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QByteArray origin() const { return "http://127.0.0.1:" + QByteArray::number(serverPort()); }

private:
    void data(QTcpSocket *socket)
    {
        const auto request = tb::test::readRequest(*socket, m_buffers[socket]);
        if (!request)
            return;
        const QByteArray &head = request->head;
        heads << head;
        const QList<QByteArray> line = head.left(head.indexOf("\r\n")).split(' ');
        const auto hop = redirects.constFind(line.value(1));
        const QByteArray answer = hop == redirects.constEnd()
                                      ? QByteArray("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                                      : "HTTP/1.1 " + QByteArray::number(hop->status) +
                                            " Moved\r\nLocation: " + hop->location +
                                            "\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<a>go</a>";
        QTimer::singleShot(delayMs, socket, [socket, answer] { socket->write(answer); });
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
};

SimConfig fastSim()
{
    SimConfig c = *SimConfig::preset(QStringLiteral("fast"));
    c.maxBatch = 64;
    return c;
}

RunConfig configFor(const QString &url, const QString &model, int requests)
{
    RunConfig c;
    c.target.url = url;
    c.target.model = model;
    c.target.transport = rowTransport();
    c.load.concurrency = 2;
    c.load.requests = requests;
    c.load.timeoutMs = 30000;
    c.load.connectTimeoutMs = 10000;
    c.request.maxTokens = 16;
    c.prompt.promptTokens = 16;
    return c;
}

using RunResult = tb::test::LoadRun;

RunResult runLoad(const RunConfig &config)
{
    return tb::test::runLoad(config, {}, 60000, 1);
}

} // namespace

class TestProxyEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // Every case over both transports: the same routes, counts and error classes.
    void initTestCase_data() { addTransportRows(); }

    void proxyCarriesRequestsUnlessExempt_data()
    {
        QTest::addColumn<bool>("https");
        QTest::addColumn<QString>("setting"); // target.proxy; "@P@" = the test proxy's URL
        QTest::addColumn<QStringList>("env"); // "@P@" = the test proxy's URL
        QTest::addColumn<bool>("proxied");
        QTest::addColumn<QString>("described"); // RunPlan endpoint's ProxyChoice::describe(), @P@ replaced

        QTest::newRow("http via HTTP_PROXY")
            << false << u""_s << QStringList{u"HTTP_PROXY=@P@"_s} << true << u"@P@ (HTTP_PROXY)"_s;
        QTest::newRow("http via --proxy") << false << "@P@" << QStringList{} << true << "@P@ (target.proxy)";
        QTest::newRow("http, NO_PROXY exempts it")
            << false << u""_s << QStringList{u"http_proxy=@P@"_s, u"NO_PROXY=127.0.0.1"_s} << false
            << u"none (NO_PROXY)"_s;
        QTest::newRow("https via HTTPS_PROXY (CONNECT)")
            << true << u""_s << QStringList{u"HTTPS_PROXY=@P@"_s} << true << u"@P@ (HTTPS_PROXY)"_s;
        QTest::newRow("https via ALL_PROXY")
            << true << u""_s << QStringList{u"ALL_PROXY=@P@"_s} << true << u"@P@ (ALL_PROXY)"_s;
        QTest::newRow("https, NO_PROXY exempts it")
            << true << u""_s << QStringList{u"HTTPS_PROXY=@P@"_s, u"no_proxy=.example.com,127.0.0.0/8"_s} << false
            << u"none (no_proxy)"_s;
        QTest::newRow("--no-proxy ignores the environment")
            << true << u"none"_s << QStringList{u"HTTPS_PROXY=@P@"_s} << false << u"none (target.proxy)"_s;
    }

    void proxyCarriesRequestsUnlessExempt()
    {
        QFETCH(bool, https);
        QFETCH(QString, setting);
        QFETCH(QStringList, env);
        QFETCH(bool, proxied);
        QFETCH(QString, described);
        if (https && !QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        TestProxy proxy;
        QVERIFY(proxy.listen(QHostAddress::LocalHost));
        SimulatorHost sim(fastSim());
        QVERIFY(sim.start());
        TlsServer tls;
        QVERIFY(tls.listen(QHostAddress::LocalHost));
        env.replaceInStrings(QStringLiteral("@P@"), proxy.url());
        ScopedEnvironment scoped(env);

        RunConfig config = configFor(https ? tls.url() : sim.baseUrl().toString(), sim.config().model, 4);
        config.target.proxy = setting == QLatin1String("@P@") ? proxy.url() : setting;
        // Verified, not --insecure: the TLS session runs end to end with the target inside the tunnel.
        config.target.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt");
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.plan->targets.front().instances.front().endpoint().proxy.describe(),
                 QString(described).replace(QStringLiteral("@P@"), proxy.url()));
        QCOMPARE(int(r.records.size()), 4);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            QVERIFY(rec.completionTokens > 0);
        }
        if (!proxied) {
            QCOMPARE(proxy.connections, 0);
            return;
        }
        QVERIFY(proxy.connections >= 1);
        const QByteArray expected = https ? "CONNECT 127.0.0.1:" + QByteArray::number(tls.serverPort()) + " HTTP/1.1"
                                          : "POST http://127.0.0.1:" + QByteArray::number(sim.baseUrl().port()) +
                                                "/v1/chat/completions HTTP/1.1";
        QVERIFY2(proxy.heads.first().startsWith(expected), proxy.heads.first().constData());
        // Every request through it. QNAM keeps its connection to the proxy alive, and this proxy
        // reads one head per connection (it forwards the rest unread): it saw at least the first.
        if (!https && rowTransport() == TransportKind::Native)
            QCOMPARE(proxy.heads.size(), 4);
        for (const QByteArray &head : std::as_const(proxy.heads))
            QVERIFY2(head.startsWith(expected.left(expected.indexOf(' ') + 1)), head.constData());
    }

    void proxyCredentialsAreSentNeverShown_data()
    {
        QTest::addColumn<bool>("https");
        QTest::newRow("http") << false;
        QTest::newRow("https") << true;
    }

    void proxyCredentialsAreSentNeverShown()
    {
        QFETCH(bool, https);
        if (https && !QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        TestProxy proxy;
        proxy.requiredAuthorization = "Basic " + QByteArray("tb:pr0xy-secret").toBase64();
        QVERIFY(proxy.listen(QHostAddress::LocalHost));
        SimulatorHost sim(fastSim());
        QVERIFY(sim.start());
        TlsServer tls;
        QVERIFY(tls.listen(QHostAddress::LocalHost));
        ScopedEnvironment scoped({});
        RunConfig config = configFor(https ? tls.url() : sim.baseUrl().toString(), sim.config().model, 2);
        config.target.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt");
        config.target.proxy = QStringLiteral("http://tb:pr0xy-secret@127.0.0.1:%1").arg(proxy.serverPort());
        RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 2);
        for (const RequestRecord &rec : r.records)
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
        QVERIFY(
            !r.plan->targets.front().instances.front().endpoint().proxy.describe().contains(QLatin1String("secret")));
        QVERIFY(!toJson(redacted(config)).dump().empty());
        QVERIFY(toJson(redacted(config)).dump().find("pr0xy-secret") == std::string::npos);

        // The wrong password: the proxy's 407 is the proxy's failure, and its words show no secret.
        config.target.proxy = QStringLiteral("http://tb:wr0ng-secret@127.0.0.1:%1").arg(proxy.serverPort());
        r = runLoad(config);
        QVERIFY(r.finished);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.status == RequestStatus::Proxy, qPrintable(rec.errorMessage));
            QVERIFY2(!rec.errorMessage.contains(QLatin1String("secret")), qPrintable(rec.errorMessage));
        }
    }

    void proxyFailuresAreTheProxyClass_data()
    {
        QTest::addColumn<bool>("https");
        QTest::addColumn<QString>("fault");
        QTest::addColumn<QString>("message");
        QTest::newRow("http, proxy refuses connections") << false << "closed"
                                                         << "proxy http://127.0.0.1:";
        QTest::newRow("https, proxy refuses connections") << true << "closed"
                                                          << "proxy http://127.0.0.1:";
        QTest::newRow("http, proxy wants credentials") << false << "407"
                                                       << "407";
        QTest::newRow("https, proxy wants credentials") << true << "407"
                                                        << "proxy http://127.0.0.1:";
        QTest::newRow("https, CONNECT refused") << true << "403"
                                                << "proxy http://127.0.0.1:";
    }

    void proxyFailuresAreTheProxyClass()
    {
        QFETCH(bool, https);
        QFETCH(QString, fault);
        QFETCH(QString, message);
        if (https && !QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        TestProxy proxy;
        QVERIFY(proxy.listen(QHostAddress::LocalHost));
        const quint16 port = proxy.serverPort();
        if (fault == QLatin1String("closed"))
            proxy.close();
        else if (fault == QLatin1String("407"))
            proxy.requiredAuthorization = "Basic " + QByteArray("someone:else").toBase64();
        else
            proxy.connectAnswer = "403 Forbidden";
        SimulatorHost sim(fastSim());
        QVERIFY(sim.start());
        TlsServer tls;
        QVERIFY(tls.listen(QHostAddress::LocalHost));
        ScopedEnvironment scoped({QStringLiteral("HTTPS_PROXY=http://127.0.0.1:%1").arg(port),
                                  QStringLiteral("HTTP_PROXY=http://127.0.0.1:%1").arg(port)});
        RunConfig config = configFor(https ? tls.url() : sim.baseUrl().toString(), sim.config().model, 2);
        config.target.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt");
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 2);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.status == RequestStatus::Proxy,
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(statusName(rec.status)), rec.errorMessage)));
            QVERIFY2(rec.errorMessage.contains(message), qPrintable(rec.errorMessage));
        }
        QCOMPARE(sim.stats().requestsServed, qint64(0));
    }

    void redirectChainIsFollowedAndCounted_data()
    {
        QTest::addColumn<bool>("follow");
        QTest::newRow("--follow-redirects") << true;
        QTest::newRow("default: the redirect is the error") << false;
    }

    void redirectChainIsFollowedAndCounted()
    {
        QFETCH(bool, follow);
        SimulatorHost sim(fastSim());
        QVERIFY(sim.start());
        // first (307, same origin) → /moved on first (308, to another origin) → second → the simulator.
        RedirectServer first;
        RedirectServer second;
        QVERIFY(first.listen(QHostAddress::LocalHost));
        QVERIFY(second.listen(QHostAddress::LocalHost));
        first.delayMs = 300;
        first.redirects.insert("/v1/chat/completions", {307, "/moved"});
        first.redirects.insert("/moved", {308, second.origin() + "/next"});
        second.redirects.insert("/next", {307, sim.baseUrl().toString().toLatin1() + "/chat/completions"});
        ScopedEnvironment scoped({QStringLiteral("TB_PROXYENGINE_KEY=sk-test-redirect-1234")});
        RunConfig config = configFor(QString::fromLatin1(first.origin() + "/v1"), sim.config().model, 2);
        config.target.apiKeyEnv = QStringLiteral("TB_PROXYENGINE_KEY");
        config.target.followRedirects = follow;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 2);
        for (const RequestRecord &rec : r.records) {
            if (!follow) {
                QCOMPARE(rec.status, RequestStatus::Http);
                QCOMPARE(rec.httpStatus, 307);
                QCOMPARE(rec.redirects, 0);
                continue;
            }
            // POST with its body all the way (the simulator answers only that), three hops.
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            QCOMPARE(rec.redirects, 3);
            QCOMPARE(rec.httpStatus, 200);
            QVERIFY(rec.completionTokens > 0);
            // From the original send: the first hop alone took 300 ms.
            QVERIFY2(*rec.ttftMs() >= 300, qPrintable(QString::number(*rec.ttftMs())));
            QVERIFY(*rec.ttfbMs() >= 300);
        }
        QCOMPARE(int(sim.stats().requestsServed), follow ? 2 : 0);
        if (!follow)
            return;
        QCOMPARE(first.heads.size(), 4);
        QVERIFY(first.heads.first().contains("Authorization: Bearer sk-test-redirect-1234"));
        QVERIFY(first.heads.last().startsWith("POST /moved HTTP/1.1"));
        QVERIFY(first.heads.last().contains("Authorization: Bearer")); // same origin
        QCOMPARE(second.heads.size(), 2);
        QVERIFY(second.heads.first().startsWith("POST /next HTTP/1.1"));
        QVERIFY2(!second.heads.first().contains("Authorization"), second.heads.first().constData()); // another origin
        QVERIFY(second.heads.first().contains("Content-Length: "));
    }

    void redirectLoopEndsAtTheBound()
    {
        RedirectServer loop;
        QVERIFY(loop.listen(QHostAddress::LocalHost));
        loop.redirects.insert("/v1/chat/completions", {308, "/v1/chat/completions"});
        RunConfig config = configFor(QString::fromLatin1(loop.origin() + "/v1"), QStringLiteral("m"), 1);
        config.load.concurrency = 1;
        config.target.followRedirects = true;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 1);
        const RequestRecord &rec = r.records.front();
        QCOMPARE(rec.status, RequestStatus::Http);
        QCOMPARE(rec.redirects, limits::kMaxRedirects);
        QVERIFY2(rec.errorMessage.contains(QLatin1String("more than 5 redirects")), qPrintable(rec.errorMessage));
        QCOMPARE(loop.heads.size(), limits::kMaxRedirects + 1);
    }
};

QTEST_GUILESS_MAIN(TestProxyEngine)
#include "tst_proxyengine.moc"
