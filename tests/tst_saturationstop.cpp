// --stop-on-saturation end to end: an open loop far beyond the simulator's capacity ends early with
// the reason in its summary; one well inside it runs its plan.
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/testsimulator.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

class TestSaturationStop : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void stopsOnlyWhenQueueingGrows_data()
    {
        QTest::addColumn<qint64>("maxBatch");
        QTest::addColumn<double>("rate");
        QTest::addColumn<qint64>("durationMs");
        QTest::addColumn<bool>("stops");
        // 2 sequences of 32 tokens at 10 ms a step: about 6 completions a second against 50
        // arrivals, so ~44 more wait every second; judged from 15 s on, it stops soon after.
        QTest::newRow("50/s into capacity ≈6/s") << qint64(2) << 50.0 << qint64(60000) << true;
        // 64 sequences: capacity ≈190/s against 5/s: level, runs its 20 s.
        QTest::newRow("5/s into capacity ≈190/s") << qint64(64) << 5.0 << qint64(20000) << false;
    }

    void stopsOnlyWhenQueueingGrows()
    {
        QFETCH(qint64, maxBatch);
        QFETCH(double, rate);
        QFETCH(qint64, durationMs);
        QFETCH(bool, stops);
        SimConfig sc;
        sc.ttftMs = 20;
        sc.stepMs = 10;
        sc.stepMsPerSeq = 0;
        sc.maxBatch = maxBatch;
        sc.outputDist = sim::OutputDistribution::Fixed;
        sc.outputTokens = 32;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig c;
        c.target = tb::test::targetOf(host);
        c.load.mode = LoadMode::Rate;
        c.load.rate = rate;
        c.load.durationMs = durationMs;
        c.load.stopOnSaturation = true;
        c.request.maxTokens = 32;
        c.prompt.promptTokens = 40;
        c.outDir = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(c, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 90000);
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        const RunSummary &s = outcome.summary;
        QCOMPARE(s.partial(), stops);
        if (!stops)
            return;
        const StopSummary &stopped = *s.total.stopped;
        // The detector judges 15 whole seconds of the run's clock; afterS counts from the load's
        // start, a few ms after the clock's zero (CI read 14.99x, printed "15.0 s").
        QVERIFY2(stopped.afterS >= 14.5 && stopped.afterS < 30, qPrintable(s.partialNote()));
        QVERIFY2(stopped.reason.startsWith(QStringLiteral("over-saturated at ")), qPrintable(s.partialNote()));
        QVERIFY2(s.partialNote().contains(QStringLiteral(" of 60 s: over-saturated at ")), qPrintable(s.partialNote()));
        QVERIFY(s.stages.at(0).stopped && s.stages.at(0).stopped->reason == stopped.reason);
        qInfo().noquote() << s.partialNote();
    }
};

QTEST_GUILESS_MAIN(TestSaturationStop)
#include "tst_saturationstop.moc"
