// BenchmarkRunner, the one entry point the GUI and the CLI share: live signals, summaries on a
// known simulator profile, Stop, and what a cancelled or abandoned run leaves on disk.
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/testsimulator.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

RunConfig configFor(const SimulatorHost &host, const QString &out)
{
    RunConfig c;
    c.target = tb::test::targetOf(host);
    c.load.concurrency = 4;
    c.load.requests = 24;
    c.request.maxTokens = 64;
    c.prompt.promptTokens = 40;
    c.outDir = out;
    return c;
}

/// configFor() with no end of its own: only Stop, or the runner's end, finishes it.
RunConfig endlessConfigFor(const SimulatorHost &host, const QString &out)
{
    RunConfig c = configFor(host, out);
    c.load.requests = 0;
    c.load.durationMs = 600000;
    return c;
}

bool within(double value, double low, double high)
{
    return value >= low && value <= high;
}

} // namespace

class TestBenchmarkRunner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<RunOutcome>();
        qRegisterMetaType<RunSnapshot>();
        qRegisterMetaType<RunProgress>();
    }

    void metricsOnAKnownProfile()
    {
        // Fixed timing: TTFT ≈ 60 ms, one token per 20 ms step, the server packing 4 tokens per SSE
        // event after the first; 21 tokens each. So TPOT ≈ ITL ≈ 20 ms per token, while the raw
        // inter-chunk gap ICL ≈ 80 ms: what tools that call ICL "ITL" would report.
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.ttftMs = 60;
        sc.prefillMsPer1k = 0;
        sc.prefillQuadraticMs = 0;
        sc.stepMs = 20;
        sc.stepMsPerSeq = 0;
        sc.tokensPerChunk = 4;
        sc.outputDist = sim::OutputDistribution::Fixed;
        sc.outputTokens = 21;
        sc.outputMin = 21;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        BenchmarkRunner runner;
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(configFor(host, dir.filePath(QStringLiteral("run"))), &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        const SummaryBlock &t = outcome.summary.total;
        QCOMPARE(t.requests.ok, std::int64_t(24));
        QCOMPARE(t.tokens.output, std::int64_t(24 * 21));
        // Tolerances that survive a loaded machine; bench/ reports the exact figures.
        QVERIFY2(within(t.stat(Metric::Ttft).p50, 58, 250), qPrintable(QString::number(t.stat(Metric::Ttft).p50)));
        QVERIFY2(within(t.stat(Metric::Tpot).p50, 19, 35), qPrintable(QString::number(t.stat(Metric::Tpot).p50)));
        QVERIFY2(within(t.stat(Metric::Itl).p50, 19, 35), qPrintable(QString::number(t.stat(Metric::Itl).p50)));
        QVERIFY2(within(t.stat(Metric::Icl).p50, 76, 140), qPrintable(QString::number(t.stat(Metric::Icl).p50)));
        QVERIFY2(within(t.stat(Metric::TokensPerChunk).p50, 3.9, 4.1),
                 qPrintable(QString::number(t.stat(Metric::TokensPerChunk).p50)));
        QCOMPARE(t.concurrency.peakInFlight, 4);
        QCOMPARE(t.tokens.fromUsage, std::int64_t(24));
    }

    void liveSignalsArriveBatched()
    {
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.stepMs = 5;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        BenchmarkRunner runner;
        RunConfig config = configFor(host, dir.filePath(QStringLiteral("run")));
        config.load.requests = 0;
        config.load.durationMs = 1500;
        QSignalSpy started(&runner, &BenchmarkRunner::runStarted);
        QSignalSpy stages(&runner, &BenchmarkRunner::stageStarted);
        QSignalSpy progress(&runner, &BenchmarkRunner::progressed);
        QSignalSpy snapshots(&runner, &BenchmarkRunner::snapshotUpdated);
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        qint64 records = 0;
        int batches = 0;
        connect(&runner, &BenchmarkRunner::recordsCompleted, this, [&](const QList<RequestRecord> &batch) {
            ++batches;
            records += batch.size();
            for (const RequestRecord &r : batch)
                QVERIFY(r.tokenChunks.empty()); // the GUI gets records without per-chunk stamps
        });
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QVERIFY(runner.isRunning());
        QCOMPARE(started.count(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QVERIFY(!runner.isRunning());
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        QCOMPARE(records, outcome.summary.total.requests.ok);
        QVERIFY(records > 20);
        QVERIFY2(batches < records, "records must be batched, not sent one by one");
        QVERIFY(stages.count() >= 1);
        QVERIFY(progress.count() >= 5);
        QVERIFY(snapshots.count() >= 3);
        QVERIFY(!outcome.timeSeries.empty());
        QVERIFY(!outcome.cancelled);
        QVERIFY(outcome.error.isEmpty());
    }

    // Prompt calibration's probes came before the load on the run's clock: every time chart and
    // timeseries.csv started with seconds of nothing (12.7 s against gpt4-like), while the live
    // display said "Stage 1 of 1 · 0%". Its time is recorded apart, and its probes are progress.
    void calibrationTimeIsNotRunTime()
    {
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.ttftMs = 300; // each of calibration's ~7 sequential probes waits this long: ~2 s in all
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig config = configFor(host, dir.filePath(QStringLiteral("run")));
        config.prompt.calibrate = true;
        config.load.requests = 0;
        config.load.durationMs = 1500;
        BenchmarkRunner runner;
        QList<RunProgress> calibrating;
        connect(&runner, &BenchmarkRunner::progressed, this, [&calibrating](const RunProgress &p) {
            if (p.calibrating)
                calibrating << p;
        });
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        const PromptSizing &sizing = outcome.summary.promptSizing;
        QCOMPARE(sizing.calibration, QStringLiteral("usage"));
        QVERIFY2(sizing.calibrationS >= 1.5 && sizing.calibrationS < 30,
                 qPrintable(QString::number(sizing.calibrationS)));

        // The load starts at t = 0: the first second with requests sent is the first, and the
        // series ends with the load (1.5 s and the last requests' 0.3 s), not calibration later.
        const auto first = std::find_if(outcome.timeSeries.begin(), outcome.timeSeries.end(),
                                        [](const TimeSeriesRow &row) { return row.sent > 0; });
        QVERIFY(first != outcome.timeSeries.end());
        QCOMPARE(first->second, 0);
        QVERIFY2(outcome.timeSeries.back().second <= 2, qPrintable(QString::number(outcome.timeSeries.back().second)));
        const double windowS = outcome.summary.total.windowS;
        QVERIFY2(windowS >= 1.4 && windowS < 2.5, qPrintable(QString::number(windowS)));

        // Saved alike: run.json's clock is the load's, the summary keeps calibration's seconds.
        const auto saved = RunReader::load(outcome.directory, &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->info.monotonicOriginNs, outcome.steadyOriginNs);
        QCOMPARE(saved->info.startedAt, runner.info().startedAt);
        QCOMPARE(saved->summary.promptSizing.calibrationS, sizing.calibrationS);
        const auto firstSent =
            std::min_element(saved->records.begin(), saved->records.end(),
                             [](const RequestRecord &a, const RequestRecord &b) { return a.sentNs < b.sentNs; });
        QVERIFY(firstSent != saved->records.end());
        QVERIFY2(firstSent->sentNs < 500'000'000, qPrintable(QString::number(firstSent->sentNs)));

        // Meanwhile its probes were the progress, counting up (the plan a lower bound of what
        // they came to), on no run clock yet.
        QVERIFY(calibrating.size() >= 3);
        for (const RunProgress &p : std::as_const(calibrating)) {
            QVERIFY(p.probesSent >= 1 && p.probesSent <= p.probesPlanned && p.probesPlanned <= sizing.probes);
            QCOMPARE(p.elapsedNs, std::int64_t(0));
        }
        QVERIFY(calibrating.constLast().probesSent > calibrating.constFirst().probesSent);
        QVERIFY(calibrating.constLast().calibrationNs > calibrating.constFirst().calibrationNs);
    }

    void stopIsPromptSafeTwiceAndSaves()
    {
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.ttftMs = 60000;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY(runner.start(endlessConfigFor(host, out), &error));
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(4), 20000);
        QElapsedTimer stopTime;
        stopTime.start();
        runner.stop();
        runner.stop();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 20000);
        QVERIFY2(stopTime.elapsed() < 10000, "Stop must not wait for the requests in flight");
        runner.stop(); // after the end: a no-op
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        QVERIFY(outcome.cancelled);
        QCOMPARE(outcome.summary.total.requests.cancelled, std::int64_t(4));
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->records.size(), std::size_t(4));
    }

    void destroyedMidRunStillSaves()
    {
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        {
            BenchmarkRunner runner;
            QSignalSpy records(&runner, &BenchmarkRunner::recordsCompleted);
            QString error;
            QVERIFY(runner.start(endlessConfigFor(host, out), &error));
            QTRY_VERIFY_WITH_TIMEOUT(records.count() >= 2, 20000);
        } // the destructor joins every thread
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->summary.total.requests.ok > 0);
        QCOMPARE(std::int64_t(data->records.size()),
                 data->summary.total.requests.ok + data->summary.total.requests.failed +
                     data->summary.total.requests.cancelled + data->summary.total.requests.warmup);
    }

    void interleavedSendsEachRequestToEveryTarget()
    {
        // Three servers of different speeds; one workload, each request to all three at once.
        std::vector<std::unique_ptr<SimulatorHost>> hosts;
        QList<TargetConfig> targets;
        QStringList directories;
        QTemporaryDir dir;
        for (double ttft : {90.0, 10.0, 50.0}) {
            SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
            sc.ttftMs = ttft;
            hosts.push_back(std::make_unique<SimulatorHost>(sc));
            QVERIFY(hosts.back()->start());
            targets << tb::test::targetOf(*hosts.back(), QStringLiteral("ttft-%1").arg(ttft));
            directories << dir.filePath(targets.back().name);
        }
        RunConfig workload = configFor(*hosts.front(), QString());
        workload.load.concurrency = 3;
        workload.load.requests = 15;
        BenchmarkRunner runner;
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.startInterleaved(workload, targets, directories, &error), qPrintable(error));
        QCOMPARE(runner.targetCount(), 3);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 3, 60000);
        std::vector<double> ttftP50;
        std::vector<std::set<std::uint64_t>> ids;
        for (int i = 0; i < 3; ++i) {
            const RunOutcome outcome = finished.at(i).first().value<RunOutcome>();
            QCOMPARE(outcome.target, i);
            QCOMPARE(outcome.directory, directories[i]);
            QCOMPARE(outcome.summary.total.requests.ok, std::int64_t(15));
            // Users wait for the slowest target before their next request: never more than 3 at
            // a server, and the slowest (90 ms) holds all 3. (A fast one may see fewer at once on a
            // loaded machine: one user's request can finish before another's is sent.)
            QVERIFY(hosts[std::size_t(i)]->stats().peakConcurrentRequests <= 3);
            if (i == 0)
                QCOMPARE(hosts[std::size_t(i)]->stats().peakConcurrentRequests, qint64(3));
            ttftP50.push_back(outcome.summary.total.stat(Metric::Ttft).p50);
            const auto data = RunReader::load(directories[i], &error);
            QVERIFY2(data, qPrintable(error));
            std::set<std::uint64_t> runIds;
            for (const RequestRecord &r : data->records)
                runIds.insert(r.id);
            ids.push_back(runIds);
        }
        QCOMPARE(ids[0], ids[1]); // request i went to every target: paired by id
        QCOMPARE(ids[1], ids[2]);
        QVERIFY(ttftP50[1] < ttftP50[2] && ttftP50[2] < ttftP50[0]);
    }

    void startFailures_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<bool>("configuration");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad config") << QStringLiteral("config") << true << QStringLiteral("load.concurrency");
        QTest::newRow("unwritable directory") << QStringLiteral("dir") << false << QStringLiteral("/proc/tokenbench");
    }

    void startFailures()
    {
        QFETCH(QString, what);
        QFETCH(bool, configuration);
        QFETCH(QString, message);
        SimulatorHost host(*SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig config = configFor(host, dir.filePath(QStringLiteral("run")));
        if (what == QLatin1String("config"))
            config.load.concurrency = 0;
        else
            config.outDir = QStringLiteral("/proc/tokenbench/run");
        BenchmarkRunner runner;
        QString error;
        QVERIFY(!runner.start(config, &error));
        QCOMPARE(runner.failureIsConfiguration(), configuration);
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY(!runner.isRunning());
        // The runner is reusable after a failed start.
        QVERIFY2(runner.start(configFor(host, dir.filePath(QStringLiteral("ok"))), &error), qPrintable(error));
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
    }
};

QTEST_GUILESS_MAIN(TestBenchmarkRunner)
#include "tst_benchmarkrunner.moc"
