// --metrics-listen (issue 16): TokenBench's own figures as OpenMetrics, scraped over real HTTP on
// 127.0.0.1 while a run goes and after it, checked against the run's summary; and scrapers that
// misbehave (idle, huge, flooding) get nothing from the run.
#include "formats/prometheustext.h"
#include "observe/metricsexporter.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/openmetricsscrape.h"
#include "support/testsimulator.h"

#include <QSignalSpy>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <algorithm>

#include <memory>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::parsed;
using tb::test::Scrape;
using tb::test::scrape;
using tb::test::value;

namespace {

SimConfig slowSim()
{
    SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
    sc.ttftMs = 40;
    sc.stepMs = 10;
    sc.outputDist = sim::OutputDistribution::Fixed;
    sc.outputTokens = 20;
    sc.outputMin = 20;
    return sc;
}

RunConfig rateRun(const SimulatorHost &host, const QString &out, qint64 durationMs)
{
    RunConfig c;
    c.target = tb::test::targetOf(host);
    c.target.serverMetrics = false;
    c.load.mode = LoadMode::Rate;
    c.load.rate = 20;
    c.load.durationMs = durationMs;
    c.request.maxTokens = 64;
    c.prompt.promptTokens = 50;
    c.outDir = out;
    return c;
}

/// A rate run against slowSim() with the exporter listening (by default on an ephemeral port of
/// 127.0.0.1), for a test to scrape while it runs.
struct ExportingRun {
    SimulatorHost host{slowSim()};
    QTemporaryDir dir;
    BenchmarkRunner runner;
    QSignalSpy finished{&runner, &BenchmarkRunner::runFinished};

    bool start(qint64 durationMs, QString *error, const QString &listen = QStringLiteral("127.0.0.1:0"))
    {
        if (!host.start()) {
            *error = QStringLiteral("the simulator did not start");
            return false;
        }
        runner.setMetricsListen(listen);
        return runner.start(rateRun(host, dir.filePath(QStringLiteral("run")), durationMs), error);
    }
};

} // namespace

class TestMetricsExporter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void textIsOpenMetrics()
    {
        ExportedTarget t;
        t.name = QStringLiteral("a \"quoted\" name");
        t.inFlight = 3;
        SummaryBlock stage;
        stage.name = QStringLiteral("c=4");
        stage.requests.ok = 5;
        stage.requests.failed = 2;
        stage.requests.byError[QStringLiteral("timeout")] = 2;
        stage.requests.byStatus[200] = 5;
        stage.tokens.input = 100;
        stage.tokens.output = 40;
        for (const double ms : {3.0, 30.0, 300.0, 3000.0, 30000.0})
            stage.histograms[std::size_t(Metric::Ttft)].record(ms);
        t.summary.stages.push_back(stage);
        const QByteArray text = openMetricsText({t});
        QVERIFY(text.endsWith("# EOF\n"));
        QString why;
        const auto e = parsePrometheusText(text, &why);
        QVERIFY2(e, qPrintable(why));
        QVERIFY(e->openMetrics);
        const PromFamily *ttft = e->familyOf("tokenbench_ttft_seconds_bucket");
        QVERIFY(ttft);
        QCOMPARE(ttft->type, PromType::Histogram);
        QCOMPARE(ttft->unit, std::string("seconds"));
        QCOMPARE(e->familyOf("tokenbench_requests_total")->type, PromType::Counter);
        const std::string name = t.name.toStdString();
        QCOMPARE(value(*e, "tokenbench_requests_total", {{"target", name}, {"status", "ok"}}), 5.0);
        QCOMPARE(value(*e, "tokenbench_requests_total", {{"status", "timeout"}}), 2.0);
        QCOMPARE(value(*e, "tokenbench_http_responses_total", {{"code", "200"}}), 5.0);
        QCOMPARE(value(*e, "tokenbench_tokens_total", {{"kind", "output"}}), 40.0);
        QCOMPARE(value(*e, "tokenbench_requests_in_flight"), 3.0);
        // Cumulative buckets in seconds: 3 ms ≤ 0.005 s, 300 ms ≤ 0.5 s, 30 s ≤ 40 s.
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_bucket", {{"le", "0.0025"}}), 0.0);
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_bucket", {{"le", "0.005"}}), 1.0);
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_bucket", {{"le", "0.5"}}), 3.0);
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_bucket", {{"le", "20"}}), 4.0);
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_bucket", {{"le", "+Inf"}}), 5.0);
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_count"), 5.0);
        QVERIFY(std::abs(value(*e, "tokenbench_ttft_seconds_sum") - 33.333) < 1e-9);
    }

    void badAddressIsAConfigurationError_data()
    {
        QTest::addColumn<QString>("address");
        QTest::newRow("no port") << QStringLiteral("127.0.0.1");
        QTest::newRow("name") << QStringLiteral("localhost:9464");
        QTest::newRow("port too large") << QStringLiteral("127.0.0.1:70000");
        QTest::newRow("junk") << QStringLiteral(":");
    }

    void badAddressIsAConfigurationError()
    {
        QFETCH(QString, address);
        ExportingRun run;
        QString error;
        QVERIFY(!run.start(1000, &error, address));
        QVERIFY(run.runner.failureIsConfiguration());
        QVERIFY2(error.startsWith(QStringLiteral("--metrics-listen: ")), qPrintable(error));
    }

    void scrapedMidRunAgreesWithTheSummary()
    {
        ExportingRun run;
        QString error;
        QVERIFY2(run.start(4000, &error), qPrintable(error));
        const QString url = run.runner.metricsUrl();
        QVERIFY2(url.startsWith(QStringLiteral("http://127.0.0.1:")) && url.endsWith(QStringLiteral("/metrics")),
                 qPrintable(url));

        // Mid-run: some requests done, the run not over.
        double midOk = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const Scrape s = scrape(url);
                const auto e = parsed(s);
                midOk = e ? value(*e, "tokenbench_requests_total", {{"status", "ok"}}) : 0;
                return s.status == 200 && midOk > 0;
            }(),
            20000);
        QCOMPARE(run.finished.count(), 0);
        const Scrape mid = scrape(url);
        QCOMPARE(mid.contentType, QByteArray(MetricsExporter::kContentType));
        QVERIFY(mid.body.endsWith("# EOF\n"));

        QTRY_COMPARE_WITH_TIMEOUT(run.finished.count(), 1, 60000);
        const RunOutcome outcome = run.finished.first().first().value<RunOutcome>();
        const SummaryBlock &t = outcome.summary.total;
        QVERIFY(t.requests.ok > 0);
        QVERIFY(midOk <= double(t.requests.ok));

        // After the run: the endpoint serves the final figures, equal to the summary's.
        const auto e = parsed(scrape(url));
        QVERIFY(e);
        const std::string stage = outcome.summary.stages.at(0).name.toStdString();
        QCOMPARE(value(*e, "tokenbench_requests_total", {{"stage", stage}, {"status", "ok"}}), double(t.requests.ok));
        QCOMPARE(value(*e, "tokenbench_tokens_total", {{"kind", "output"}}), double(t.tokens.output));
        QCOMPARE(value(*e, "tokenbench_tokens_total", {{"kind", "input"}}), double(t.tokens.input));
        QCOMPARE(value(*e, "tokenbench_http_responses_total", {{"code", "200"}}), double(t.requests.byStatus.at(200)));
        QCOMPARE(value(*e, "tokenbench_ttft_seconds_count"), double(t.stat(Metric::Ttft).count));
        QCOMPARE(value(*e, "tokenbench_e2e_seconds_count"), double(t.stat(Metric::E2e).count));
        QCOMPARE(value(*e, "tokenbench_itl_seconds_count"), double(t.stat(Metric::Itl).count));
        const double meanTtftS = value(*e, "tokenbench_ttft_seconds_sum") / value(*e, "tokenbench_ttft_seconds_count");
        QVERIFY(std::abs(meanTtftS * 1000 - t.stat(Metric::Ttft).mean) < 1e-6 * t.stat(Metric::Ttft).mean);
        QCOMPARE(value(*e, "tokenbench_requests_in_flight"), 0.0);
        QCOMPARE(scrape(url, "/other").status, 404);
    }

    void hostileScrapersDoNotDisturbTheRun()
    {
        ExportingRun run;
        QString error;
        QVERIFY2(run.start(3000, &error), qPrintable(error));
        const QUrl url(run.runner.metricsUrl());

        // A header that never ends, and garbage (a TLS hello), each answered and closed.
        QTcpSocket huge;
        huge.connectToHost(url.host(), quint16(url.port()));
        QVERIFY(huge.waitForConnected(5000));
        huge.write("GET /metrics HTTP/1.1\r\nX-Pad: " + QByteArray(4 * MetricsExporter::kMaxRequestBytes, 'x'));
        QTcpSocket garbage;
        garbage.connectToHost(url.host(), quint16(url.port()));
        QVERIFY(garbage.waitForConnected(5000));
        garbage.write(QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15));

        QByteArray hugeAnswer;
        QTRY_VERIFY_WITH_TIMEOUT((hugeAnswer += huge.readAll()).startsWith("HTTP/1.1 431"), 10000);
        QByteArray garbageAnswer;
        QTRY_VERIFY_WITH_TIMEOUT((garbageAnswer += garbage.readAll()).startsWith("HTTP/1.1 400"), 10000);

        // A flood of connections that never send a byte: beyond the limit they are closed at once.
        std::vector<std::unique_ptr<QTcpSocket>> idle;
        for (int i = 0; i < 3 * MetricsExporter::kMaxConnections; ++i) {
            idle.push_back(std::make_unique<QTcpSocket>());
            idle.back()->connectToHost(url.host(), quint16(url.port()));
        }
        QTcpSocket late;
        late.connectToHost(url.host(), quint16(url.port()));
        // Sooner than any deadline: refused for want of a slot, not timed out.
        QTRY_COMPARE_WITH_TIMEOUT(late.state(), QAbstractSocket::UnconnectedState, MetricsExporter::kDeadlineMs / 2);
        // The idle ones are dropped at their deadline; then a well-behaved scraper is served.
        QTRY_VERIFY_WITH_TIMEOUT(scrape(url.toString()).status == 200, 3 * MetricsExporter::kDeadlineMs);

        QTRY_COMPARE_WITH_TIMEOUT(run.finished.count(), 1, 60000);
        const RunOutcome outcome = run.finished.first().first().value<RunOutcome>();
        QVERIFY(outcome.error.isEmpty());
        QVERIFY(outcome.summary.total.requests.ok > 0);
        QCOMPARE(outcome.summary.total.requests.failed, std::int64_t(0));
        // On a loaded machine the kernel's accept queue overflows and some of the flood connects
        // only on a SYN retry (1 s, 3 s, 7 s later), takes a slot the refused ones freed and starts
        // its own deadline then: every idle socket is dropped, the last ones a deadline after that.
        const auto dropped = [&idle] {
            return int(std::count_if(idle.begin(), idle.end(),
                                     [](const auto &s) { return s->state() == QAbstractSocket::UnconnectedState; }));
        };
        QTRY_COMPARE_WITH_TIMEOUT(dropped(), int(idle.size()), 4 * MetricsExporter::kDeadlineMs);
    }
};

QTEST_GUILESS_MAIN(TestMetricsExporter)
#include "tst_metricsexporter.moc"
