// The server-metrics scraper against hostile endpoints (missing, silent, huge, not Prometheus, an
// error status) and a good one, and a run that scrapes a bad endpoint: the run is not disturbed
// and the reason is reported once.

#include "observe/metricsscraper.h"
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/testsimulator.h"

#include <QFile>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <memory>

using namespace tb;

namespace {

/// A /metrics endpoint that misbehaves as told.
class FakeEndpoint : public QObject
{
public:
    enum Mode { Silent, Html, Huge, NotFound, Good, Trickle, HugeAnnounced };

    explicit FakeEndpoint(Mode mode)
        : m_mode(mode)
    {
        m_server.listen(QHostAddress(QStringLiteral("127.0.0.1")), 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, s, [this, s] {
                    if (!s->readAll().contains("\r\n\r\n"))
                        return;
                    ++requests;
                    answer(s);
                });
            }
        });
    }

    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(m_server.serverPort())); }
    int requests = 0;

private:
    void answer(QTcpSocket *s)
    {
        const auto reply = [s](const QByteArray &status, const QByteArray &body) {
            s->write("HTTP/1.1 " + status + "\r\nContent-Type: text/plain\r\nContent-Length: " +
                     QByteArray::number(body.size()) + "\r\n\r\n" + body);
        };
        switch (m_mode) {
        case Silent:
            return;
        case Html:
            return reply("200 OK", "<!DOCTYPE html><html><body>Grafana</body></html>");
        case Huge:
            // Claims nothing about its length and never ends: the size cap must stop it.
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 64; ++i)
                s->write("4000\r\n" + QByteArray(0x4000, '#') + "\r\n");
            return;
        case NotFound:
            return reply("404 Not Found", "not found");
        case Trickle: {
            // A byte every 100 ms: never silent long enough for a transfer timeout, yet never done.
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n# ");
            auto *drip = new QTimer(s);
            connect(drip, &QTimer::timeout, s, [s] { s->write("x"); });
            drip->start(100);
            return;
        }
        case HugeAnnounced:
            // Says up front that it is too large: refused before a body byte is read.
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000000\r\n\r\n");
            return;
        case Good:
            return reply("200 OK",
                         "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} " +
                             QByteArray::number(requests) + "\n");
        }
    }

    Mode m_mode;
    QTcpServer m_server;
};

MetricsScraper::Options options(const QUrl &url, bool discovered, const QString &csv = {})
{
    MetricsScraper::Options o;
    o.url = url;
    o.discovered = discovered;
    o.csvPath = csv;
    o.intervalMs = 100;
    o.timeoutMs = 500;
    o.limits.maxBytes = 256 * 1024;
    return o;
}

} // namespace

class TestMetricsScraper : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void badEndpoints_data()
    {
        QTest::addColumn<int>("mode"); // -1: nothing listens
        QTest::addColumn<QString>("problem");
        QTest::newRow("missing") << -1 << "Connection refused";
        QTest::newRow("silent") << int(FakeEndpoint::Silent) << "no answer within 500 ms";
        QTest::newRow("huge") << int(FakeEndpoint::Huge) << "larger than 262144 bytes";
        QTest::newRow("huge by its Content-Length") << int(FakeEndpoint::HugeAnnounced) << "larger than 262144 bytes";
        QTest::newRow("slow (a byte at a time)") << int(FakeEndpoint::Trickle) << "no answer within 500 ms";
        QTest::newRow("not prometheus") << int(FakeEndpoint::Html)
                                        << "not Prometheus text (line 1: not a Prometheus sample";
        QTest::newRow("404") << int(FakeEndpoint::NotFound) << "answered HTTP 404";
    }

    void badEndpoints()
    {
        QFETCH(int, mode);
        QFETCH(QString, problem);
        std::unique_ptr<FakeEndpoint> fake;
        QUrl url(QStringLiteral("http://127.0.0.1:9/metrics")); // discard port: nothing listens
        if (mode >= 0) {
            fake = std::make_unique<FakeEndpoint>(FakeEndpoint::Mode(mode));
            url = fake->url();
        }
        for (const bool discovered : {true, false}) {
            MetricsScraper scraper(options(url, discovered));
            QSignalSpy failed(&scraper, &MetricsScraper::scrapeFailed);
            QSignalSpy scraped(&scraper, &MetricsScraper::scraped);
            scraper.start();
            QTRY_VERIFY_WITH_TIMEOUT(failed.size() >= (discovered ? 1 : 2), 10000);
            QVERIFY2(failed.first().at(0).toString().contains(problem), qPrintable(failed.first().at(0).toString()));
            // A guessed endpoint is given up at once; a given one is asked again.
            QCOMPARE(failed.first().at(1).toBool(), discovered);
            QSignalSpy finished(&scraper, &MetricsScraper::finished);
            scraper.finish();
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
            if (discovered)
                QCOMPARE(failed.size(), 1);
            QCOMPARE(scraped.size(), 0);
        }
    }

    void goodEndpointWritesEverySeries()
    {
        FakeEndpoint fake(FakeEndpoint::Good);
        QTemporaryDir dir;
        const QString csv = dir.filePath(QStringLiteral("server_metrics.csv"));
        MetricsScraper scraper(options(fake.url(), true, csv));
        QSignalSpy scraped(&scraper, &MetricsScraper::scraped);
        scraper.start();
        QTRY_VERIFY_WITH_TIMEOUT(scraped.size() >= 3, 10000);
        QSignalSpy finished(&scraper, &MetricsScraper::finished);
        scraper.finish();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 5000);
        const int n = int(scraped.size());
        QCOMPARE(fake.requests, n);
        QCOMPARE(scraped.first().at(1).toString(), QStringLiteral("vllm"));
        QCOMPARE(*scraped.last().at(0).value<ServerPoint>().running, double(n));
        QFile file(csv);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = file.readAll().split('\n');
        QCOMPARE(lines.size(), n + 2); // header, one row per scrape, the empty piece after the last CRLF
        QCOMPARE(lines[0], QByteArray("t_s,name,labels,value\r"));
        QVERIFY2(lines[1].endsWith(",vllm:num_requests_running,\"{model_name=\"\"m\"\"}\",1\r"), lines[1].constData());
    }

    void endpointFromTheTarget_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("metricsUrl");
        QTest::addColumn<bool>("enabled");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("discovered");
        QTest::newRow("server root") << "http://127.0.0.1:8000/v1"
                                     << "" << true << "http://127.0.0.1:8000/metrics" << true;
        QTest::newRow("no credentials") << "https://user:key@10.0.0.1/api/v1?x=1"
                                        << "" << true << "https://10.0.0.1/metrics" << true;
        QTest::newRow("given") << "http://127.0.0.1:8000/v1"
                               << "http://127.0.0.1:9090/metrics" << true << "http://127.0.0.1:9090/metrics" << false;
        QTest::newRow("off") << "http://127.0.0.1:8000/v1"
                             << "http://127.0.0.1:9090/metrics" << false << "" << false;
    }

    void endpointFromTheTarget()
    {
        QFETCH(QString, url);
        QFETCH(QString, metricsUrl);
        QFETCH(bool, enabled);
        TargetConfig t;
        t.url = url;
        t.serverMetricsUrl = metricsUrl;
        t.serverMetrics = enabled;
        bool discovered = true;
        const QUrl endpoint = MetricsScraper::endpointFor(t, &discovered);
        QTEST(endpoint.toString(), "expected");
        QTEST(discovered, "discovered");
    }

    /// A slow metrics endpoint must not disturb the run: every request completes, the run ends soon
    /// after its last request, and the reason is reported once.
    void badEndpointDoesNotDisturbTheRun_data()
    {
        QTest::addColumn<int>("mode"); // -1: nothing listens
        QTest::addColumn<QString>("problem");
        QTest::newRow("missing") << -1 << "Connection refused";
        QTest::newRow("slow") << int(FakeEndpoint::Silent) << "no answer within";
        QTest::newRow("huge") << int(FakeEndpoint::HugeAnnounced) << "larger than 8388608 bytes";
        QTest::newRow("not prometheus") << int(FakeEndpoint::Html) << "not Prometheus text";
    }

    void badEndpointDoesNotDisturbTheRun()
    {
        QFETCH(int, mode);
        QFETCH(QString, problem);
        std::unique_ptr<FakeEndpoint> bad;
        QUrl url(QStringLiteral("http://127.0.0.1:9/metrics")); // discard port: nothing listens
        if (mode >= 0) {
            bad = std::make_unique<FakeEndpoint>(FakeEndpoint::Mode(mode));
            url = bad->url();
        }
        sim::SimulatorHost host(*sim::SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig config;
        config.target = tb::test::targetOf(host);
        config.target.serverMetricsUrl = url.toString();
        config.load.concurrency = 4;
        config.load.durationMs = 2500;
        config.outDir = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        QSignalSpy failed(&runner, &BenchmarkRunner::serverMetricsFailed);
        QSignalSpy done(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 30000);
        QCOMPARE(failed.size(), 1); // once, though every scrape failed
        QVERIFY2(failed.first().at(2).toString().contains(problem), qPrintable(failed.first().at(2).toString()));
        QCOMPARE(failed.first().at(3).toBool(), false);
        const RunOutcome outcome = done.first().first().value<RunOutcome>();
        QVERIFY(outcome.error.isEmpty());
        QVERIFY(outcome.summary.total.requests.ok > 100);
        QCOMPARE(outcome.summary.total.requests.failed, 0);
        QCOMPARE(host.stats().requestsServed, outcome.summary.total.requests.ok);
        QVERIFY(outcome.summary.server);
        QCOMPARE(outcome.summary.server->scrapes, 0);
        QVERIFY(outcome.summary.server->failures >= 1);
        QVERIFY(!bad || bad->requests >= 1);
        const auto data = RunReader::load(outcome.directory, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->summary.server);
        QVERIFY2(data->summary.server->problem.contains(problem), qPrintable(data->summary.server->problem));
        QVERIFY(!QFile::exists(outcome.directory + QStringLiteral("/server_metrics.csv")));
    }
};

QTEST_GUILESS_MAIN(TestMetricsScraper)
#include "tst_metricsscraper.moc"
