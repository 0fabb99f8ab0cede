// `tokenbench-cli run --repeat N` and `compare` of repeated-run directories, as users run them: a
// real process against the real simulator.
#include "analysis/runspread.h"
#include "results/rundirectory.h"
#include "sim/simulatorhost.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"

#include <csignal>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

SimConfig simWithTtft(double ttftMs)
{
    SimConfig config = *SimConfig::preset(QStringLiteral("fast"));
    config.ttftMs = ttftMs;
    return config;
}

QStringList repeatedRun(const SimulatorHost &host, int repeats, const QString &out)
{
    return {QStringLiteral("run"),
            QStringLiteral("--url"),
            host.baseUrl().toString(),
            QStringLiteral("--model"),
            host.config().model,
            QStringLiteral("--quiet"),
            QStringLiteral("--concurrency"),
            QStringLiteral("2"),
            QStringLiteral("--requests"),
            QStringLiteral("12"),
            QStringLiteral("--repeat"),
            QString::number(repeats),
            QStringLiteral("--out"),
            out};
}

nlohmann::json readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = file.readAll();
    return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

/// The verdict column of `metric`'s line in compare's table.
QString verdictOf(const QString &table, const QString &metric)
{
    for (const QString &line : table.split(QLatin1Char('\n'))) {
        if (line.startsWith(metric + QLatin1Char(' '))) {
            for (const char *verdict : {"no significant difference", "better", "worse", "not tested"}) {
                if (line.trimmed().endsWith(QLatin1String(verdict)))
                    return QLatin1String(verdict);
            }
        }
    }
    return {};
}

} // namespace

class TestRepeat : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void threeRunsWithTheirSpread()
    {
        SimulatorHost host(simWithTtft(5));
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("repeated"));
        const CliResult r = runCli(repeatedRun(host, 3, out));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("spread of 3 runs (3 asked)")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("run 3/3 run-03: 12 ok, 0 failed")), qPrintable(r.out));

        const nlohmann::json repeats = readJson(QDir(out).filePath(QStringLiteral("repeats.json")));
        QVERIFY(repeats["runs"] == nlohmann::json({"run-01", "run-02", "run-03"}));
        QVERIFY(repeats["partial_run"].is_null());
        QSet<QString> salts;
        for (int i = 0; i < 3; ++i) {
            QString error;
            const auto run = RunReader::load(QDir(out).filePath(QStringLiteral("run-0%1").arg(i + 1)), &error,
                                             RunReader::SummaryOnly);
            QVERIFY2(run && run->hasInfo, qPrintable(error));
            QCOMPARE(run->summary.total.requests.ok, std::int64_t(12));
            const QString salt = run->info.config.prompt.salt;
            QCOMPARE(QString::fromStdString(repeats["salts"][std::size_t(i)].get<std::string>()), salt);
            salts << salt;
        }
        QCOMPARE(salts.size(), 3); // each run its own prompts

        for (const QString &key : RunSpread::headlineKeys()) {
            const nlohmann::json &metric = repeats["metrics"][key.toStdString()];
            QVERIFY2(metric["values"].size() == 3, qPrintable(key));
            if (key != QLatin1String("good_pct")) // every request is good without an SLO: 100 each
                QVERIFY2(metric["values"][0].is_number(), qPrintable(key));
        }
        const nlohmann::json &rate = repeats["metrics"]["requests_per_s"];
        QCOMPARE(rate["n"].get<int>(), 3);
        QVERIFY(rate["ci95_low"].get<double>() <= rate["mean"].get<double>());
        QVERIFY(rate["mean"].get<double>() <= rate["ci95_high"].get<double>());
        QVERIFY(std::fabs(rate["t"].get<double>() - 4.303) < 0.0005); // t(0.975, 2)

        // report of the directory: its three runs compared, and the table of their spread.
        const QString html = dir.filePath(QStringLiteral("report.html"));
        const CliResult report = runCli({QStringLiteral("report"), out, QStringLiteral("--out"), html});
        QVERIFY2(report.exitCode == 0, qPrintable(report.err));
        QVERIFY2(report.out.contains(QStringLiteral("(3 runs,")), qPrintable(report.out));
        QFile file(html);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY(text.contains(QStringLiteral("Spread of the repeated runs of repeated (3 runs)")));
        const QRegularExpression meanCell(QStringLiteral("<tr data-key=\"requests_per_s\"><td>[^<]*</td><td>[^<]*</td>"
                                                         "<td class=\"num\" data-value=\"([^\"]+)\">"));
        const QRegularExpressionMatch match = meanCell.match(text);
        QVERIFY2(match.hasMatch(), "the spread table has a requests/s row");
        QVERIFY(std::fabs(match.captured(1).toDouble() - rate["mean"].get<double>()) < 1e-9);
    }

    /// Stop during the second run: it is saved, marked partial and left out; repeats.json holds
    /// the first.
    void interruptedRepeatKeepsWhatFinished()
    {
        SimConfig config = simWithTtft(5);
        SimulatorHost host(config);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("repeated"));
        QStringList args = repeatedRun(host, 3, out);
        args << QStringLiteral("--duration") << QStringLiteral("2s");
        args.replace(args.indexOf(QStringLiteral("12")), QStringLiteral("100000"));
        QProcess p;
        p.start(QStringLiteral(TOKENBENCH_CLI), args);
        QVERIFY(p.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(QDir(out).filePath(QStringLiteral("run-02/run.json"))), 30000);
        ::kill(pid_t(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 130);
        const nlohmann::json repeats = readJson(QDir(out).filePath(QStringLiteral("repeats.json")));
        QVERIFY2(repeats["runs"] == nlohmann::json({"run-01"}), repeats.dump().c_str());
        QVERIFY(repeats["partial_run"] == "run-02");
        QVERIFY(repeats["stopped"] == true);
        QVERIFY(!QFile::exists(QDir(out).filePath(QStringLiteral("run-03"))));
        QCOMPARE(repeats["metrics"]["requests_per_s"]["values"].size(), std::size_t(1));
    }

    void compareByTheRunsSpread_data()
    {
        QTest::addColumn<double>("ttftA");
        QTest::addColumn<double>("ttftB");
        QTest::addColumn<QString>("verdict");
        // 40 ms more before every first token, against a few tenths of a millisecond of noise.
        QTest::newRow("TTFT 20 vs 60 ms") << 20.0 << 60.0 << QStringLiteral("worse");
        QTest::newRow("TTFT 60 vs 20 ms") << 60.0 << 20.0 << QStringLiteral("better");
    }
    void compareByTheRunsSpread()
    {
        QFETCH(double, ttftA);
        QFETCH(double, ttftB);
        QFETCH(QString, verdict);
        SimulatorHost a(simWithTtft(ttftA));
        SimulatorHost b(simWithTtft(ttftB));
        QVERIFY(a.start());
        QVERIFY(b.start());
        QTemporaryDir dir;
        const QString outA = dir.filePath(QStringLiteral("a"));
        const QString outB = dir.filePath(QStringLiteral("b"));
        for (const auto &[host, out] : {std::pair{&a, outA}, std::pair{&b, outB}}) {
            const CliResult r = runCli(repeatedRun(*host, 3, out));
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        }
        const CliResult compared = runCli({QStringLiteral("compare"), outA, outB});
        QVERIFY2(compared.exitCode == 0, qPrintable(compared.err));
        QVERIFY2(verdictOf(compared.out, QStringLiteral("TTFT p50")) == verdict, qPrintable(compared.out));
        QVERIFY(compared.out.contains(QStringLiteral("Welch's t-test")));
    }

    /// One configuration on both sides: six runs of it, the odd ones one set and the even ones the
    /// other, so that what drifts on a shared machine during the runs falls on both alike. (Two
    /// sets run one after the other differed now and then: 1 of 27 tries said "worse" when the
    /// machine got busier between them.)
    void oneConfigurationShowsNoDifference()
    {
        SimulatorHost host(simWithTtft(60));
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString all = dir.filePath(QStringLiteral("all"));
        const CliResult r = runCli(repeatedRun(host, 6, all));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QStringList sets;
        for (const int first : {1, 2}) {
            const QString set = dir.filePath(first == 1 ? QStringLiteral("odd") : QStringLiteral("even"));
            QVERIFY(QDir().mkpath(set));
            nlohmann::json runs = nlohmann::json::array();
            for (int i = first; i <= 6; i += 2) {
                const QString name = QStringLiteral("run-0%1").arg(i);
                QVERIFY(QDir().rename(QDir(all).filePath(name), QDir(set).filePath(name)));
                runs.push_back(name.toStdString());
            }
            QFile file(QDir(set).filePath(QStringLiteral("repeats.json")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(QByteArray::fromStdString(nlohmann::json{{"runs", runs}}.dump()));
            sets << set;
        }
        const CliResult compared = runCli({QStringLiteral("compare"), sets[0], sets[1]});
        QVERIFY2(compared.exitCode == 0, qPrintable(compared.err));
        QVERIFY2(verdictOf(compared.out, QStringLiteral("TTFT p50")) == QLatin1String("no significant difference"),
                 qPrintable(compared.out));
    }

    void compareRefusesAMixOfRepeatedAndSingleRuns()
    {
        SimulatorHost host(simWithTtft(5));
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("repeated"));
        QCOMPARE(runCli(repeatedRun(host, 2, out)).exitCode, 0);
        const CliResult r = runCli({QStringLiteral("compare"), out, QDir(out).filePath(QStringLiteral("run-01"))});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("two at a time")), qPrintable(r.err));
    }

    void repeatFlagIsBounded_data()
    {
        QTest::addColumn<QStringList>("flags");
        QTest::addColumn<QString>("message");
        QTest::newRow("one") << QStringList{QStringLiteral("--repeat"), QStringLiteral("1")}
                             << QStringLiteral("from 2 to 100");
        QTest::newRow("too many") << QStringList{QStringLiteral("--repeat"), QStringLiteral("101")}
                                  << QStringLiteral("from 2 to 100");
        QTest::newRow("salt") << QStringList{QStringLiteral("--repeat"), QStringLiteral("3"),
                                             QStringLiteral("--prompt-salt"), QStringLiteral("abc")}
                              << QStringLiteral("prompt salt");
        QTest::newRow("shard") << QStringList{QStringLiteral("--repeat"), QStringLiteral("3"),
                                              QStringLiteral("--shard"), QStringLiteral("0/2")}
                               << QStringLiteral("not with --shard");
    }
    void repeatFlagIsBounded()
    {
        QFETCH(QStringList, flags);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const CliResult r =
            runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"),
                               QStringLiteral("--model"), QStringLiteral("m"), QStringLiteral("--out"),
                               dir.filePath(QStringLiteral("x"))} +
                   flags);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("x"))));
    }
};

QTEST_GUILESS_MAIN(TestRepeat)
#include "tst_repeat.moc"
