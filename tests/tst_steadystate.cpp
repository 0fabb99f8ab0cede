// The steady window end to end: a simulator with a cold engine, a closed-loop run, its summary's
// "steady" block against the whole run's, the headline figures made of it (--window steady), and the
// same blocks read back from summary.json.
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/testsimulator.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

class TestSteadyState : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void coldEngineStartIsCutOff()
    {
        // Prefill of the 256-token prompts is 100 ms warm, 4× that at the first request, easing to
        // 1× over 8 s; 4 users keep the serial prefill unit busy enough that TTFT shows it. Window
        // [5, 10) still has 3 cold seconds (TTFT ≈ 1.4–2.1× the warm level), beyond the ±15% band,
        // so the steady window starts at 10 s (or one window later on a machine this busy).
        SimConfig sc;
        sc.ttftMs = 50;
        sc.prefillMsPer1k = 400;
        sc.prefillQuadraticMs = 0;
        sc.outputTokens = 64;
        sc.warmupS = 8;
        sc.warmupFactor = 4;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig c;
        c.target = tb::test::targetOf(host);
        c.load.concurrency = 4;
        c.load.durationMs = 25000;
        c.request.maxTokens = 64;
        c.prompt.promptTokens = 256;
        c.load.window = QStringLiteral("steady");
        c.outDir = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(c, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        const RunSummary &s = outcome.summary;
        const SummaryBlock &whole = s.wholeRun();
        QVERIFY(s.steady);
        const SteadyWindow &w = s.steady->window;
        QVERIFY2(w.found, qPrintable(w.reason));
        QVERIFY2(w.startS >= 10 && w.startS <= 15, qPrintable(s.steady->line(whole)));
        QVERIFY2(w.endS >= 20 && w.endS <= 25, qPrintable(s.steady->line(whole)));
        QVERIFY(s.steady->block);
        const SummaryBlock &steady = *s.steady->block;
        QCOMPARE(steady.name, QStringLiteral("steady"));
        QVERIFY(steady.requests.ok > 20 && steady.requests.ok < whole.requests.ok);
        // The cold start's slow prefills are the whole run's tail, not the steady window's.
        const double steadyP99 = steady.stat(Metric::Ttft).p99;
        const double wholeP99 = whole.stat(Metric::Ttft).p99;
        QVERIFY2(steadyP99 < 0.8 * wholeP99, qPrintable(s.steady->line(whole)));
        QVERIFY(steady.stat(Metric::Itl).count > 0); // chunks were read back: a full block
        QVERIFY2(s.steady->line(whole).startsWith(QStringLiteral("steady state %1–%2 s of ").arg(w.startS).arg(w.endS)),
                 qPrintable(s.steady->line(whole)));

        // --window steady: the headline is the steady block, the whole run kept beside it.
        QVERIFY(s.window);
        QCOMPARE(s.window->mode, QStringLiteral("steady"));
        QCOMPARE(s.window->startS, double(w.startS));
        QCOMPARE(s.total.requests.ok, steady.requests.ok);
        QCOMPARE(s.total.stat(Metric::Ttft).p99, steadyP99);
        QVERIFY(whole.requests.ok > steady.requests.ok);

        QString why;
        const auto saved = RunReader::load(outcome.directory, &why, RunReader::SummaryOnly);
        QVERIFY2(saved, qPrintable(why));
        QVERIFY(saved->summary.steady && saved->summary.steady->block);
        QCOMPARE(saved->summary.steady->window.startS, w.startS);
        QCOMPARE(saved->summary.steady->method, SteadyWindow::method());
        QCOMPARE(saved->summary.steady->block->requests.ok, steady.requests.ok);
        QCOMPARE(saved->summary.steady->block->stat(Metric::Ttft).p99, steadyP99);
        QVERIFY(saved->summary.window);
        QCOMPARE(saved->summary.total.requests.ok, steady.requests.ok);
        QCOMPARE(saved->summary.window->whole.requests.ok, whole.requests.ok);
    }
};

QTEST_GUILESS_MAIN(TestSteadyState)
#include "tst_steadystate.moc"
