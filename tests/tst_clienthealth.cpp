// Client self-health (issue 16): a run whose client is starved on purpose (its run thread kept busy
// past every timer tick) is flagged in summary.json and its warnings; a normal run is not.
#include "metrics/clienthealthsummary.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

class TestClientHealth : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void starvedClientIsFlagged_data()
    {
        QTest::addColumn<int>("stallMs");
        QTest::addColumn<bool>("flagged");
        QTest::newRow("normal run") << 0 << false;
        // 150 ms busy at every 100 ms tick: every timer of the run's thread — arrivals too — is late.
        QTest::newRow("starved run thread") << 150 << true;
    }

    void starvedClientIsFlagged()
    {
        QFETCH(int, stallMs);
        QFETCH(bool, flagged);
        SimulatorHost host(*SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig c;
        c.target.url = host.baseUrl().toString();
        c.target.model = host.config().model;
        c.target.serverMetrics = false;
        c.load.mode = LoadMode::Rate;
        c.load.rate = 20;
        c.load.durationMs = 3000;
        c.request.maxTokens = 16;
        c.prompt.promptTokens = 20;
        c.outDir = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        runner.setTestStallMs(stallMs);
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(c, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        QVERIFY(outcome.summary.total.requests.ok > 0);
        QVERIFY(outcome.summary.client);
        const ClientHealthSummary &h = *outcome.summary.client;
        const QString shown = QString::fromStdString(h.toJson().dump());
        QVERIFY2(h.seconds >= 3, qPrintable(shown));
        QVERIFY2(h.cores >= 1 && h.cpuMeanPct >= 0 && h.cpuPeakPct >= h.cpuMeanPct, qPrintable(shown));
        QVERIFY2(h.sendLagP50Ms, qPrintable(shown)); // open loop without a cap: the send lag is judged
        QCOMPARE(h.saturated, flagged);
        const bool warned =
            std::any_of(outcome.summary.warnings.begin(), outcome.summary.warnings.end(),
                        [](const QString &w) { return w.startsWith(QStringLiteral("client saturated for ")); });
        QCOMPARE(warned, flagged);
        if (flagged) {
            QVERIFY2(h.loopLagMeanMs >= 20 || *h.sendLagP50Ms >= 20, qPrintable(shown));
            QVERIFY(h.firstSaturatedS);
            QVERIFY2(h.note().contains(
                         QStringLiteral("figures after %1 s are limited by this machine").arg(*h.firstSaturatedS)),
                     qPrintable(h.note()));
        }

        // summary.json says the same, and reads back.
        QFile file(outcome.directory + QStringLiteral("/summary.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["client"]["saturated"].get<bool>(), flagged);
        QCOMPARE(json["client"]["note"].is_string(), flagged);
        QString why;
        const auto back = RunSummary::fromJson(json, &why);
        QVERIFY2(back && back->client, qPrintable(why));
        QCOMPARE(back->client->saturatedSeconds, h.saturatedSeconds);
        QCOMPARE(back->client->firstSaturatedS, h.firstSaturatedS);
    }
};

QTEST_GUILESS_MAIN(TestClientHealth)
#include "tst_clienthealth.moc"
