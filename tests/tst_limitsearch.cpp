// `tokenbench-cli run --find-max` end to end: a real process searching the real simulator, whose
// capacity under the SLO is known from its serving model.
#include "sim/simulatorhost.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testsimulator.h"

#include <nlohmann/json.hpp>

#include <csignal>

#include <sys/types.h>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

// The simulator with a hard capacity of kMaxBatch users under the 100 ms TTFT SLO
// (test::capacitySimConfig() says why).
constexpr int kMaxBatch = 8;

SimConfig capacitySim()
{
    return test::capacitySimConfig(kMaxBatch);
}

QStringList target(const SimulatorHost &host)
{
    return {QStringLiteral("run"),     QStringLiteral("--url"),       host.baseUrl().toString(),
            QStringLiteral("--model"), host.config().model,           QStringLiteral("--no-server-metrics"),
            QStringLiteral("--slo"),   QStringLiteral("ttft_ms=100"), QStringLiteral("--slo-target"),
            QStringLiteral("0.95"),    QStringLiteral("--requests"),  QStringLiteral("80")};
}

std::optional<nlohmann::json> searchJson(const QString &dir)
{
    QFile f(QDir(dir).filePath(QStringLiteral("search.json")));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

} // namespace

class TestLimitSearch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// The answer brackets the capacity: every level up to 8 users passes, every one above fails,
    /// and the search ends at 8 | 9, each level a run directory of its own.
    void bracketsTheCapacity()
    {
        SimulatorHost host(capacitySim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("search"));
        const CliResult r = runCli(target(host) + QStringList{QStringLiteral("--find-max"), QStringLiteral("c=2..64"),
                                                              QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(r.out.contains(QStringLiteral("holds 8 users (passes at c=8, fails at c=9;")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("stopped: bracketed to resolution")), qPrintable(r.out));
        const auto json = searchJson(out);
        QVERIFY(json && json->is_object());
        const nlohmann::json &answer = json->at("answer");
        QVERIFY(answer.at("passes_at").get<int>() <= kMaxBatch);
        QVERIFY(answer.at("fails_at").get<int>() > kMaxBatch);
        QCOMPARE(answer.at("holds").get<int>(), kMaxBatch);
        QCOMPARE(json->at("stop_reason").get<std::string>(), std::string("resolved"));
        for (const nlohmann::json &level : json->at("levels")) {
            const int users = level.at("level").get<int>();
            const std::string verdict = level.at("verdict").get<std::string>();
            QVERIFY2(verdict == (users <= kMaxBatch ? "pass" : "fail"), level.dump().c_str());
            for (const nlohmann::json &run : level.at("runs")) {
                const QString runDir = QDir(out).filePath(QString::fromStdString(run.get<std::string>()));
                QVERIFY2(QFile::exists(runDir + QStringLiteral("/summary.json")), qPrintable(runDir));
            }
        }
    }

    /// A search whose first level already fails answers "holds no level"; it is an SLO miss (exit 3)
    /// only when --fail-on-slo asks for one.
    void firstLevelFails_data()
    {
        QTest::addColumn<bool>("failOnSlo");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("reported") << false << 0;
        QTest::newRow("--fail-on-slo") << true << 3;
    }
    void firstLevelFails()
    {
        QFETCH(bool, failOnSlo);
        QFETCH(int, exitCode);
        SimulatorHost host(capacitySim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("search"));
        QStringList args = target(host) + QStringList{QStringLiteral("--find-max"), QStringLiteral("c=16..64"),
                                                      QStringLiteral("--out"), out};
        if (failOnSlo)
            args << QStringLiteral("--fail-on-slo");
        const CliResult r = runCli(args);
        QVERIFY2(r.exitCode == exitCode, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.out.contains(QStringLiteral("holds no level tried (fails at c=16;")), qPrintable(r.out));
        const auto json = searchJson(out);
        QVERIFY(json && json->is_object());
        QCOMPARE(json->at("stop_reason").get<std::string>(), std::string("first-level-fails"));
        QVERIFY(json->at("answer").at("holds").is_null());
    }

    /// What the search cannot take is refused before anything runs (exit 2), naming the flag.
    void refused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("no SLO") << QStringList{QStringLiteral("--find-max"), QStringLiteral("c")}
                                << "slo (--slo): the search judges each level";
        QTest::newRow("with --concurrency")
            << QStringList{QStringLiteral("--find-max"),    QStringLiteral("c"),
                           QStringLiteral("--slo"),         QStringLiteral("ttft_ms=60"),
                           QStringLiteral("--concurrency"), QStringLiteral("4")}
            << "--find-max and --concurrency: choose one";
        QTest::newRow("with --sweep") << QStringList{QStringLiteral("--find-max"), QStringLiteral("r"),
                                                     QStringLiteral("--slo"),      QStringLiteral("ttft_ms=60"),
                                                     QStringLiteral("--sweep"),    QStringLiteral("c=1..8")}
                                      << "--find-max and --sweep: choose one";
        QTest::newRow("with a salt") << QStringList{QStringLiteral("--find-max"),    QStringLiteral("c"),
                                                    QStringLiteral("--slo"),         QStringLiteral("ttft_ms=60"),
                                                    QStringLiteral("--prompt-salt"), QStringLiteral("abc")}
                                     << "prompt.salt (--prompt-salt): every level gets a fresh salt";
        QTest::newRow("bad range") << QStringList{QStringLiteral("--find-max"), QStringLiteral("c=8..2"),
                                                  QStringLiteral("--slo"), QStringLiteral("ttft_ms=60")}
                                   << "--find-max: 'c=8..2': START is above MAX";
    }
    void refused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("search"));
        const CliResult r =
            runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"),
                               QStringLiteral("--model"), QStringLiteral("m"), QStringLiteral("--out"), out} +
                   args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(!QFile::exists(out), "nothing is created");
    }

    /// Ctrl-C ends the level in flight (its run saved) and the search: exit 130, search.json says
    /// "stopped" and lists the cut level as stopped, not judged.
    void stopped()
    {
        SimConfig sim = capacitySim();
        sim.ttftMs = 30000; // the first level's requests outlast the test
        SimulatorHost host(sim);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("search"));
        QProcess p;
        p.start(QStringLiteral(TOKENBENCH_CLI),
                target(host) +
                    QStringList{QStringLiteral("--find-max"), QStringLiteral("c=4..64"), QStringLiteral("--out"), out});
        QVERIFY(p.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(4), 20000);
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        const QString stdOut = QString::fromUtf8(p.readAllStandardOutput());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 130, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(stdOut)));
        QVERIFY2(stdOut.contains(QStringLiteral("stopped: stopped by the user")), qPrintable(stdOut));
        const auto json = searchJson(out);
        QVERIFY(json && json->is_object());
        QCOMPARE(json->at("stop_reason").get<std::string>(), std::string("stopped"));
        QCOMPARE(json->at("levels").size(), std::size_t(1));
        QCOMPARE(json->at("levels")[0].at("verdict").get<std::string>(), std::string("stopped"));
        QVERIFY(QFile::exists(out + QStringLiteral("/level-01-c=4/summary.json")));
    }
};

QTEST_GUILESS_MAIN(TestLimitSearch)
#include "tst_limitsearch.moc"
