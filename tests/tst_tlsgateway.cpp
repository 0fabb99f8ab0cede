// Defaults that work on real networks, against real parts this test starts as ordinary processes
// on 127.0.0.1: Debian's nginx as an HTTP/2-only TLS gateway in front of the simulator
// (tokenbench-cli sim), Debian's squid as the HTTPS_PROXY. Over https the default offers h2 and
// http/1.1 by ALPN and uses what the server picks, directly and through the proxy's tunnel;
// --insecure and --ca-cert mean the same on both transports, direct or through the proxy, and for
// the requests made beside a run. Every function runs over both transports (initTestCase_data).
#include "results/rundirectory.h"

#include "support/clirunner.h"
#include "support/loadrun.h"
#include "support/nginxgateway.h"
#include "support/scopedenvironment.h"
#include "support/squidproxy.h"
#include "support/transportrows.h"

#include <QTemporaryDir>
#include <QTest>

using namespace tb;

namespace {

constexpr int kRequests = 12;
/// The name on the second gateway's certificate, which only the proxy resolves (its hosts file):
/// a gateway reachable through the proxy alone, as in a network behind one.
const QString kGatewayName = QStringLiteral("gateway.example");

int countLines(const QByteArrayList &log, const QByteArray &prefix)
{
    return int(
        std::count_if(log.cbegin(), log.cend(), [&prefix](const QByteArray &l) { return l.startsWith(prefix); }));
}

} // namespace

class TestTlsGateway : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    ServerProcess m_sim;
    NginxGateway m_nginx;
    SquidProxy m_squid;
    quint16 m_loopbackPort = 0; ///< nginx with a certificate for IP 127.0.0.1
    quint16 m_namedPort = 0;    ///< nginx with a certificate for kGatewayName only
    quint16 m_http1Port = 0;    ///< nginx without HTTP/2, with the certificate for 127.0.0.1

    int m_runs = 0;

    QString file(const char *name) const { return m_dir.filePath(QLatin1String(name)); }
    /// A --out directory not used before.
    QString newRunDirectory() { return m_dir.filePath(QStringLiteral("run%1").arg(++m_runs)); }

    static QString url(const QString &host, quint16 port)
    {
        return QStringLiteral("https://%1:%2/v1").arg(host).arg(port);
    }

    /// Default flags but the URL, the model and the trust.
    RunConfig configFor(const QString &url, bool stream = true) const
    {
        RunConfig c;
        c.target.url = url;
        c.target.model = QStringLiteral("fast");
        c.request.stream = stream;
        c.load.concurrency = 4;
        c.load.requests = kRequests;
        c.load.timeoutMs = 30000;
        return c;
    }

    /// Requests nginx served on `port` over HTTP/2.
    int servedOverHttp2(quint16 port) const
    {
        return countLines(m_nginx.accessLog(), QByteArray::number(port) + " HTTP/2.0 ");
    }

    /// Tunnels to `hostPort` squid has logged (it logs one as it closes).
    int tunnels(const QString &hostPort) const
    {
        return countLines(m_squid.accessLog(), "CONNECT " + hostPort.toLatin1() + ' ');
    }

    /// For a run in this process: no proxy variable, or squid as HTTPS_PROXY.
    QStringList proxyVariables(bool proxied) const
    {
        return proxied ? QStringList{QStringLiteral("HTTPS_PROXY=") + m_squid.url()} : QStringList{};
    }

    /// The environment of a CLI run: no proxy variable, or squid as HTTPS_PROXY.
    QProcessEnvironment environment(bool httpsProxy) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                 "no_proxy", "NO_PROXY"})
            env.remove(QLatin1String(name));
        if (httpsProxy)
            env.insert(QStringLiteral("HTTPS_PROXY"), m_squid.url());
        return env;
    }

private Q_SLOTS:
    void initTestCase_data() { addTransportRows(); }

    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString why;
        QVERIFY2(NginxGateway::makeCertificate(QStringLiteral(TOKENBENCH_OPENSSL), m_dir.path(),
                                               QStringLiteral("loopback"), QStringLiteral("IP:127.0.0.1"), &why),
                 qPrintable(why));
        QVERIFY2(NginxGateway::makeCertificate(QStringLiteral(TOKENBENCH_OPENSSL), m_dir.path(),
                                               QStringLiteral("gateway"), QStringLiteral("DNS:") + kGatewayName, &why),
                 qPrintable(why));
        // The context length /v1/models reports, for the context check beside a run.
        const quint16 simPort = ServerProcess::freePort();
        QVERIFY2(m_sim.start(QStringLiteral(TOKENBENCH_CLI),
                             {QStringLiteral("sim"), QStringLiteral("--preset"), QStringLiteral("fast"),
                              QStringLiteral("--port"), QString::number(simPort), QStringLiteral("--max-model-len"),
                              QStringLiteral("1000")},
                             {simPort}, QString(), &why),
                 qPrintable(why));
        // A port picked free may be taken before nginx binds it (other tests connect meanwhile).
        bool started = false;
        for (int attempt = 0; attempt < 3 && !started; ++attempt) {
            m_loopbackPort = ServerProcess::freePort();
            m_namedPort = ServerProcess::freePort();
            m_http1Port = ServerProcess::freePort();
            started = m_nginx.start(QStringLiteral(TOKENBENCH_NGINX), m_dir.path(),
                                    QUrl(QStringLiteral("http://127.0.0.1:%1").arg(simPort)),
                                    {{m_loopbackPort, file("loopback.crt"), file("loopback.key")},
                                     {m_namedPort, file("gateway.crt"), file("gateway.key")},
                                     {m_http1Port, file("loopback.crt"), file("loopback.key"), false}},
                                    &why);
        }
        QVERIFY2(started, qPrintable(why));
        started = false;
        for (int attempt = 0; attempt < 3 && !started; ++attempt)
            started = m_squid.start(QStringLiteral(TOKENBENCH_SQUID), file("squid"),
                                    {{kGatewayName, QStringLiteral("127.0.0.1")}}, &why);
        QVERIFY2(started, qPrintable(why));
    }

    void defaultFailsAgainstH2OnlyServer_data()
    {
        QTest::addColumn<bool>("proxied");
        QTest::addColumn<bool>("stream");
        QTest::newRow("direct, streaming") << false << true;
        QTest::newRow("direct, not streaming") << false << false;
        QTest::newRow("through squid, streaming") << true << true;
        QTest::newRow("through squid, not streaming") << true << false;
    }

    // The gateway closes an HTTP/1.1 request unanswered: native's https offered only http/1.1, so
    // every request was "connection closed before any response". Now h2 is offered first and
    // taken, through the proxy's tunnel too.
    void defaultFailsAgainstH2OnlyServer()
    {
        QFETCH(bool, proxied);
        QFETCH(bool, stream);
        ScopedEnvironment scoped(proxyVariables(proxied));
        RunConfig c = configFor(url(QStringLiteral("127.0.0.1"), m_loopbackPort), stream);
        c.target.caCertificate = file("loopback.crt");
        const int served = servedOverHttp2(m_loopbackPort);
        const QString hostPort = QStringLiteral("127.0.0.1:%1").arg(m_loopbackPort);
        const int tunnelled = tunnels(hostPort);
        const auto r = tb::test::runLoad(c);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), kRequests);
        int streams = 0;
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            QCOMPARE(rec.httpVersion, 2);
            QVERIFY(rec.completionTokens > 0);
            streams = std::max(streams, rec.streams);
        }
        // 4 users on 2 transport threads: streams share a connection.
        QVERIFY2(streams >= 2, qPrintable(QString::number(streams)));
        // The gateway's own word: every request came in HTTP/2 (nginx logs a request as it ends).
        QTRY_COMPARE_WITH_TIMEOUT(servedOverHttp2(m_loopbackPort) - served, kRequests, 10000);
        // Squid logs a CONNECT when its tunnel closes, which may be a moment after the run ended
        // (a test once read the log before). A direct row is not checked for none: a tunnel of the
        // row before may still be logged while it runs.
        if (proxied)
            QTRY_VERIFY_WITH_TIMEOUT(tunnels(hostPort) > tunnelled, 10000);
    }

    void http1GatewayIsPickedAndHttp2Refused_data()
    {
        QTest::addColumn<bool>("proxied");
        QTest::addColumn<int>("version");
        QTest::newRow("auto, direct") << false << int(HttpVersion::Auto);
        QTest::newRow("auto, through squid") << true << int(HttpVersion::Auto);
        QTest::newRow("--http2, direct") << false << int(HttpVersion::Http2);
        QTest::newRow("--http2, through squid") << true << int(HttpVersion::Http2);
    }

    // A gateway without h2 picks http/1.1: the requests that waited on the first connection go on
    // HTTP/1.1 connections, none lost. --http2 insists on h2 and says why it cannot have it.
    void http1GatewayIsPickedAndHttp2Refused()
    {
        QFETCH(bool, proxied);
        QFETCH(int, version);
        ScopedEnvironment scoped(proxyVariables(proxied));
        RunConfig c = configFor(url(QStringLiteral("127.0.0.1"), m_http1Port));
        c.target.caCertificate = file("loopback.crt");
        c.target.httpVersion = HttpVersion(version);
        const QByteArray http1 = QByteArray::number(m_http1Port) + " HTTP/1.1 ";
        const int served = countLines(m_nginx.accessLog(), http1);
        const auto r = tb::test::runLoad(c);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), kRequests);
        const bool http2 = HttpVersion(version) == HttpVersion::Http2;
        for (const RequestRecord &rec : r.records) {
            if (http2) {
                QCOMPARE(rec.status, RequestStatus::Protocol);
                QCOMPARE(rec.errorMessage, QStringLiteral("the server did not pick HTTP/2 (h2) by ALPN; it picked "
                                                          "http/1.1"));
            } else {
                QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
                QCOMPARE(rec.httpVersion, 1);
            }
        }
        // (qnam learns what was picked from the answer, so its --http2 requests were served first.)
        if (!http2)
            QTRY_COMPARE_WITH_TIMEOUT(countLines(m_nginx.accessLog(), http1) - served, kRequests, 10000);
    }

    void insecureIgnoredThroughProxy_data()
    {
        QTest::addColumn<bool>("proxied");
        QTest::addColumn<bool>("insecure");
        QTest::newRow("--insecure, direct") << false << true;
        QTest::newRow("--insecure, through squid") << true << true;
        QTest::newRow("verified, direct") << false << false;
        QTest::newRow("verified, through squid") << true << false;
    }

    // A certificate for another host name: --insecure takes it (as curl -k), where native used to
    // refuse it ("The host name did not match …"), which left only --transport qnam; verified (its
    // CA trusted), the name is what is refused, and the error says so.
    void insecureIgnoredThroughProxy()
    {
        QFETCH(bool, proxied);
        QFETCH(bool, insecure);
        ScopedEnvironment scoped(proxyVariables(proxied));
        RunConfig c = configFor(url(QStringLiteral("127.0.0.1"), m_namedPort));
        c.target.tlsVerify = !insecure;
        if (!insecure)
            c.target.caCertificate = file("gateway.crt");
        const auto r = tb::test::runLoad(c);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), kRequests);
        for (const RequestRecord &rec : r.records) {
            if (insecure) {
                QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
                QCOMPARE(rec.httpVersion, 2);
            } else {
                QCOMPARE(rec.status, RequestStatus::Tls);
                QVERIFY2(rec.errorMessage.contains(QLatin1String("host name did not match")),
                         qPrintable(rec.errorMessage));
            }
        }
    }

    void caCertTrustsGatewayThroughProxy_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<bool>("proxied");
        QTest::addColumn<bool>("trusted");
        QTest::newRow("certificate for 127.0.0.1, direct") << QStringLiteral("127.0.0.1") << false << true;
        QTest::newRow("certificate for 127.0.0.1, through squid") << QStringLiteral("127.0.0.1") << true << true;
        QTest::newRow("a name only squid resolves") << kGatewayName << true << true;
        QTest::newRow("a name only squid resolves, CA not given") << kGatewayName << true << false;
    }

    // --ca-cert verifies the gateway end to end, inside the tunnel too; without it a self-signed
    // gateway is refused, whatever the transport.
    void caCertTrustsGatewayThroughProxy()
    {
        QFETCH(QString, host);
        QFETCH(bool, proxied);
        QFETCH(bool, trusted);
        ScopedEnvironment scoped(proxyVariables(proxied));
        const bool named = host == kGatewayName;
        RunConfig c = configFor(url(host, named ? m_namedPort : m_loopbackPort));
        if (trusted)
            c.target.caCertificate = named ? file("gateway.crt") : file("loopback.crt");
        const auto r = tb::test::runLoad(c);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), kRequests);
        for (const RequestRecord &rec : r.records) {
            QCOMPARE(rec.status, trusted ? RequestStatus::Ok : RequestStatus::Tls);
            if (trusted)
                QCOMPARE(rec.httpVersion, 2);
        }
    }

    void sideRequestsIgnoredProxyAndTls_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<bool>("calibrates");
        QTest::newRow("--calibrate, --ca-cert")
            << QStringList{QStringLiteral("--prompt-tokens"), QStringLiteral("200"), QStringLiteral("--calibrate"),
                           QStringLiteral("--requests"),      QStringLiteral("6"),   QStringLiteral("--ca-cert"),
                           QStringLiteral("@gateway.crt")}
            << true;
        QTest::newRow("context check, --insecure")
            << QStringList{QStringLiteral("--trace"), QStringLiteral(TOKENBENCH_TESTDATA "/workload/mooncake.jsonl"),
                           QStringLiteral("--time-scale"), QStringLiteral("0.1"), QStringLiteral("--insecure")}
            << false;
    }

    // Calibration probes and the context check (the model listing's context length) ignored --proxy
    // (Qt's own reading of the environment chose for them) and the check --insecure and --ca-cert:
    // calibration failed ("Host gateway.example not found") and the check was skipped silently.
    // They reach the gateway as the run does now, at a name only the proxy resolves.
    void sideRequestsIgnoredProxyAndTls()
    {
        QFETCH(QStringList, args);
        QFETCH(bool, calibrates);
        args.replaceInStrings(QStringLiteral("@gateway.crt"), file("gateway.crt"));
        const QString out = newRunDirectory();
        const CliResult r =
            runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), url(kGatewayName, m_namedPort),
                               QStringLiteral("--model"), QStringLiteral("fast"), QStringLiteral("--transport"),
                               transportKindName(rowTransport()), QStringLiteral("--proxy"), m_squid.url(),
                               QStringLiteral("--quiet"), QStringLiteral("--out"), out} +
                       args,
                   environment(false));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        // Answered through the tunnel, TLS passed (the context check's prompts may be too long).
        for (const RequestRecord &rec : data->records)
            QVERIFY2(rec.httpStatus > 0, qPrintable(rec.errorMessage));
        if (calibrates) {
            QVERIFY2(data->summary.promptSizing.calibration == QLatin1String("usage"), qPrintable(r.err));
        } else {
            const QString warnings = data->summary.warnings.join(QLatin1Char('\n'));
            QVERIFY2(warnings.contains(QLatin1String("exceed the model's context of 1000 tokens")),
                     qPrintable(warnings));
        }
    }

    // With default flags through the proxy, what was offered and what the server picked are in
    // run.json's and summary.json's connection block, on the console, and in each record.
    void defaultFlagsRecordWhatWasNegotiated()
    {
        const QString out = newRunDirectory();
        const CliResult r =
            runCli({QStringLiteral("run"), QStringLiteral("--url"), url(QStringLiteral("127.0.0.1"), m_loopbackPort),
                    QStringLiteral("--model"), QStringLiteral("fast"), QStringLiteral("--ca-cert"),
                    file("loopback.crt"), QStringLiteral("--transport"), transportKindName(rowTransport()),
                    QStringLiteral("--requests"), QStringLiteral("8"), QStringLiteral("--concurrency"),
                    QStringLiteral("4"), QStringLiteral("--quiet"), QStringLiteral("--out"), out},
                   environment(true));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("transport  %1 · HTTP/2 by ALPN (offered h2, http/1.1)")
                                    .arg(transportKindName(rowTransport()))),
                 qPrintable(r.out));
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        const QStringList offered{QStringLiteral("h2"), QStringLiteral("http/1.1")};
        QCOMPARE(data->info.connection.alpn, offered);
        QVERIFY(data->info.connection.negotiated.isEmpty()); // run.json is written before the first answer
        QCOMPARE(data->summary.connection.alpn, offered);
        QCOMPARE(data->summary.connection.negotiated, QStringList{QStringLiteral("h2")});
        QCOMPARE(int(data->records.size()), 8);
        for (const RequestRecord &rec : data->records)
            QCOMPARE(rec.httpVersion, 2);
    }
};

QTEST_GUILESS_MAIN(TestTlsGateway)
#include "tst_tlsgateway.moc"
