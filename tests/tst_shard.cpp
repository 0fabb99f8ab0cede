// Sharded runs: the exact split of a load, `run --shard/--shards/--start-at/--dry-run` as real
// processes, and `merge` of real shard directories measured against one simulator.
#include "config/sharding.h"
#include "formats/csv.h"
#include "metrics/loghistogram.h"
#include "platform/iobackend.h"
#include "results/rundirectory.h"
#include "results/runfiles.h"
#include "results/runmerge.h"
#include "sim/simulatorhost.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testfiles.h"

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;

namespace {

// Requests of about 150 ms, so the shards' users overlap on the wire for seconds.
SimConfig slowEnoughSim()
{
    SimConfig c = *SimConfig::preset(QStringLiteral("fast"));
    c.ttftMs = 70;
    c.stepMs = 5;
    return c;
}

QStringList target(const SimulatorHost &host)
{
    return {QStringLiteral("--url"),   host.baseUrl().toString(),         QStringLiteral("--model"),
            host.config().model,       QStringLiteral("--prompt-tokens"), QStringLiteral("32"),
            QStringLiteral("--quiet"), QStringLiteral("--workers"),       QStringLiteral("1")};
}

QString startAtIn(int seconds)
{
    return QDateTime::currentDateTimeUtc().addSecs(seconds).toString(Qt::ISODate);
}

/// The column `name` of every row of DIR/requests.csv, ok rows only ("" cells skipped).
std::vector<double> column(const QString &directory, const char *name)
{
    QFile file(QDir(directory).filePath(QStringLiteral("requests.csv")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray text = file.readAll(); // the reader keeps a view of it
    CsvReader reader(text);
    std::vector<std::string> fields;
    reader.next(fields);
    const auto at = [&](const char *key) { return int(std::find(fields.begin(), fields.end(), key) - fields.begin()); };
    const int value = at(name);
    const int status = at("status");
    std::vector<double> values;
    std::vector<std::string> row;
    while (reader.next(row)) {
        if (row.size() > std::size_t(value) && row[std::size_t(status)] == "ok" && !row[std::size_t(value)].empty())
            values.push_back(std::stod(row[std::size_t(value)]));
    }
    return values;
}

bool writeJson(const QString &path, const nlohmann::json &json)
{
    return tb::test::writeFile(path, QByteArray::fromStdString(json.dump(2)));
}

nlohmann::json readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
}

/// A copy of a run directory, run.json edited by `edit`.
template<typename Edit> bool copyRun(const QString &from, const QString &to, Edit edit)
{
    if (!QDir().mkpath(to))
        return false;
    for (const QString &name : QDir(from).entryList(QDir::Files)) {
        if (!QFile::copy(QDir(from).filePath(name), QDir(to).filePath(name)))
            return false;
    }
    nlohmann::json run = readJson(QDir(to).filePath(QStringLiteral("run.json")));
    edit(run);
    return writeJson(QDir(to).filePath(QStringLiteral("run.json")), run);
}

/// Shards 0/3, 1/3 and 2/3 of a run of 9 requests against a fast simulator, in `dir`; empty with
/// *why when a run failed.
QStringList threeSmallShards(const QTemporaryDir &dir, QString *why)
{
    SimulatorHost host(*SimConfig::preset(QStringLiteral("fast")));
    if (!host.start()) {
        *why = QStringLiteral("the simulator did not start");
        return {};
    }
    QStringList shards;
    for (int k = 0; k < 3; ++k) {
        shards << dir.filePath(QStringLiteral("s%1").arg(k));
        const CliResult r =
            runCli(QStringList{QStringLiteral("run")} + target(host) +
                   QStringList{QStringLiteral("--concurrency"), QStringLiteral("3"), QStringLiteral("--requests"),
                               QStringLiteral("9"), QStringLiteral("--shard"), QStringLiteral("%1/3").arg(k),
                               QStringLiteral("--out"), shards.last()});
        if (r.exitCode != 0) {
            *why = r.err;
            return {};
        }
    }
    return shards;
}

} // namespace

class TestShard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void splitIsExactWithRemaindersSpread_data()
    {
        QTest::addColumn<int>("users");
        QTest::addColumn<qint64>("requests");
        QTest::addColumn<int>("shards");
        QTest::newRow("7 users over 3") << 7 << qint64(100) << 3;
        QTest::newRow("even") << 12 << qint64(60) << 4;
        QTest::newRow("one each") << 5 << qint64(5) << 5;
        QTest::newRow("unsharded") << 9 << qint64(31) << 1;
        QTest::newRow("4000 streams over 7") << 4000 << qint64(12000) << 7;
    }
    void splitIsExactWithRemaindersSpread()
    {
        QFETCH(int, users);
        QFETCH(qint64, requests);
        QFETCH(int, shards);
        LoadConfig total;
        total.concurrency = users;
        total.requests = requests;
        total.warmupRequests = 10;
        total.durationMs = 0;
        qint64 userSum = 0, requestSum = 0, warmupSum = 0;
        for (int k = 0; k < shards; ++k) {
            QString why;
            const auto share = shardLoad(total, {k, shards}, &why);
            QVERIFY2(share, qPrintable(why));
            const QList<StageConfig> stages = effectiveStages(*share);
            QCOMPARE(stages.size(), 1);
            const qint64 expectedUsers = users / shards + (k < users % shards ? 1 : 0);
            QCOMPARE(qint64(stages[0].level), expectedUsers);
            QCOMPARE(stages[0].requests, requests / shards + (k < requests % shards ? 1 : 0));
            QCOMPARE(stages[0].name, effectiveStages(total)[0].name); // stages line up by name
            userSum += qint64(stages[0].level);
            requestSum += stages[0].requests;
            warmupSum += share->warmupRequests;
        }
        QCOMPARE(userSum, qint64(users));
        QCOMPARE(requestSum, requests);
        QCOMPARE(warmupSum, qint64(10));
    }

    void rateAndStagesSplitDurationsKept()
    {
        LoadConfig total;
        total.stages = *parseStages(QStringLiteral("r=9:30s,c=10:50"), nullptr);
        total.maxInFlight = 8;
        double rate = 0;
        qint64 requests = 0, cap = 0;
        for (int k = 0; k < 3; ++k) {
            const auto share = shardLoad(total, {k, 3}, nullptr);
            QVERIFY(share);
            QCOMPARE(share->stages.size(), 2);
            QCOMPARE(share->stages[0].durationMs, qint64(30000));
            QCOMPARE(share->stages[0].name, QStringLiteral("r=9"));
            rate += share->stages[0].level;
            requests += share->stages[1].requests;
            cap += share->maxInFlight;
        }
        QCOMPARE(rate, 9.0);
        QCOMPARE(requests, qint64(50));
        QCOMPARE(cap, qint64(8));
    }

    void idsInterleaveAndSeedsDiffer()
    {
        QSet<quint64> ids;
        for (int k = 0; k < 3; ++k) {
            for (quint64 n = 1; n <= 50; ++n)
                ids.insert(shardRequestId(n, {k, 3}));
        }
        QCOMPARE(ids.size(), 150);
        QVERIFY(ids.contains(1) && ids.contains(150));
        QCOMPARE(shardRequestId(7, {}), quint64(7)); // unsharded: ids as ever
        QCOMPARE(shardArrivalSeed(42, {}), quint64(42));
        QVERIFY(shardArrivalSeed(42, {0, 2}) != shardArrivalSeed(42, {1, 2}));
    }

    void tooFewUsersForTheShardsIsRefused()
    {
        LoadConfig total;
        total.concurrency = 2;
        QString why;
        QVERIFY(!shardLoad(total, {2, 3}, &why));
        QVERIFY2(why.contains(QLatin1String("shard 2")), qPrintable(why));
    }

    void badShardFlagsExit2NamingTheFlag_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("jobIndex");
        QTest::addColumn<QString>("message");
        QTest::newRow("index = count") << QStringList{QStringLiteral("--shard"), QStringLiteral("3/3")} << QString()
                                       << QStringLiteral("--shard: '3/3'");
        QTest::newRow("not K/N") << QStringList{QStringLiteral("--shard"), QStringLiteral("two")} << QString()
                                 << QStringLiteral("--shard: 'two'");
        QTest::newRow("both") << QStringList{QStringLiteral("--shard"), QStringLiteral("0/2"),
                                             QStringLiteral("--shards"), QStringLiteral("2")}
                              << QString() << QStringLiteral("--shard and --shards");
        QTest::newRow("no job index") << QStringList{QStringLiteral("--shards"), QStringLiteral("3")} << QString()
                                      << QStringLiteral("--shards: JOB_COMPLETION_INDEX is not set");
        QTest::newRow("job index too big")
            << QStringList{QStringLiteral("--shards"), QStringLiteral("3")} << QStringLiteral("3")
            << QStringLiteral("--shards 3: JOB_COMPLETION_INDEX is '3'; expected a whole number from 0 to 2");
        QTest::newRow("more shards than users") << QStringList{QStringLiteral("--shard"), QStringLiteral("3/4"),
                                                               QStringLiteral("--concurrency"), QStringLiteral("3")}
                                                << QString() << QStringLiteral("--shard 3/4: stage c=3");
        QTest::newRow("start in the past")
            << QStringList{QStringLiteral("--start-at"), QStringLiteral("2020-01-01T00:00:00Z")} << QString()
            << QStringLiteral("--start-at: 2020-01-01T00:00:00Z is");
        QTest::newRow("start without a zone")
            << QStringList{QStringLiteral("--start-at"), QStringLiteral("2099-01-01T00:00:00")} << QString()
            << QStringLiteral("--start-at: '2099-01-01T00:00:00' is not an RFC 3339 time");
    }
    void badShardFlagsExit2NamingTheFlag()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, jobIndex);
        QFETCH(QString, message);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("JOB_COMPLETION_INDEX"));
        if (!jobIndex.isEmpty())
            env.insert(QStringLiteral("JOB_COMPLETION_INDEX"), jobIndex);
        const CliResult r =
            runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"),
                               QStringLiteral("--model"), QStringLiteral("m"), QStringLiteral("--dry-run")} +
                       args,
                   env);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    void dryRunPrintsThePlanAndSendsNothing()
    {
        SimulatorHost host(slowEnoughSim());
        QVERIFY(host.start());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("JOB_COMPLETION_INDEX"), QStringLiteral("1"));
        const CliResult r =
            runCli(QStringList{QStringLiteral("run")} + target(host) +
                       QStringList{QStringLiteral("--shards"), QStringLiteral("3"), QStringLiteral("--concurrency"),
                                   QStringLiteral("7"), QStringLiteral("--requests"), QStringLiteral("100"),
                                   QStringLiteral("--start-at"), startAtIn(600), QStringLiteral("--dry-run")},
                   env, 60000);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QLatin1String("shard     1 of 3")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QLatin1String("c=7: 2 users, until 33 requests")), qPrintable(r.out));
        QCOMPARE(host.stats().requestsReceived, qint64(0));
    }

    // The acceptance test: three shard processes against one simulator versus one process
    // with the whole load.
    void threeShardsMergeToOneRunExactly()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const int users = 7;
        const int requests = 60;
        SimulatorHost host(slowEnoughSim());
        QVERIFY(host.start());
        const QStringList load{QStringLiteral("--concurrency"), QString::number(users), QStringLiteral("--requests"),
                               QString::number(requests)};
        const QString startAt = startAtIn(3);
        QStringList shardDirs;
        std::vector<std::unique_ptr<QProcess>> processes;
        for (int k = 0; k < 3; ++k) {
            shardDirs << dir.filePath(QStringLiteral("shard-%1").arg(k));
            auto p = std::make_unique<QProcess>();
            p->start(QStringLiteral(TOKENBENCH_CLI),
                     QStringList{QStringLiteral("run")} + target(host) + load +
                         QStringList{QStringLiteral("--shard"), QStringLiteral("%1/3").arg(k),
                                     QStringLiteral("--start-at"), startAt, QStringLiteral("--out"), shardDirs.last()});
            processes.push_back(std::move(p));
        }
        for (auto &p : processes) {
            QVERIFY(p->waitForFinished(240000));
            QVERIFY2(p->exitCode() == 0, p->readAllStandardError().constData());
        }
        // The wire saw the sum of the shards' users at once.
        QCOMPARE(host.stats().peakConcurrentRequests, qint64(users));
        QCOMPARE(host.stats().requestsReceived, qint64(requests));

        const QString mergedDir = dir.filePath(QStringLiteral("merged"));
        const CliResult merged =
            runCli(QStringList{QStringLiteral("merge")} + shardDirs + QStringList{QStringLiteral("--out"), mergedDir});
        QVERIFY2(merged.exitCode == 0, qPrintable(merged.err));

        SimulatorHost single(slowEnoughSim());
        QVERIFY(single.start());
        const QString singleDir = dir.filePath(QStringLiteral("single"));
        const CliResult one = runCli(QStringList{QStringLiteral("run")} + target(single) + load +
                                     QStringList{QStringLiteral("--out"), singleDir});
        QVERIFY2(one.exitCode == 0, qPrintable(one.err));

        QString why;
        const auto m = RunReader::load(mergedDir, &why);
        QVERIFY2(m, qPrintable(why));
        const auto s = RunReader::load(singleDir, &why);
        QVERIFY2(s, qPrintable(why));
        const SummaryBlock &mt = m->summary.total;
        const SummaryBlock &st = s->summary.total;
        QCOMPARE(mt.requests.attempted, st.requests.attempted);
        QCOMPARE(mt.requests.ok, st.requests.ok);
        QCOMPARE(mt.requests.ok, qint64(requests));
        QCOMPARE(mt.tokens.input, st.tokens.input);
        QCOMPARE(mt.tokens.output, st.tokens.output);
        QCOMPARE(mt.concurrency.target, std::optional<int>(users));
        QCOMPARE(mt.concurrency.peakInFlight, users); // from the union of the aligned intervals
        QCOMPARE(m->info.mergedFrom.size(), 3);
        QVERIFY(m->notes.contains(RunMerger::mergedNote(m->info.mergedFrom)));
        QVERIFY(m->notes.first().startsWith(QLatin1String("merged from 3 shards")));
        // compare and report name it in the run's header.
        const CliResult compared = runCli({QStringLiteral("compare"), mergedDir, singleDir});
        QCOMPARE(compared.exitCode, 0);
        QVERIFY2(compared.out.contains(QLatin1String("60 requests, merged from 3 shards (shard-0, shard-1, shard-2)")),
                 qPrintable(compared.out));
        const QString html = dir.filePath(QStringLiteral("report.html"));
        QCOMPARE(runCli({QStringLiteral("report"), mergedDir, QStringLiteral("--out"), html}).exitCode, 0);
        QFile report(html);
        QVERIFY(report.open(QIODevice::ReadOnly));
        QVERIFY(report.readAll().contains(
            "<span class=\"legend\">merged from 3 shards (shard-0, shard-1, shard-2)</span>"));

        // Counts and sums are the shards' own, and request ids are unique with a shard column.
        std::int64_t ok = 0, output = 0, input = 0;
        for (const QString &d : shardDirs) {
            const auto shard = RunReader::load(d, &why);
            QVERIFY2(shard, qPrintable(why));
            ok += shard->summary.total.requests.ok;
            output += shard->summary.total.tokens.output;
            input += shard->summary.total.tokens.input;
            QVERIFY(shard->info.wallOriginNs > 0 && shard->info.monotonicOriginNs > 0);
        }
        // A shard's run.json: its clock origins, the shard and the whole run's load beside its share.
        const nlohmann::json run = readJson(QDir(shardDirs[1]).filePath(QStringLiteral("run.json")));
        QVERIFY(run["clock"]["monotonic_origin_ns"].get<std::int64_t>() > 0);
        QVERIFY(QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z$"))
                    .match(QString::fromStdString(run["clock"]["wall_origin"].get<std::string>()))
                    .hasMatch());
        QCOMPARE(run["shard"]["index"].get<int>(), 1);
        QCOMPARE(run["shard"]["count"].get<int>(), 3);
        QCOMPARE(run["shard"]["load"]["concurrency"].get<int>(), users);
        QCOMPARE(run["config"]["load"]["stages"][0]["level"].get<double>(), 2.0);
        QCOMPARE(run["config"]["load"]["stages"][0]["requests"].get<int>(), requests / 3);
        QVERIFY(!run["host"].get<std::string>().empty());

        QCOMPARE(mt.requests.ok, ok);
        QCOMPARE(mt.tokens.output, output);
        QCOMPARE(mt.tokens.input, input);
        QSet<quint64> ids;
        QSet<int> shards;
        for (const RequestRecord &r : m->records) {
            ids.insert(r.id);
            shards.insert(r.shard);
        }
        QCOMPARE(ids.size(), requests);
        QCOMPARE(shards, (QSet<int>{0, 1, 2}));

        // Every percentile is the one of a single histogram of all the shards' requests.csv rows:
        // the columns as written for the measured durations, the rows read back as records for
        // the derived ones (TPOT divides µs stamps, so its rounded column is not its input).
        std::vector<RequestRecord> rows;
        for (const QString &d : shardDirs) {
            const auto shard = RunReader::load(d, &why);
            QVERIFY2(shard, qPrintable(why));
            rows.insert(rows.end(), shard->records.begin(), shard->records.end());
        }
        using Value = std::optional<double> (RequestRecord::*)() const;
        const std::vector<std::tuple<Metric, const char *, Value>> metrics{
            {Metric::Ttft, "ttft_ms", nullptr},
            {Metric::Ttfb, "ttfb_ms", nullptr},
            {Metric::E2e, "e2e_ms", nullptr},
            {Metric::Tpot, "tpot_ms", &RequestRecord::tpotMs},
            {Metric::QueueDelay, "queue_ms", &RequestRecord::queueMs},
        };
        for (const auto &[metric, name, value] : metrics) {
            LogHistogram all;
            if (!value) {
                for (const QString &d : shardDirs) {
                    for (double v : column(d, name))
                        all.record(v);
                }
            } else {
                for (const RequestRecord &r : rows) {
                    if (const auto v = (r.*value)(); r.ok() && v)
                        all.record(*v);
                }
            }
            const LogHistogram &h = mt.histogram(metric);
            QCOMPARE(h.count(), all.count());
            QVERIFY2(h.count() > 0, name);
            // Bucket by bucket.
            QVERIFY2(h.toJson()["counts"] == all.toJson()["counts"] && h.toJson()["offset"] == all.toJson()["offset"],
                     name);
            for (double q : {0.0, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0})
                QCOMPARE(h.percentile(q), all.percentile(q));
            QCOMPARE(mt.stat(metric).p99, all.percentile(0.99));
        }
    }

    void mergeRefusesShardsThatAreNotOneRun_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("message");
        // The model column is read before the configurations are compared: the shard's requests ask
        // for a model its run does not name.
        QTest::newRow("different model") << QStringLiteral("model") << QStringLiteral("is not one of the run's models");
        QTest::newRow("overlapping index")
            << QStringLiteral("index") << QStringLiteral("are both shard 1/3 (overlapping shard indices)");
        QTest::newRow("overlapping ids") << QStringLiteral("ids") << QStringLiteral("both hold request id");
        QTest::newRow("missing shard") << QStringLiteral("missing") << QStringLiteral("shards 2 of 3 are missing");
        QTest::newRow("not a shard") << QStringLiteral("plain") << QStringLiteral("not a shard");
        // Regression: a directory that is not there was a failure (exit 1), not bad usage.
        QTest::newRow("missing directory exits 2")
            << QStringLiteral("no directory") << QStringLiteral("no such directory");
    }
    void mergeRefusesShardsThatAreNotOneRun()
    {
        QFETCH(QString, kind);
        QFETCH(QString, message);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString why;
        const QStringList shards = threeSmallShards(dir, &why);
        QVERIFY2(!shards.isEmpty(), qPrintable(why));
        const QString odd = dir.filePath(QStringLiteral("odd"));
        QStringList given = shards;
        if (kind == QLatin1String("model")) {
            QVERIFY(copyRun(shards[2], odd, [](nlohmann::json &run) { run["config"]["target"]["model"] = "other"; }));
            given[2] = odd;
        } else if (kind == QLatin1String("index")) {
            given[2] = shards[1];
        } else if (kind == QLatin1String("ids")) {
            QVERIFY(copyRun(shards[1], odd, [](nlohmann::json &run) { run["shard"]["index"] = 2; }));
            given[2] = odd;
        } else if (kind == QLatin1String("missing")) {
            given.removeLast();
        } else if (kind == QLatin1String("no directory")) {
            given[2] = dir.filePath(QStringLiteral("nowhere"));
        } else {
            QVERIFY(copyRun(shards[2], odd, [](nlohmann::json &run) { run.erase("shard"); }));
            given[2] = odd;
        }
        const QString out = dir.filePath(QStringLiteral("merged"));
        const CliResult r =
            runCli(QStringList{QStringLiteral("merge")} + given + QStringList{QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (kind != QLatin1String("missing"))
            QVERIFY2(r.err.contains(QDir::toNativeSeparators(given[2])), qPrintable(r.err)); // names the odd one
        QVERIFY(!QFile::exists(QDir(out).filePath(QStringLiteral("summary.json"))));
    }

    /// A merged run records its shards' I/O backend: theirs when they share it, "mixed" when they
    /// do not (chunk times no better than the worst shard's, and a warning that says so), and
    /// not recorded when a shard from before the block had none.
    void mergedRunRecordsTheShardsIoBackend_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("backend");
        QTest::newRow("shards alike") << QStringLiteral("none") << ioBackend().name;
        QTest::newRow("one shard on the other backend") << QStringLiteral("other") << QStringLiteral("mixed");
        QTest::newRow("one shard from before the block") << QStringLiteral("remove") << QString();
    }

    void mergedRunRecordsTheShardsIoBackend()
    {
        QFETCH(QString, change);
        QFETCH(QString, backend);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString why;
        QStringList shards = threeSmallShards(dir, &why);
        QVERIFY2(!shards.isEmpty(), qPrintable(why));
        const bool onLinux = ioBackend().name == QLatin1String("linux");
        if (change != QLatin1String("none")) {
            const QString odd = dir.filePath(QStringLiteral("odd"));
            QVERIFY(copyRun(shards[2], odd, [&](nlohmann::json &run) {
                if (change == QLatin1String("remove")) {
                    run.erase("io");
                    return;
                }
                run["io"]["backend"] = onLinux ? "portable" : "linux";
                run["io"]["kernel_receive_stamps"] = onLinux ? false : true;
            }));
            shards[2] = odd;
        }
        const QString out = dir.filePath(QStringLiteral("merged"));
        const CliResult r =
            runCli(QStringList{QStringLiteral("merge")} + shards + QStringList{QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto merged = RunReader::load(out, &why);
        QVERIFY2(merged, qPrintable(why));
        QCOMPARE(merged->info.io.backend, backend);
        QCOMPARE(merged->summary.io, merged->info.io);
        QCOMPARE(merged->info.io.kernelReceiveStamps,
                 change == QLatin1String("none") && ioBackend().kernelReceiveStamps);
        const QString warning = QStringLiteral("the shards were measured on different I/O backends");
        const QString warnings = merged->summary.warnings.join(u'\n');
        QCOMPARE(warnings.contains(warning), change == QLatin1String("other"));
        if (backend.isEmpty())
            QCOMPARE(merged->io().text(), QStringLiteral("not recorded"));
    }

    /// Regression: merge dropped a shard's last row that a crash cut short and said nothing
    /// (warnings: []), where compare and report warn of it.
    void mergeWarnsOfAShardsCutLastRow()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString why;
        const QStringList shards = threeSmallShards(dir, &why);
        QVERIFY2(!shards.isEmpty(), qPrintable(why));
        QFile csv(QDir(shards[1]).filePath(QStringLiteral("requests.csv")));
        QVERIFY(csv.open(QIODevice::Append));
        csv.write("99,c=1,0,1300.000,1300.1"); // the crash hit mid-row
        csv.close();
        const QString out = dir.filePath(QStringLiteral("merged"));
        const CliResult r =
            runCli(QStringList{QStringLiteral("merge")} + shards + QStringList{QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString note = QDir::toNativeSeparators(shards[1]) +
                             QStringLiteral(": requests.csv: the last row was cut short (the run ended while writing "
                                            "it) and is left out");
        QVERIFY2(r.err.contains(QStringLiteral("tokenbench-cli merge: ") + note), qPrintable(r.err));
        const auto merged = RunReader::load(out, &why);
        QVERIFY2(merged, qPrintable(why));
        QVERIFY2(merged->summary.warnings.contains(note), qPrintable(merged->summary.warnings.join(u'\n')));
        QCOMPARE(merged->records.size(), std::size_t(9)); // the cut row left out, every whole one kept
    }
};

QTEST_GUILESS_MAIN(TestShard)
#include "tst_shard.moc"
