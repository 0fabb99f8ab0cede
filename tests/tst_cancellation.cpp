// Request cancellation (--cancel-rate, --cancel-after): which requests are abandoned, how (a closed
// HTTP/1.1 connection, RST_STREAM on HTTP/2, QNAM's abort), how they are counted, and whether the
// simulator frees their capacity (ignore_cancel keeps it busy).
#include "config/configfield.h"
#include "metrics/runaggregator.h"
#include "sim/simulatorhost.h"

#include "support/loadrun.h"
#include "support/testnumbers.h"
#include "support/testsimulator.h"

#include <QTest>

#include <algorithm>
#include <set>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimStats;
using tb::test::ns;

namespace {

/// A record as the worker makes it: sent at `sentMs`, its first token `ttftMs` later (none when
/// negative), done at `doneMs`.
RequestRecord cancelRecord(std::uint64_t id, RequestStatus status, double sentMs, double ttftMs, double doneMs)
{
    RequestRecord r;
    r.id = id;
    r.status = status;
    r.httpStatus = 200;
    r.sentNs = ns(sentMs);
    r.headersNs = r.sentNs;
    r.firstTokenNs = ttftMs >= 0 ? ns(sentMs + ttftMs) : -1;
    r.lastTokenNs = status == RequestStatus::Ok ? ns(doneMs) : r.firstTokenNs;
    r.doneNs = ns(doneMs);
    if (status == RequestStatus::Ok) {
        r.chunks = 2;
        r.completionTokens = 2;
        r.tokenChunks = {{r.firstTokenNs, 4}, {r.lastTokenNs, 4}};
    }
    return r;
}

} // namespace

class TestCancellation : public QObject
{
    Q_OBJECT

private slots:
    void parseCancelAfter_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<qint64>("ms");
        QTest::addColumn<bool>("afterFirstToken");
        QTest::newRow("duration") << "200ms" << true << qint64(200) << false;
        QTest::newRow("seconds") << "2s" << true << qint64(2000) << false;
        QTest::newRow("first token plus") << "first-token+50ms" << true << qint64(50) << true;
        QTest::newRow("first token") << "first-token" << true << qint64(0) << true;
        QTest::newRow("no plus") << "first-token50ms" << false << qint64(0) << false;
        QTest::newRow("empty") << "" << false << qint64(0) << false;
        QTest::newRow("word") << "soon" << false << qint64(0) << false;
        QTest::newRow("negative") << "-1s" << false << qint64(0) << false;
        QTest::newRow("too long") << "100000d" << false << qint64(0) << false;
    }
    void parseCancelAfter()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        QFETCH(qint64, ms);
        QFETCH(bool, afterFirstToken);
        const auto parsed = tb::parseCancelAfter(text);
        QCOMPARE(parsed.has_value(), valid);
        if (!parsed)
            return;
        QCOMPARE(parsed->ms, ms);
        QCOMPARE(parsed->afterFirstToken, afterFirstToken);
    }

    void configProblems_data()
    {
        QTest::addColumn<double>("rate");
        QTest::addColumn<QString>("after");
        QTest::addColumn<int>("field");       ///< of the one problem; -1: none
        QTest::addColumn<QString>("problem"); ///< a part of its message
        const int rate = int(ConfigFieldId::CancelRate);
        const int after = int(ConfigFieldId::CancelAfter);
        QTest::newRow("off") << 0.0 << "" << -1 << "";
        QTest::newRow("rate and time") << 0.5 << "200ms" << -1 << "";
        QTest::newRow("time without rate") << 0.0 << "first-token+1s" << -1 << "";
        QTest::newRow("rate without time") << 0.5 << "" << after << "--cancel-rate needs it";
        QTest::newRow("bad time") << 0.5 << "later" << after << "'later' is not a duration";
        QTest::newRow("bad time without rate") << 0.0 << "later" << after << "'later' is not a duration";
        QTest::newRow("rate above 1") << 1.5 << "200ms" << rate << "must be from 0 to 1";
        QTest::newRow("negative rate") << -0.1 << "200ms" << rate << "must be from 0 to 1";
    }
    void configProblems()
    {
        QFETCH(double, rate);
        QFETCH(QString, after);
        QFETCH(int, field);
        QFETCH(QString, problem);
        RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:1/v1");
        config.target.model = QStringLiteral("m");
        config.load.requests = 10;
        config.load.cancelRate = rate;
        config.load.cancelAfter = after;
        const QList<ConfigProblem> problems = tb::configProblems(config);
        if (field < 0) {
            QVERIFY2(problems.isEmpty(), qPrintable(problems.value(0).message));
            return;
        }
        QCOMPARE(problems.size(), 1);
        QCOMPARE(int(problems[0].field), field);
        QVERIFY2(problems[0].message.contains(problem), qPrintable(problems[0].message));
    }

    /// The summary's counts and the before/during split from records, whatever their order.
    void aggregatorCountsAndSplits()
    {
        RunConfig config;
        config.load.cancelRate = 0.5;
        config.load.cancelAfter = QStringLiteral("first-token+10ms");
        RunInfo info;
        info.config = config;
        info.stages = effectiveStages(config.load);
        RunAggregator aggregator(info);
        // Abandoned: one in prefill (no token) at 300 ms, two in decode later; the first
        // abandonment is at 300 ms: requests sent before it are "before", the others "during".
        aggregator.add(cancelRecord(4, RequestStatus::Ok, 320, 80, 400));
        aggregator.add(cancelRecord(5, RequestStatus::Ok, 450, 90, 600));
        aggregator.add(cancelRecord(3, RequestStatus::Abandoned, 250, 30, 500));
        aggregator.add(cancelRecord(1, RequestStatus::Ok, 0, 20, 100));
        aggregator.add(cancelRecord(2, RequestStatus::Abandoned, 100, -1, 300));
        aggregator.add(cancelRecord(6, RequestStatus::Ok, 200, 40, 280));
        aggregator.add(cancelRecord(7, RequestStatus::Abandoned, 350, 30, 700));
        const RunSummary s = aggregator.summary();
        QCOMPARE(s.total.requests.ok, 4);
        QCOMPARE(s.total.requests.failed, 0);
        QCOMPARE(s.total.requests.attempted, 4);
        QCOMPARE(s.total.requests.abandoned, 3);
        QCOMPARE(s.total.requests.abandonedInPrefill, 1);
        QVERIFY(!s.total.requests.byError.contains(QStringLiteral("abandoned")));
        QVERIFY(s.cancellation);
        const CancellationSummary &c = *s.cancellation;
        QCOMPARE(c.abandoned, 3);
        QCOMPARE(c.inPrefill, 1);
        QCOMPARE(c.inDecode, 2);
        QCOMPARE(*c.firstAbandonedS, 0.3);
        QCOMPARE(c.before.requests, 2);
        QCOMPARE(*c.before.ttftP50Ms, 20.0); // of 20 and 40: the lower middle value
        QCOMPARE(*c.before.e2eP50Ms, 80.0);  // of 100 and 80
        QCOMPARE(c.during.requests, 2);
        QCOMPARE(*c.during.ttftP50Ms, 80.0);
        QCOMPARE(*c.during.e2eP50Ms, 80.0); // of 80 and 150

        // summary.json keeps it all.
        QString error;
        const auto back = RunSummary::fromJson(s.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->total.requests.abandoned, 3);
        QCOMPARE(back->total.requests.abandonedInPrefill, 1);
        QVERIFY(back->cancellation);
        QCOMPARE(*back->cancellation, c);
    }

    /// Against the simulator: exactly the requests the run's draws chose are abandoned, in prefill
    /// or decode as --cancel-after says, over each wire; the simulator sees each client leave and
    /// frees the slot, or with ignore_cancel keeps generating for it.
    void abandonsAgainstSimulator_data()
    {
        QTest::addColumn<int>("transport");
        QTest::addColumn<int>("httpVersion");
        QTest::addColumn<QString>("after");
        QTest::addColumn<bool>("inDecode");
        QTest::addColumn<bool>("ignoreCancel");
        const int native = int(TransportKind::Native);
        const int qnam = int(TransportKind::Qnam);
        const int h1 = int(HttpVersion::Http1);
        const int h2 = int(HttpVersion::Http2);
        QTest::newRow("native 1.1 decode") << native << h1 << "first-token+30ms" << true << false;
        QTest::newRow("native 1.1 decode, ignored") << native << h1 << "first-token+30ms" << true << true;
        QTest::newRow("native h2c decode") << native << h2 << "first-token+30ms" << true << false;
        QTest::newRow("native h2c decode, ignored") << native << h2 << "first-token+30ms" << true << true;
        QTest::newRow("native 1.1 prefill") << native << h1 << "20ms" << false << false;
        QTest::newRow("qnam 1.1 decode") << qnam << h1 << "first-token+30ms" << true << false;
        QTest::newRow("qnam h2c prefill, ignored") << qnam << h2 << "20ms" << false << true;
    }
    void abandonsAgainstSimulator()
    {
        QFETCH(int, transport);
        QFETCH(int, httpVersion);
        QFETCH(QString, after);
        QFETCH(bool, inDecode);
        QFETCH(bool, ignoreCancel);
        SimConfig simConfig = *SimConfig::preset(QStringLiteral("fast"));
        simConfig.ttftMs = 100; // a prefill long enough to abandon in
        simConfig.stepMs = 8;   // 24 tokens: about 190 ms of decode to abandon in
        simConfig.stepMsPerSeq = 0;
        simConfig.outputTokens = 24;
        simConfig.outputDist = sim::OutputDistribution::Fixed;
        simConfig.ignoreCancel = ignoreCancel ? 1 : 0;
        auto host = test::startSimulator(simConfig);
        QVERIFY(host);
        RunConfig config;
        config.target = test::targetOf(*host);
        config.target.transport = TransportKind(transport);
        config.target.httpVersion = HttpVersion(httpVersion);
        config.load.concurrency = 4;
        config.load.requests = 24;
        config.load.timeoutMs = 30000;
        config.load.cancelRate = 0.4;
        config.load.cancelAfter = after;
        config.request.maxTokens = 24;
        config.prompt.promptTokens = 16;
        const test::LoadRun run = test::runLoad(config);
        QVERIFY(run.plan);
        QVERIFY(run.finished);
        QCOMPARE(int(run.records.size()), 24);

        std::set<std::uint64_t> chosen;
        for (std::uint64_t id = 1; id <= 24; ++id) {
            if (run.plan->prompts->unitDraw(1, id) < 0.4)
                chosen.insert(id);
        }
        QVERIFY(!chosen.empty() && chosen.size() < 24);
        std::set<std::uint64_t> abandoned;
        for (const RequestRecord &r : run.records) {
            if (r.status == RequestStatus::Abandoned) {
                abandoned.insert(r.id);
                QCOMPARE(r.firstTokenNs >= 0, inDecode);
                QVERIFY2(r.errorMessage.contains(inDecode ? u"in decode" : u"in prefill"), qPrintable(r.errorMessage));
            } else {
                QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            }
            QCOMPARE(r.httpVersion == 2, httpVersion == int(HttpVersion::Http2) && r.headersNs >= 0);
        }
        QCOMPARE(abandoned, chosen);

        RunInfo info;
        info.config = run.plan->config;
        info.stages = run.plan->stages;
        RunAggregator aggregator(info);
        for (const RequestRecord &r : run.records)
            aggregator.add(r);
        const RunSummary summary = aggregator.summary();
        QCOMPARE(summary.total.requests.abandoned, std::int64_t(chosen.size()));
        QCOMPARE(summary.total.requests.abandonedInPrefill, inDecode ? 0 : std::int64_t(chosen.size()));
        QCOMPARE(summary.total.requests.failed, 0);
        QCOMPARE(summary.total.requests.ok, 24 - std::int64_t(chosen.size()));
        // HTTP/1.1 closes the abandoned request's connection (its user's next request opens
        // another); HTTP/2 resets the stream and keeps the connection. QNAM does not say when it
        // connects (connectNs -1).
        if (TransportKind(transport) == TransportKind::Native) {
            const auto connects = std::count_if(run.records.begin(), run.records.end(),
                                                [](const RequestRecord &r) { return r.connectNs > 0; });
            if (httpVersion == int(HttpVersion::Http2))
                QVERIFY2(connects <= 4, qPrintable(QString::number(connects)));
            else
                QVERIFY2(connects >= std::int64_t(chosen.size()), qPrintable(QString::number(connects)));
        }

        // The server's side: it saw each client leave; it freed the slot, or kept generating.
        QTRY_COMPARE_WITH_TIMEOUT(host->stats().requestsActive, qint64(0), 10000);
        const SimStats stats = host->stats();
        QCOMPARE(stats.clientDisconnects, qint64(chosen.size()));
        QCOMPARE(stats.requestsServed, qint64(24 - qint64(chosen.size())));
        if (ignoreCancel)
            QVERIFY(stats.tokensAfterClientLeft > 0);
        else
            QCOMPARE(stats.tokensAfterClientLeft, qint64(0));
    }
};

QTEST_MAIN(TestCancellation)
#include "tst_cancellation.moc"
