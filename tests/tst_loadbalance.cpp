// Load balancing over several instances of one model (a target with replicas) against real
// simulators on 127.0.0.1: each policy's request shares checked against what every simulator says
// it served, the per-instance summary and requests.csv column, and the CLI's per-instance table.
#include "support/clirunner.h"

#include "analysis/comparison.h"
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <map>
#include <memory>

Q_DECLARE_METATYPE(tb::Balance)

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

constexpr int kRequests = 60;

/// Three instances; the third, when `slowThird`, takes 400 ms to its first token where the others
/// take 5 ms: the deployment where the policy matters.
struct Instances {
    std::vector<std::unique_ptr<SimulatorHost>> hosts;

    explicit Instances(bool slowThird)
    {
        for (int i = 0; i < 3; ++i) {
            SimConfig c = *SimConfig::preset(QStringLiteral("fast"));
            c.ttftMs = slowThird && i == 2 ? 400 : 5;
            c.prefillMsPer1k = 0;
            c.prefillQuadraticMs = 0;
            c.stepMs = 2;
            c.stepMsPerSeq = 0;
            hosts.push_back(std::make_unique<SimulatorHost>(c));
        }
    }
    bool start()
    {
        return std::all_of(hosts.begin(), hosts.end(), [](const auto &h) { return h->start(); });
    }
    QStringList urls() const
    {
        QStringList u;
        for (const auto &h : hosts)
            u << h->baseUrl().toString();
        return u;
    }
    std::int64_t served(int i) const { return hosts[std::size_t(i)]->stats().requestsServed; }
};

RunConfig configFor(const Instances &instances, Balance balance, const QString &out)
{
    RunConfig c;
    const QStringList urls = instances.urls();
    c.target.url = urls.first();
    c.target.replicas = urls.mid(1);
    c.target.balance = balance;
    c.target.model = instances.hosts.front()->config().model;
    c.load.concurrency = 6;
    c.load.requests = kRequests;
    c.request.maxTokens = 16;
    c.prompt.promptTokens = 20;
    c.outDir = out;
    return c;
}

std::optional<RunOutcome> runToEnd(const RunConfig &config)
{
    BenchmarkRunner runner;
    QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
    QString error;
    if (!runner.start(config, &error)) {
        qWarning() << error;
        return std::nullopt;
    }
    if (!finished.wait(120000) && finished.isEmpty())
        return std::nullopt;
    return finished.first().first().value<RunOutcome>();
}

} // namespace

class TestLoadBalance : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void roundRobinSharesEvenlyAndEachInstanceIsReported()
    {
        Instances instances(false);
        QVERIFY(instances.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("rr"));
        const auto outcome = runToEnd(configFor(instances, Balance::RoundRobin, out));
        QVERIFY(outcome);
        const RunSummary &s = outcome->summary;
        QCOMPARE(s.total.requests.ok, std::int64_t(kRequests));
        QCOMPARE(s.balance, QStringLiteral("round-robin"));
        QCOMPARE(s.targetReplicas, instances.urls().mid(1));
        QCOMPARE(int(s.instances.size()), 3);
        std::int64_t outputTokens = 0;
        for (int i = 0; i < 3; ++i) {
            const SummaryBlock &b = s.instances[std::size_t(i)];
            QCOMPARE(b.name, instances.urls()[i]);
            // The client's count, the server's count and the policy's promise agree.
            QCOMPARE(b.requests.ok, std::int64_t(kRequests / 3));
            QTRY_COMPARE_WITH_TIMEOUT(instances.served(i), std::int64_t(kRequests / 3), 10000);
            QCOMPARE(b.stat(Metric::Ttft).count, std::int64_t(kRequests / 3));
            outputTokens += b.tokens.output;
        }
        QCOMPARE(outputTokens, s.total.tokens.output);

        // On disk: summary.json's instances block and requests.csv's instance column read back.
        QString error;
        const auto run = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(int(run->summary.instances.size()), 3);
        QCOMPARE(run->summary.instances[1].requests.ok, s.instances[1].requests.ok);
        std::map<int, int> perInstance;
        for (const RequestRecord &r : run->records)
            ++perInstance[r.instance];
        QCOMPARE(perInstance, (std::map<int, int>{{0, 20}, {1, 20}, {2, 20}}));

        // As runs of their own: one column per instance, named after its address.
        const std::vector<RunData> split = splitByInstance(*run);
        QCOMPARE(int(split.size()), 3);
        QCOMPARE(split[2].label(), instances.urls()[2].section(QLatin1String("://"), 1));
        QCOMPARE(int(split[2].records.size()), 20);
        const ComparisonTable table(split);
        QCOMPARE(table.labels().size(), 3);
        QVERIFY2(table.warnings().isEmpty(), qPrintable(table.warnings().join(QLatin1Char('\n'))));
    }

    void policyShares_data()
    {
        QTest::addColumn<Balance>("balance");
        QTest::addColumn<int>("slowMin");
        QTest::addColumn<int>("slowMax");
        // Round robin ignores how busy the slow instance is; least-in-flight sends it a request only
        // when it has no more in flight than the fast ones, which drain 400 ms sooner.
        QTest::newRow("round-robin") << Balance::RoundRobin << kRequests / 3 << kRequests / 3;
        QTest::newRow("least-in-flight") << Balance::LeastInFlight << 1 << kRequests / 6;
    }

    void policyShares()
    {
        QFETCH(Balance, balance);
        QFETCH(int, slowMin);
        QFETCH(int, slowMax);
        Instances instances(true);
        QVERIFY(instances.start());
        QTemporaryDir dir;
        const auto outcome = runToEnd(configFor(instances, balance, dir.filePath(QStringLiteral("run"))));
        QVERIFY(outcome);
        QCOMPARE(outcome->summary.total.requests.ok, std::int64_t(kRequests));
        const std::int64_t slow = outcome->summary.instances[2].requests.ok;
        QTRY_COMPARE_WITH_TIMEOUT(instances.served(2), slow, 10000);
        QVERIFY2(slow >= slowMin && slow <= slowMax, qPrintable(QStringLiteral("slow instance served %1").arg(slow)));
        QTRY_COMPARE_WITH_TIMEOUT(instances.served(0) + instances.served(1) + slow, std::int64_t(kRequests), 10000);
    }

    void randomIsDeterministicForASeed()
    {
        Instances instances(false);
        QVERIFY(instances.start());
        QTemporaryDir dir;
        std::vector<std::map<std::uint64_t, int>> assignments;
        for (const char *name : {"a", "b"}) {
            const QString out = dir.filePath(QLatin1String(name));
            QVERIFY(runToEnd(configFor(instances, Balance::Random, out)));
            QString error;
            const auto run = RunReader::load(out, &error, RunReader::Records);
            QVERIFY2(run, qPrintable(error));
            std::map<std::uint64_t, int> byId;
            for (const RequestRecord &r : run->records)
                byId[r.id] = r.instance;
            assignments.push_back(byId);
        }
        QCOMPARE(int(assignments[0].size()), kRequests);
        QCOMPARE(assignments[0], assignments[1]);
        std::map<int, int> counts;
        for (const auto &[id, instance] : assignments[0])
            ++counts[instance];
        QCOMPARE(int(counts.size()), 3); // 60 uniform picks miss an instance with odds ~1e-10
    }

    void cliRunAndCompareShowEachInstance()
    {
        Instances instances(false);
        QVERIFY(instances.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("cli"));
        const QStringList urls = instances.urls();
        const CliResult run = runCli({QStringLiteral("run"),
                                      QStringLiteral("--url"),
                                      urls[0],
                                      QStringLiteral("--url"),
                                      urls[1],
                                      QStringLiteral("--url"),
                                      urls[2],
                                      QStringLiteral("--balance"),
                                      QStringLiteral("least-in-flight"),
                                      QStringLiteral("--model"),
                                      instances.hosts.front()->config().model,
                                      QStringLiteral("--concurrency"),
                                      QStringLiteral("3"),
                                      QStringLiteral("--requests"),
                                      QStringLiteral("30"),
                                      QStringLiteral("--max-tokens"),
                                      QStringLiteral("8"),
                                      QStringLiteral("--quiet"),
                                      QStringLiteral("--out"),
                                      out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QStringLiteral("per instance (balance least-in-flight")), qPrintable(run.out));
        for (const QString &url : urls)
            QVERIFY2(run.out.contains(url.section(QLatin1String("://"), 1)), qPrintable(run.out));

        const CliResult compare = runCli({QStringLiteral("compare"), out});
        QVERIFY2(compare.exitCode == 0, qPrintable(compare.err));
        QVERIFY2(compare.err.contains(QStringLiteral("comparing the 3 instances")), qPrintable(compare.err));
        QVERIFY2(compare.out.contains(QStringLiteral("#3 ") + urls[2].section(QLatin1String("://"), 1)),
                 qPrintable(compare.out));
    }
};

QTEST_GUILESS_MAIN(TestLoadBalance)
#include "tst_loadbalance.moc"
