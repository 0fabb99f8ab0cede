// Comparison sessions: one workload against several simulated servers (the seed report's three
// models, time-scaled), sequential and interleaved; session.json; what a failed target and Stop
// leave; paired per-request deltas; the baseline mark.
#include "analysis/baseline.h"
#include "analysis/comparison.h"
#include "results/rundirectory.h"
#include "run/comparisonsession.h"
#include "sim/simulatorhost.h"
#include "support/comparisonrows.h"
#include "support/testfiles.h"
#include "support/testsettings.h"
#include "support/testsimulator.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <set>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::readFile;
using tb::test::row;
using tb::test::targetOf;
using tb::test::writeFile;

namespace {

/// The report presets at 1/20 of their times: TTFT about 44 ms (turbo), 90 ms (gpt-4) and 158 ms
/// (o1-preview), so a session takes seconds while the order and the ratios stay the presets'.
constexpr double kTimeScale = 0.05;

std::unique_ptr<SimulatorHost> startPreset(const QString &preset)
{
    SimConfig sc = *SimConfig::preset(preset);
    sc.ttftMs *= kTimeScale;
    sc.prefillMsPer1k *= kTimeScale;
    sc.prefillQuadraticMs *= kTimeScale;
    sc.stepMs *= kTimeScale;
    sc.stepMsPerSeq *= kTimeScale;
    return test::startSimulator(sc);
}

RunConfig workload(int requests)
{
    RunConfig c;
    c.load.concurrency = 2;
    c.load.requests = requests;
    c.request.maxTokens = 64;
    c.prompt.promptTokens = 40;
    c.load.seed = 7;
    return c;
}

/// The seed report's three models, in its order: GPT-4, GPT-4 Turbo, o1-preview.
struct ReportTargets {
    std::vector<std::unique_ptr<SimulatorHost>> hosts;
    QList<TargetConfig> targets;

    bool start()
    {
        const QList<std::pair<QString, QString>> presets{
            {QStringLiteral("gpt4-like"), QStringLiteral("gpt-4")},
            {QStringLiteral("gpt4-turbo-like"), QStringLiteral("gpt-4-turbo")},
            {QStringLiteral("o1-preview-like"), QStringLiteral("o1-preview")}};
        for (const auto &[preset, name] : presets) {
            hosts.push_back(startPreset(preset));
            if (!hosts.back())
                return false;
            targets << targetOf(*hosts.back(), name);
        }
        return true;
    }
};

std::vector<RunData> loadSession(const QString &directory)
{
    QStringList dirs;
    QString error;
    if (!expandRunDirectories({directory}, &dirs, &error))
        qFatal("%s", qPrintable(error));
    std::vector<RunData> runs;
    for (const QString &dir : std::as_const(dirs)) {
        auto data = RunReader::load(dir, &error, RunReader::Records);
        if (!data)
            qFatal("%s", qPrintable(error));
        runs.push_back(std::move(*data));
    }
    return runs;
}

const PairedComparison::Row &pairedRow(const PairedComparison &paired, const char *key)
{
    for (const auto &r : paired.rows()) {
        if (r.key == QLatin1String(key))
            return r;
    }
    qFatal("no paired row %s", key);
}

} // namespace

class TestSession : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;

private Q_SLOTS:
    void initTestCase()
    {
        // The baseline mark lives in QSettings: keep the user's own out of reach.
        QVERIFY(m_settingsDir.isValid());
        test::isolateSettings(m_settingsDir.path(), QStringLiteral("tst_session"));
        qRegisterMetaType<SessionRunStatus>();
    }

    void sequentialSessionOfThePresets()
    {
        ReportTargets report;
        QVERIFY(report.start());
        QTemporaryDir tmp;
        SessionRunner runner;
        QSignalSpy started(&runner, &SessionRunner::runStarted);
        QSignalSpy finishedRuns(&runner, &SessionRunner::runFinished);
        QSignalSpy progress(&runner, &SessionRunner::progressed);
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        // The runs must go one after another: while one runs, the others' servers stay idle.
        qint64 overlap = 0;
        connect(&runner, &SessionRunner::runStarted, this, [&](int target) {
            for (std::size_t i = 0; i < report.hosts.size(); ++i) {
                if (int(i) != target)
                    overlap += report.hosts[i]->stats().requestsInProgress;
            }
        });

        SessionRunner::Config config;
        config.name = QStringLiteral("report models");
        config.workload = workload(12);
        config.targets = report.targets;
        config.directory = SessionRunner::defaultDirectory(tmp.path(), config.name);
        QVERIFY2(QFileInfo(config.directory).fileName().endsWith(QStringLiteral("-session-report_models")),
                 qPrintable(config.directory));
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QVERIFY(runner.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QVERIFY(!runner.isRunning());
        QCOMPARE(finished.first().at(1).toBool(), false);
        QCOMPARE(started.count(), 3);
        QCOMPARE(finishedRuns.count(), 3);
        QCOMPARE(overlap, qint64(0));
        QVERIFY(progress.count() > 0);
        const double lastFraction = progress.last().first().value<SessionProgress>().fraction;
        QVERIFY2(lastFraction > 0.5 && lastFraction <= 1.0, qPrintable(QString::number(lastFraction)));
        for (const auto &host : report.hosts)
            QCOMPARE(host->stats().requestsServed, qint64(12));

        // session.json: the mode, the workload, each target's run directory in order.
        const auto info = SessionInfo::load(config.directory, &error);
        QVERIFY2(info, qPrintable(error));
        QCOMPARE(info->name, config.name);
        QCOMPARE(info->mode, SessionMode::Sequential);
        QCOMPARE(info->workload.load, config.workload.load);
        QCOMPARE(info->workload.request, config.workload.request);
        QCOMPARE(info->workload.prompt, config.workload.prompt);
        QCOMPARE(info->runs.size(), 3);
        const QStringList expected{QStringLiteral("1-gpt-4"), QStringLiteral("2-gpt-4-turbo"),
                                   QStringLiteral("3-o1-preview")};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(info->runs[i].directory, expected[i]);
            QCOMPARE(info->runs[i].target, report.targets[i]);
            QCOMPARE(info->runs[i].status, SessionRunStatus::Ok);
            QVERIFY(RunReader::isRunDirectory(QDir(config.directory).filePath(expected[i])));
        }
        QCOMPARE(runner.runDirectories().size(), 3);

        // The table orders the runs as the presets' speeds: turbo < gpt-4 < o1-preview.
        const std::vector<RunData> runs = loadSession(config.directory);
        QCOMPARE(runs.size(), std::size_t(3));
        QVERIFY(!isInterleavedSet(runs));
        const ComparisonTable table(runs, 0);
        QCOMPARE(table.labels(), expected);
        const auto &ttft = row(table, "ttft_mean");
        const QString values =
            QStringLiteral("%1 / %2 / %3").arg(*ttft.values[0]).arg(*ttft.values[1]).arg(*ttft.values[2]);
        QVERIFY2(*ttft.values[1] < *ttft.values[0] && *ttft.values[0] < *ttft.values[2], qPrintable(values));
        QCOMPARE(ttft.best, (std::vector<bool>{false, true, false}));
        QCOMPARE(ttft.noise[1], ComparisonTable::Noise::Significant);
        QCOMPARE(ttft.noise[2], ComparisonTable::Noise::Significant);
        const auto &rate = row(table, "requests_per_s");
        QVERIFY(*rate.values[1] > *rate.values[0] && *rate.values[0] > *rate.values[2]);
        QVERIFY2(table.warnings().isEmpty(), qPrintable(table.warnings().join(QLatin1Char('\n'))));
    }

    void interleavedSessionPairsRequests()
    {
        ReportTargets report;
        QVERIFY(report.start());
        QTemporaryDir tmp;
        SessionRunner runner;
        QSignalSpy started(&runner, &SessionRunner::runStarted);
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        SessionRunner::Config config;
        config.name = QStringLiteral("paired");
        config.mode = SessionMode::Interleaved;
        config.workload = workload(16);
        config.targets = report.targets;
        config.directory = tmp.filePath(QStringLiteral("session"));
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QCOMPARE(started.count(), 3); // all at once
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);

        const auto info = SessionInfo::load(config.directory, &error);
        QVERIFY2(info, qPrintable(error));
        QCOMPARE(info->mode, SessionMode::Interleaved);
        for (const SessionInfo::Run &run : info->runs)
            QCOMPARE(run.status, SessionRunStatus::Ok);

        const std::vector<RunData> runs = loadSession(config.directory);
        QVERIFY(isInterleavedSet(runs));
        QVERIFY(!isInterleavedSet({runs[0]}));
        // One schedule: request i was scheduled at the same moment for every target.
        std::map<std::uint64_t, std::int64_t> scheduled;
        for (const RequestRecord &r : runs[0].records)
            scheduled[r.id] = r.scheduledNs;
        for (const RunData &run : runs) {
            QCOMPARE(run.records.size(), std::size_t(16));
            for (const RequestRecord &r : run.records)
                QCOMPARE(r.scheduledNs, scheduled.at(r.id));
        }

        const PairedComparison paired(runs, 0);
        QVERIFY(paired.hasPairs());
        const auto &ttft = pairedRow(paired, "ttft");
        QCOMPARE(ttft.cells[0].pairs, std::size_t(0)); // the baseline
        QCOMPARE(ttft.cells[1].pairs, std::size_t(16));
        QCOMPARE(ttft.cells[2].pairs, std::size_t(16));
        // Turbo answers each request sooner than GPT-4, o1-preview later: beyond noise.
        QVERIFY(*ttft.cells[1].median < 0);
        QVERIFY(*ttft.cells[2].median > 0);
        QCOMPARE(ttft.cells[1].noise, ComparisonTable::Noise::Significant);
        QCOMPARE(ttft.cells[2].noise, ComparisonTable::Noise::Significant);
        QVERIFY(ttft.cells[1].interval->high < 0);
        QVERIFY(ttft.cells[1].interval->low <= *ttft.cells[1].median &&
                *ttft.cells[1].median <= ttft.cells[1].interval->high);
        QVERIFY(ttft.cells[1].medianPct && *ttft.cells[1].medianPct < 0);
        const QString text = paired.toText();
        QVERIFY2(text.contains(QStringLiteral("#2 - #1")) && text.contains(QStringLiteral("significant")),
                 qPrintable(text));
    }

    void pairingJoinsOnRequestId()
    {
        // Two runs that share only some ids: only those pair, whatever their order in the files.
        const auto record = [](std::uint64_t id, double ttftMs, bool ok = true) {
            RequestRecord r;
            r.id = id;
            r.sentNs = 0;
            r.firstTokenNs = std::int64_t(ttftMs * 1e6);
            r.lastTokenNs = r.firstTokenNs + 1000000;
            r.doneNs = r.lastTokenNs;
            r.completionTokens = 2;
            r.status = ok ? RequestStatus::Ok : RequestStatus::Timeout;
            return r;
        };
        RunData a;
        RunData b;
        a.directory = QStringLiteral("/x/a");
        b.directory = QStringLiteral("/x/b");
        for (std::uint64_t id = 1; id <= 30; ++id)
            a.records.push_back(record(id, 100 + double(id)));
        for (std::uint64_t id = 40; id >= 11; --id) // 11..30 shared; 31..40 only in b
            b.records.push_back(record(id, 100 + double(id) + 25, id != 20));
        const PairedComparison paired({a, b}, 0);
        const auto &ttft = pairedRow(paired, "ttft");
        QCOMPARE(ttft.cells[1].pairs, std::size_t(19)); // 11..30 except the failed 20
        QCOMPARE(*ttft.cells[1].median, 25.0);
        QCOMPARE(ttft.cells[1].noise, ComparisonTable::Noise::Significant);
        QCOMPARE(ttft.cells[1].interval->low, 25.0); // every difference is exactly 25
        QCOMPARE(ttft.cells[1].interval->high, 25.0);
    }

    void failedTargetDoesNotStopTheSession()
    {
        auto a = startPreset(QStringLiteral("gpt4-turbo-like"));
        auto b = startPreset(QStringLiteral("gpt4-like"));
        QVERIFY(a && b);
        TargetConfig closed = targetOf(*a, QStringLiteral("nobody"));
        closed.url = QStringLiteral("http://127.0.0.1:1/v1"); // nothing listens: connection refused
        QTemporaryDir tmp;
        SessionRunner runner;
        QSignalSpy runs(&runner, &SessionRunner::runFinished);
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        SessionRunner::Config config;
        config.workload = workload(6);
        config.targets = {targetOf(*a, QStringLiteral("a")), closed, targetOf(*b, QStringLiteral("b"))};
        config.directory = tmp.filePath(QStringLiteral("s"));
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(runs.count(), 3);
        QCOMPARE(runs.at(1).at(1).value<SessionRunStatus>(), SessionRunStatus::Failed);
        const QString why = runs.at(1).at(2).toString();
        QVERIFY2(why.contains(QStringLiteral("every request failed")) && why.contains(QStringLiteral("connect")),
                 qPrintable(why));
        const auto info = SessionInfo::load(config.directory, &error);
        QVERIFY2(info, qPrintable(error));
        QCOMPARE(info->runs[0].status, SessionRunStatus::Ok);
        QCOMPARE(info->runs[1].status, SessionRunStatus::Failed);
        QCOMPARE(info->runs[1].error, why);
        QCOMPARE(info->runs[2].status, SessionRunStatus::Ok);
        QCOMPARE(b->stats().requestsServed, qint64(6));
        // The failed run's directory still compares: it shows its errors.
        QCOMPARE(loadSession(config.directory).size(), std::size_t(3));
    }

    void stopEndsTheSessionAndKeepsWhatRan()
    {
        auto slow = startPreset(QStringLiteral("o1-preview-like"));
        auto other = startPreset(QStringLiteral("gpt4-like"));
        QVERIFY(slow && other);
        QTemporaryDir tmp;
        SessionRunner runner;
        QSignalSpy started(&runner, &SessionRunner::runStarted);
        QSignalSpy finished(&runner, &SessionRunner::sessionFinished);
        SessionRunner::Config config;
        config.workload = workload(0);
        config.workload.load.durationMs = 600000;
        config.targets = {targetOf(*slow, QStringLiteral("slow")), targetOf(*other, QStringLiteral("other")),
                          targetOf(*other, QStringLiteral("third"))};
        config.directory = tmp.filePath(QStringLiteral("s"));
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(slow->stats().requestsServed >= 2, 60000);
        runner.stop();
        runner.stop(); // safe twice
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        QCOMPARE(finished.first().at(1).toBool(), true);
        QCOMPARE(started.count(), 1);
        QCOMPARE(other->stats().requestsServed, qint64(0));
        runner.stop(); // after the end: nothing

        const auto info = SessionInfo::load(config.directory, &error);
        QVERIFY2(info, qPrintable(error));
        QCOMPARE(info->runs[0].status, SessionRunStatus::Cancelled);
        QCOMPARE(info->runs[1].status, SessionRunStatus::NotRun);
        QCOMPARE(info->runs[2].status, SessionRunStatus::NotRun);
        QStringList dirs;
        QStringList notes;
        QVERIFY(expandRunDirectories({config.directory}, &dirs, &error, &notes));
        QCOMPARE(dirs.size(), 1);
        QCOMPARE(notes.size(), 2);
        QVERIFY2(notes[0].contains(QStringLiteral("2-other")) && notes[0].contains(QStringLiteral("not-run")),
                 qPrintable(notes[0]));
    }

    void refusesWhatCannotRun_data()
    {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("message");
        QTest::newRow("one target") << QStringLiteral("one") << QStringLiteral("at least two targets (got 1)");
        QTest::newRow("bad target") << QStringLiteral("url") << QStringLiteral("target 2 (broken): target.url");
        QTest::newRow("bad workload") << QStringLiteral("load") << QStringLiteral("load.concurrency");
        QTest::newRow("directory taken") << QStringLiteral("taken")
                                         << QStringLiteral("already exists and is not empty");
    }

    void refusesWhatCannotRun()
    {
        QFETCH(QString, what);
        QFETCH(QString, message);
        auto host = startPreset(QStringLiteral("gpt4-like"));
        QVERIFY(host);
        QTemporaryDir tmp;
        SessionRunner::Config config;
        config.workload = workload(4);
        config.targets = {targetOf(*host, QStringLiteral("one")), targetOf(*host, QStringLiteral("broken"))};
        config.directory = tmp.filePath(QStringLiteral("s"));
        if (what == QLatin1String("one"))
            config.targets.removeLast();
        else if (what == QLatin1String("url"))
            config.targets[1].url = QStringLiteral("not a url");
        else if (what == QLatin1String("load"))
            config.workload.load.concurrency = 0;
        else
            QVERIFY(QDir().mkpath(QDir(config.directory).filePath(QStringLiteral("something"))));
        SessionRunner runner;
        QSignalSpy started(&runner, &SessionRunner::sessionStarted);
        QString error;
        QVERIFY(!runner.start(config, &error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QCOMPARE(started.count(), 0);
        QVERIFY(!runner.isRunning());
        QCOMPARE(host->stats().requestsServed, qint64(0));
    }

    void sessionFileRoundTripsAndRefusesDamage()
    {
        QTemporaryDir tmp;
        SessionInfo info;
        info.name = QStringLiteral("before/after");
        info.mode = SessionMode::Interleaved;
        info.createdAt = QDateTime::currentDateTime();
        info.workload = workload(10);
        TargetConfig t;
        t.name = QStringLiteral("a");
        t.url = QStringLiteral("http://127.0.0.1:9/v1");
        t.model = QStringLiteral("m");
        t.apiKey = QStringLiteral("sk-never-written");
        info.runs << SessionInfo::Run{QStringLiteral("1-a"), t, SessionRunStatus::Ok, {}}
                  << SessionInfo::Run{QStringLiteral("2-b"), t, SessionRunStatus::Failed, QStringLiteral("why")};
        QString error;
        QVERIFY(info.save(tmp.path(), &error));
        QVERIFY(SessionInfo::isSessionDirectory(tmp.path()));
        const QByteArray text = readFile(tmp.filePath(QLatin1String(SessionInfo::kFileName)));
        QVERIFY(!text.contains("sk-never-written"));
        const auto back = SessionInfo::load(tmp.path(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->name, info.name);
        QCOMPARE(back->mode, info.mode);
        QCOMPARE(back->workload.load, info.workload.load);
        QCOMPARE(back->runs.size(), 2);
        QCOMPARE(back->runs[1].status, SessionRunStatus::Failed);
        QCOMPARE(back->runs[1].error, QStringLiteral("why"));
        QCOMPARE(back->runs[0].target.url, t.url);
        QVERIFY(back->runs[0].target.apiKey.isEmpty());

        // Neither run directory exists: nothing to compare, and the message names the folder.
        QStringList dirs;
        QVERIFY(!expandRunDirectories({tmp.path()}, &dirs, &error));
        QVERIFY2(error.contains(QDir::toNativeSeparators(tmp.path())) &&
                     error.contains(QStringLiteral("no run directories")),
                 qPrintable(error));

        const QString path = tmp.filePath(QLatin1String(SessionInfo::kFileName));
        QVERIFY(writeFile(path, "{ not json"));
        QVERIFY(!SessionInfo::load(tmp.path(), &error));
        QVERIFY2(error.startsWith(QDir::toNativeSeparators(tmp.path())) &&
                     error.contains(QStringLiteral("damaged session.json")),
                 qPrintable(error));
        nlohmann::json newer = info.toJson();
        newer["format_version"] = 9;
        QVERIFY(writeFile(path, QByteArray::fromStdString(newer.dump())));
        QVERIFY(!SessionInfo::load(tmp.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("written by a newer format version 9")), qPrintable(error));
        nlohmann::json escaping = info.toJson();
        escaping["runs"][0]["directory"] = "../elsewhere";
        QVERIFY(writeFile(path, QByteArray::fromStdString(escaping.dump())));
        QVERIFY(!SessionInfo::load(tmp.path(), &error));
        QVERIFY2(error.contains(QStringLiteral("runs[0].directory")), qPrintable(error));
    }

    void baselineMarkAndChange()
    {
        QTemporaryDir tmp;
        QVERIFY(Baseline::directory().isEmpty());
        Baseline::setDirectory(tmp.filePath(QStringLiteral("runs/../runs/a")));
        QCOMPARE(Baseline::directory(), QDir::cleanPath(tmp.filePath(QStringLiteral("runs/a"))));
        QVERIFY(Baseline::isBaseline(tmp.filePath(QStringLiteral("runs/a"))));
        QVERIFY(!Baseline::isBaseline(tmp.filePath(QStringLiteral("runs/b"))));
        Baseline::setDirectory({});
        QVERIFY(Baseline::directory().isEmpty());

        RunSummary base;
        base.total.stats[std::size_t(Metric::Ttft)].p50 = 200;
        base.total.stats[std::size_t(Metric::E2e)].p99 = 1000;
        base.total.throughput.requestsPerS = 10;
        base.total.throughput.outputTokensPerS = 500;
        base.total.requests.attempted = 100;
        base.total.requests.failed = 1;
        RunSummary run = base;
        run.total.stats[std::size_t(Metric::Ttft)].p50 = 150;
        run.total.stats[std::size_t(Metric::E2e)].p99 = 900;
        run.total.throughput.requestsPerS = 12;
        run.total.throughput.outputTokensPerS = 600;
        run.total.requests.failed = 0;
        const Baseline::Change better = Baseline::change(run, base);
        QCOMPARE(*better.ttftP50Pct, -25.0);
        QCOMPARE(*better.requestsPerSPct, 20.0);
        QCOMPARE(*better.errorPoints, -1.0);
        QCOMPARE(better.direction(), 1);
        QCOMPARE(better.text(), QStringLiteral("TTFT p50 −25.0% · E2E p99 −10.0% · req/s +20.0% · tok/s +20.0% · "
                                               "errors −1.0 pp"));
        QCOMPARE(Baseline::change(base, run).direction(), -1);
        run.total.throughput.requestsPerS = 5; // faster first token, less throughput: mixed
        QCOMPARE(Baseline::change(run, base).direction(), 0);
        QVERIFY(Baseline::change(RunSummary(), RunSummary()).isEmpty()); // nothing measured, nothing compares
    }
};

QTEST_GUILESS_MAIN(TestSession)
#include "tst_session.moc"
