// Nothing measured is lost: `tokenbench-cli run` killed mid-run, on a disk that fills up, and
// pointed at a directory that already holds something — real processes against `tokenbench-cli
// sim`, checked against the simulator's own record of what it finished (GET /sim/requests).
#include "results/rundirectory.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

#include "support/clirunner.h"
#include "support/smalldisk.h"
#include "support/testfiles.h"

#include <chrono>
#include <csignal>
#include <memory>
#include <optional>

using namespace tb;
using json = nlohmann::json;

namespace {

std::int64_t steadyNowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// `tokenbench-cli sim --preset fast` as a process of its own, on a free port.
class SimProcess
{
public:
    ~SimProcess()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.terminate();
            if (!m_process.waitForFinished(10000)) {
                m_process.kill();
                m_process.waitForFinished();
            }
        }
    }

    bool start(QString *error)
    {
        m_process.start(QStringLiteral(TOKENBENCH_CLI),
                        {QStringLiteral("sim"), QStringLiteral("--preset"), QStringLiteral("fast"),
                         QStringLiteral("--port"), QStringLiteral("0")});
        QByteArray line;
        while (!line.contains('\n') && m_process.waitForReadyRead(30000))
            line += m_process.readAllStandardOutput();
        const QByteArray prefix = "listening on ";
        if (!line.startsWith(prefix)) {
            *error = QStringLiteral("the simulator did not start: '%1' %2")
                         .arg(QString::fromUtf8(line), QString::fromUtf8(m_process.readAllStandardError()));
            return false;
        }
        m_base = QString::fromUtf8(line.mid(prefix.size(), line.indexOf('\n') - prefix.size()).trimmed());
        return true;
    }

    QString base() const { return m_base; }
    QStringList target() const
    {
        return {QStringLiteral("--url"), m_base + QStringLiteral("/v1"), QStringLiteral("--model"),
                QStringLiteral("fast"), QStringLiteral("--quiet")};
    }

    std::optional<json> get(const QString &path)
    {
        QNetworkRequest request(QUrl(m_base + path));
        std::unique_ptr<QNetworkReply> reply(m_network.get(request));
        QEventLoop loop;
        QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(30000, &loop, &QEventLoop::quit);
        loop.exec();
        if (!reply->isFinished() || reply->error() != QNetworkReply::NoError)
            return std::nullopt;
        const QByteArray body = reply->readAll();
        json j = json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
        return j.is_discarded() ? std::nullopt : std::optional<json>(std::move(j));
    }

    /// Every record of GET /sim/requests, page by page.
    std::optional<std::vector<json>> finishedRequests()
    {
        std::vector<json> all;
        for (qint64 since = 0;;) {
            const auto page = get(QStringLiteral("/sim/requests?since=%1&limit=5000").arg(since));
            if (!page)
                return std::nullopt;
            const json &list = (*page)["requests"];
            if (list.empty())
                return all;
            for (const json &r : list)
                all.push_back(r);
            since = list.back()["seq"].get<qint64>();
        }
    }

private:
    QProcess m_process;
    QNetworkAccessManager m_network;
    QString m_base;
};

QSet<QString> responseIds(const RunData &run)
{
    QSet<QString> ids;
    for (const RequestRecord &r : run.records)
        ids.insert(r.responseId);
    return ids;
}

} // namespace

class TestDurability : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sigkillLosesNoFinishedRequest_data()
    {
        QTest::addColumn<int>("killAfter"); // requests the simulator has finished
        // Before the first second (the old writer had handed nothing over yet) and later, between
        // two of its once-a-second flushes.
        QTest::newRow("early") << 80;
        QTest::newRow("later") << 600;
    }

    void sigkillLosesNoFinishedRequest()
    {
        // Killed at 0.9 s, a run had lost all 272 requests it had finished: rows waited in the
        // process for up to a second. Each now reaches the operating system as it completes.
        QFETCH(int, killAfter);
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start(&error), qPrintable(error));
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        QProcess cli;
        cli.start(QStringLiteral(TOKENBENCH_CLI),
                  QStringList{QStringLiteral("run")} + sim.target() +
                      QStringList{QStringLiteral("--concurrency"), QStringLiteral("8"), QStringLiteral("--duration"),
                                  QStringLiteral("120s"), QStringLiteral("--out"), dir});
        QVERIFY(cli.waitForStarted());
        QDeadlineTimer deadline(120000);
        for (;;) {
            const auto stats = sim.get(QStringLiteral("/sim/stats"));
            QVERIFY(stats);
            if ((*stats)["requests_served"].get<qint64>() >= killAfter)
                break;
            QVERIFY2(!deadline.hasExpired() && cli.state() == QProcess::Running,
                     qPrintable(QString::fromUtf8(cli.readAllStandardError())));
            QTest::qWait(2);
        }
        const std::int64_t killedNs = steadyNowNs();
        ::kill(pid_t(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(30000));
        QCOMPARE(cli.exitStatus(), QProcess::CrashExit);

        // The run directory opens (a row the kill cut short is left out) ...
        const auto run = RunReader::load(dir, &error);
        QVERIFY2(run, qPrintable(error));
        const QSet<QString> written = responseIds(*run);
        // ... and holds every request the simulator finished well before the kill. The margin is
        // for the client, not the writer: the response's last bytes must still be read and parsed
        // on a machine shared with other builds; the writer adds a write(2) and no wait.
        constexpr std::int64_t kMarginNs = 50'000'000;
        const auto finished = sim.finishedRequests();
        QVERIFY(finished);
        int due = 0;
        std::int64_t newestWrittenAgoNs = -1;
        QStringList missing;
        for (const json &r : *finished) {
            if (!r["done_ns"].is_number() || r["outcome"] == "client_closed")
                continue; // the kill cut it off
            const std::int64_t doneNs = r["done_ns"].get<std::int64_t>();
            const QString id = QString::fromStdString(r["id"].get<std::string>());
            if (written.contains(id) && (newestWrittenAgoNs < 0 || killedNs - doneNs < newestWrittenAgoNs))
                newestWrittenAgoNs = killedNs - doneNs;
            if (doneNs > killedNs - kMarginNs)
                continue;
            ++due;
            if (!written.contains(id))
                missing << QStringLiteral("%1 (finished %2 ms before the kill)")
                               .arg(id)
                               .arg(double(killedNs - doneNs) / 1e6);
        }
        qInfo("killed after %d finished: %d finished more than %lld ms before the kill, %d rows in requests.csv%s",
              killAfter, due, qlonglong(kMarginNs / 1000000), int(run->records.size()),
              newestWrittenAgoNs < 0 ? ""
                                     : qPrintable(QStringLiteral(", the newest of them finished %1 ms before the kill")
                                                      .arg(double(newestWrittenAgoNs) / 1e6, 0, 'f', 1)));
        QVERIFY2(due >= 10, qPrintable(QString::number(due))); // not a check of nothing
        QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("%1 of %2 missing: ").arg(missing.size()).arg(due) +
                                               missing.mid(0, 5).join(QStringLiteral(", "))));
    }

    void fullDiskNamesTheErrorAndKeepsTheRunOpenable()
    {
        // On a full disk the run ended with "cannot write …: Unknown error", and the 0-byte
        // timeseries.csv it left made compare and report refuse the run.
        SmallDisk disk(64 * 1024);
        if (!disk.isMounted())
            QSKIP(disk.skipReason());
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start(&error), qPrintable(error));
        const QString dir = disk.filePath(QStringLiteral("run"));
        const CliResult r =
            runCli(QStringList{QStringLiteral("run")} + sim.target() +
                   QStringList{QStringLiteral("--concurrency"), QStringLiteral("8"), QStringLiteral("--duration"),
                               QStringLiteral("120s"), QStringLiteral("--out"), dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot write ") + QDir::toNativeSeparators(dir) + QDir::separator()) &&
                     r.err.contains(QStringLiteral(": No space left on device")),
                 qPrintable(r.err));
        for (const QFileInfo &file : QDir(dir).entryInfoList(QDir::Files | QDir::Hidden))
            QVERIFY2(file.size() > 0, qPrintable(file.fileName() + QStringLiteral(" is empty")));

        // The rows that reached the disk are whole, and every one is a request the server finished.
        const auto run = RunReader::load(dir, &error);
        QVERIFY2(run, qPrintable(error));
        QVERIFY(run->records.size() > 20);
        const auto finished = sim.finishedRequests();
        QVERIFY(finished);
        QSet<QString> served;
        for (const json &f : *finished)
            served.insert(QString::fromStdString(f["id"].get<std::string>()));
        for (const RequestRecord &rec : run->records)
            QVERIFY2(rec.status != RequestStatus::Ok || served.contains(rec.responseId), qPrintable(rec.responseId));

        const CliResult compared = runCli({QStringLiteral("compare"), dir});
        QVERIFY2(compared.exitCode == 0, qPrintable(compared.err));
        QVERIFY2(compared.err.contains(QStringLiteral("recomputed from requests.csv")), qPrintable(compared.err));
        QTemporaryDir out;
        const QString html = out.filePath(QStringLiteral("report.html"));
        const CliResult reported = runCli({QStringLiteral("report"), dir, QStringLiteral("--out"), html});
        QVERIFY2(reported.exitCode == 0, qPrintable(reported.err));
        QVERIFY(QFileInfo(html).size() > 0);
    }

    void outDirectoryThatHoldsARunIsNotOverwritten_data()
    {
        QTest::addColumn<QString>("held");
        QTest::newRow("only run.json") << QStringLiteral("run.json");
        QTest::newRow("someone's notes") << QStringLiteral("notes.txt");
    }

    void outDirectoryThatHoldsARunIsNotOverwritten()
    {
        // `--out` naming a directory that held only run.json silently overwrote it.
        QFETCH(QString, held);
        SimProcess sim;
        QString error;
        QVERIFY2(sim.start(&error), qPrintable(error));
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        QVERIFY(QDir().mkpath(dir));
        const QString heldPath = QDir(dir).filePath(held);
        QVERIFY(tb::test::writeFile(heldPath, "sentinel"));
        const QStringList args =
            QStringList{QStringLiteral("run")} + sim.target() +
            QStringList{QStringLiteral("--requests"), QStringLiteral("5"), QStringLiteral("--out"), dir};
        const CliResult refused = runCli(args);
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(
            refused.err.contains(QDir::toNativeSeparators(dir) + QStringLiteral(" is not empty (it holds ") + held) &&
                refused.err.contains(QStringLiteral("--force")),
            qPrintable(refused.err));
        QFile file(heldPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), QByteArray("sentinel"));
        file.close();

        const CliResult forced = runCli(args + QStringList{QStringLiteral("--force")});
        QVERIFY2(forced.exitCode == 0, qPrintable(forced.err));
        const auto run = RunReader::load(dir, &error);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->summary.total.requests.ok, qint64(5));
        QVERIFY(QFile::exists(heldPath)); // replaced when it was run.json, left alone when not
    }
};

QTEST_GUILESS_MAIN(TestDurability)
#include "tst_durability.moc"
