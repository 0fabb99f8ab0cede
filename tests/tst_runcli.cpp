// `tokenbench-cli run` as users and scripts run it: a real process against the real simulator.
#include "results/comparison.h"
#include "results/rundirectory.h"
#include "sim/simulatorhost.h"

#include <QDirIterator>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "clirunner.h"

#include <csignal>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

CliResult run(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    return runCli(QStringList{QStringLiteral("run")} + args, env);
}

SimConfig fastSim()
{
    return *SimConfig::preset(QStringLiteral("fast"));
}

QStringList target(const SimulatorHost &host)
{
    return {QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"), host.config().model, QStringLiteral("--quiet")};
}

} // namespace

class TestRunCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void badUsageExits2_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList base{QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"), QStringLiteral("--model"), QStringLiteral("m")};
        QTest::newRow("zero concurrency") << base + QStringList{QStringLiteral("--concurrency"), QStringLiteral("0")}
                                          << QStringLiteral("--concurrency: '0' is not a whole number ≥ 1");
        QTest::newRow("negative concurrency") << base + QStringList{QStringLiteral("--concurrency"), QStringLiteral("-3")}
                                              << QStringLiteral("--concurrency");
        QTest::newRow("rate and concurrency") << base + QStringList{QStringLiteral("--rate"), QStringLiteral("5"), QStringLiteral("--concurrency"), QStringLiteral("2")}
                                              << QStringLiteral("--concurrency and --rate: choose one");
        QTest::newRow("zero rate") << base + QStringList{QStringLiteral("--rate"), QStringLiteral("0")} << QStringLiteral("--rate");
        QTest::newRow("unknown api") << base + QStringList{QStringLiteral("--api"), QStringLiteral("grpc")}
                                     << QStringLiteral("accepted: openai-chat|openai-completions|anthropic-messages");
        QTest::newRow("malformed stages") << base + QStringList{QStringLiteral("--stages"), QStringLiteral("c=50/30s")}
                                          << QStringLiteral("--stages: malformed stages");
        QTest::newRow("missing model") << QStringList{QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1")}
                                       << QStringLiteral("target.model (--model): missing");
        QTest::newRow("missing url") << QStringList{QStringLiteral("--model"), QStringLiteral("m")} << QStringLiteral("target.url (--url): missing");
        QTest::newRow("bad url") << QStringList{QStringLiteral("--url"), QStringLiteral("127.0.0.1:8000"), QStringLiteral("--model"), QStringLiteral("m")}
                                 << QStringLiteral("not an http:// or https:// URL");
        QTest::newRow("unreadable prompt file") << base + QStringList{QStringLiteral("--prompt-file"), QStringLiteral("/nonexistent/p.jsonl")}
                                                << QStringLiteral("cannot read '/nonexistent/p.jsonl'");
        QTest::newRow("bad duration") << base + QStringList{QStringLiteral("--duration"), QStringLiteral("forever")}
                                      << QStringLiteral("--duration: 'forever' is not a duration");
        QTest::newRow("bad slo") << base + QStringList{QStringLiteral("--slo"), QStringLiteral("ttft=5")} << QStringLiteral("--slo: malformed SLO");
        QTest::newRow("bad header") << base + QStringList{QStringLiteral("--header"), QStringLiteral("no colon")} << QStringLiteral("--header: malformed header");
        QTest::newRow("bad extra body") << base + QStringList{QStringLiteral("--extra-body"), QStringLiteral("[1]")} << QStringLiteral("--extra-body: not a JSON object");
        QTest::newRow("unknown flag") << base + QStringList{QStringLiteral("--concurency"), QStringLiteral("5")} << QStringLiteral("Unknown option 'concurency'");
        QTest::newRow("bad sweep") << base + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=8..8")}
                                   << QStringLiteral("--sweep: malformed sweep 'c=8..8'");
        QTest::newRow("sweep and stages") << base + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=1..8"), QStringLiteral("--stages"), QStringLiteral("c=1")}
                                          << QStringLiteral("--stages and --sweep: choose one");
        QTest::newRow("sweep and concurrency") << base + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=1..8"), QStringLiteral("--concurrency"), QStringLiteral("2")}
                                               << QStringLiteral("--sweep sets the load levels; do not combine it with --concurrency");
        QTest::newRow("unknown balance") << base + QStringList{QStringLiteral("--balance"), QStringLiteral("weighted")}
                                         << QStringLiteral("--balance: unknown policy 'weighted' (accepted: round-robin|least-in-flight|random)");
        QTest::newRow("bad replica url") << base + QStringList{QStringLiteral("--url"), QStringLiteral("127.0.0.1:8001")}
                                         << QStringLiteral("target.replicas[0] (--url): '127.0.0.1:8001' is not an http:// or https:// URL");
        QTest::newRow("missing config file") << QStringList{QStringLiteral("--config"), QStringLiteral("/nonexistent.json")} << QStringLiteral("--config: cannot read");
        QTest::newRow("key instead of variable name") << base + QStringList{QStringLiteral("--api-key-env"), QStringLiteral("sk-abc123-secret")}
                                                      << QStringLiteral("is not an environment variable name");
    }

    void badUsageExits2()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("secret")), "a key-like value was echoed");
    }

    void runWritesADirectoryAndASummary()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult r = run(target(host) + QStringList{QStringLiteral("--concurrency"), QStringLiteral("4"), QStringLiteral("--requests"),
                                                           QStringLiteral("40"), QStringLiteral("--prompt-tokens"), QStringLiteral("64"),
                                                           QStringLiteral("--warmup"), QStringLiteral("4"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("TTFT p50")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("40 ok, 0 failed")), qPrintable(r.out));
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->records.size(), std::size_t(44));
        QCOMPARE(data->summary.total.requests.ok, std::int64_t(40));
        QCOMPARE(data->summary.total.requests.warmup, std::int64_t(4));
        QCOMPARE(data->summary.total.concurrency.peakInFlight, 4);
        QCOMPARE(data->summary.total.tokens.input, std::int64_t(40 * 64));
        QCOMPARE(host.stats().peakConcurrentRequests, qint64(4));
    }

    void sweepFindsTheKneeAtTheBatchLimit()
    {
        // A server that decodes at most 4 sequences at once: beyond 4 users requests only queue,
        // so a sweep of users must find its knee there (c=8 at the latest, when noise on the
        // loaded test machine makes c=4 look slow), not below.
        SimConfig simConfig = fastSim();
        simConfig.maxBatch = 4;
        simConfig.ttftMs = 50;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("sweep"));
        const CliResult r = run(target(host) + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=1..16"), QStringLiteral("--requests"),
                                                           QStringLiteral("32"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error, RunReader::SummaryOnly);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(formatStages(data->info.stages), QStringLiteral("c=1:32,c=2:32,c=4:32,c=8:32,c=16:32"));
        QCOMPARE(data->summary.stages.size(), std::size_t(5));
        const auto knee = findKnee(throughputLatencyCurve(data->summary, Metric::Ttft), QStringLiteral("TTFT"));
        QVERIFY(knee);
        QVERIFY2(knee->saturated && (knee->point == 2 || knee->point == 3), qPrintable(knee->text));
        QVERIFY2(r.out.contains(QStringLiteral("knee       ") + knee->text), qPrintable(r.out));
    }

    /// Calibration against a server that counts with another tokenizer than the client's (a
    /// byte-heavy tiktoken file: ~4 of its tokens per approx token) and adds a chat template.
    void calibrateMatchesTheServersCount_data()
    {
        QTest::addColumn<QString>("clientTokenizer");
        QTest::addColumn<bool>("calibrate");
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<double>("tolerance"); ///< of each request's prompt_tokens, relative
        QTest::addColumn<bool>("everyRequest");
        const QString file = QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken");
        QTest::newRow("no tokenizer, calibrated: mean within 1%") << QString() << true << 1024 << 0.01 << false;
        QTest::newRow("no tokenizer, calibrated, short") << QString() << true << 200 << 0.01 << false;
        QTest::newRow("same tokenizer, calibrated: exact") << file << true << 1024 << 0.0 << true;
        QTest::newRow("same tokenizer: exact but for the template") << file << false << 1024 << 0.02 << true;
    }

    void calibrateMatchesTheServersCount()
    {
        QFETCH(QString, clientTokenizer);
        QFETCH(bool, calibrate);
        QFETCH(int, promptTokens);
        QFETCH(double, tolerance);
        QFETCH(bool, everyRequest);
        SimConfig simConfig = fastSim();
        simConfig.tokenizer = QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken");
        simConfig.templateTokens = 9;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QStringList args = target(host) + QStringList{QStringLiteral("--prompt-tokens"), QString::number(promptTokens),
                                                      QStringLiteral("--system-tokens"), QStringLiteral("64"),
                                                      QStringLiteral("--requests"),      QStringLiteral("30"),
                                                      QStringLiteral("--concurrency"),   QStringLiteral("3"),
                                                      QStringLiteral("--out"),           out};
        if (calibrate)
            args << QStringLiteral("--calibrate");
        if (!clientTokenizer.isEmpty())
            args << QStringLiteral("--tokenizer") << clientTokenizer;
        const CliResult r = run(args);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        const std::int64_t requested = promptTokens + 64;
        const RunSummary &s = data->summary;
        QCOMPARE(s.promptSizing.requested, std::optional<std::int64_t>(requested));
        QCOMPARE(s.total.tokens.promptFromUsage, std::int64_t(30));
        QCOMPARE(s.promptSizing.calibration, calibrate ? QStringLiteral("usage") : QString());
        const double mean = double(s.total.tokens.input) / double(s.total.requests.ok);
        const double allowed = std::max(2.0, double(requested) * std::max(tolerance, 0.01));
        QVERIFY2(std::abs(mean - double(requested)) <= allowed,
                 qPrintable(QStringLiteral("mean %1, requested %2").arg(mean).arg(requested)));
        if (everyRequest) {
            const double each =
                std::max(tolerance > 0 ? 2.0 : 0.0, double(requested) * tolerance) + (calibrate ? 0 : 9);
            for (const RequestRecord &rec : data->records)
                QVERIFY2(std::abs(double(rec.promptTokens - requested)) <= each,
                         qPrintable(QStringLiteral("request %1: %2 tokens").arg(rec.id).arg(rec.promptTokens)));
        }
    }

    void sloMissedExits3()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 50;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const CliResult r = run(target(host) + QStringList{QStringLiteral("--requests"), QStringLiteral("5"), QStringLiteral("--slo"),
                                                           QStringLiteral("ttft_ms=1"), QStringLiteral("--fail-on-slo"), QStringLiteral("--out"),
                                                           dir.filePath(QStringLiteral("run"))});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QStringLiteral("SLO not met")), qPrintable(r.err));
        // The same run without --fail-on-slo succeeds.
        const CliResult ok = run(target(host) + QStringList{QStringLiteral("--requests"), QStringLiteral("5"), QStringLiteral("--slo"),
                                                            QStringLiteral("ttft_ms=1"), QStringLiteral("--out"), dir.filePath(QStringLiteral("run2"))});
        QCOMPARE(ok.exitCode, 0);
    }

    void everyRequestFailingExits1WithACompleteRunDirectory_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::newRow("server errors") << QStringLiteral("500");
        QTest::newRow("streams cut") << QStringLiteral("cut");
        QTest::newRow("server down") << QStringLiteral("down");
    }

    void everyRequestFailingExits1WithACompleteRunDirectory()
    {
        QFETCH(QString, fault);
        SimConfig simConfig = fastSim();
        simConfig.errorRate = fault == QLatin1String("500") ? 1 : 0;
        simConfig.cutRate = fault == QLatin1String("cut") ? 1 : 0;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QStringList args = target(host);
        if (fault == QLatin1String("down"))
            host.stop();
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult r = run(args + QStringList{QStringLiteral("--requests"), QStringLiteral("6"), QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("every request failed")), qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->summary.total.requests.failed, std::int64_t(6));
        QCOMPARE(data->records.size(), std::size_t(6));
    }

    void apiKeyNeverWritten()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const QByteArray secret("sk-tokenbench-test-secret-7f3a9c");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MY_TEST_KEY"), QString::fromLatin1(secret));
        // One good run and one where every request fails (errors are where keys tend to leak).
        for (const QString &model : {host.config().model, QStringLiteral("unknown-model")}) {
            const CliResult r = run({QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"), model, QStringLiteral("--api-key-env"),
                                     QStringLiteral("MY_TEST_KEY"), QStringLiteral("--requests"), QStringLiteral("3"), QStringLiteral("--out"),
                                     out + model},
                                    env);
            QVERIFY(r.exitCode == 0 || r.exitCode == 1);
            QVERIFY(!r.out.contains(QString::fromLatin1(secret)));
            QVERIFY(!r.err.contains(QString::fromLatin1(secret)));
            QDirIterator it(out + model, QDir::Files);
            int files = 0;
            while (it.hasNext()) {
                QFile f(it.next());
                QVERIFY(f.open(QIODevice::ReadOnly));
                QVERIFY2(!f.readAll().contains(secret), qPrintable(f.fileName()));
                ++files;
            }
            QVERIFY(files >= 4);
        }
    }

    void sigintStopsAndSaves()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 30000; // requests that would take far longer than the test
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QProcess p;
        p.start(QStringLiteral(TOKENBENCH_CLI), QStringList{QStringLiteral("run")} + target(host)
                                                     + QStringList{QStringLiteral("--concurrency"), QStringLiteral("5"), QStringLiteral("--duration"),
                                                                   QStringLiteral("10m"), QStringLiteral("--out"), out});
        QVERIFY(p.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(5), 20000);
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->summary.total.requests.cancelled, std::int64_t(5));
    }

    void configFileAndFlagsCombine()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString config = dir.filePath(QStringLiteral("config.json"));
        QFile f(config);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QStringLiteral(R"({"target": {"url": "%1", "model": "%2"}, "load": {"concurrency": 3, "requests": 9}, "request": {"max_tokens": 8}})")
                    .arg(host.baseUrl().toString(), host.config().model)
                    .toUtf8());
        f.close();
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult r = run({QStringLiteral("--config"), config, QStringLiteral("--requests"), QStringLiteral("12"), QStringLiteral("--quiet"),
                                 QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->summary.total.requests.ok, std::int64_t(12)); // the flag overrides the file
        QCOMPARE(data->summary.total.concurrency.peakInFlight, 3);
        for (const RequestRecord &rec : data->records)
            QVERIFY(rec.completionTokens <= 8);
    }
};

QTEST_GUILESS_MAIN(TestRunCli)
#include "tst_runcli.moc"
