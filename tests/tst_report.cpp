// `tokenbench-cli report` (and `compare` on sessions) on runs made by `tokenbench-cli run` against
// simulated servers: the HTML parses, its numbers are the summaries', it references nothing
// outside itself, hides credentials, and bad inputs are refused by name.
#include "analysis/comparison.h"
#include "analysis/htmlreport.h"
#include "results/rundirectory.h"
#include "run/comparisonsession.h"
#include "sim/simulatorhost.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"
#include <QXmlStreamReader>

#include <map>
#include <memory>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::makeUnreadableFile;
using tb::test::readFile;
using tb::test::writeFile;

namespace {

/// What a report holds, read with an XML parser (the report is well-formed XML by design).
struct ParsedReport {
    QString error; ///< the parser's complaint; empty when the document parsed
    QString title;
    int svgCount = 0;
    int polylines = 0;
    /// section ("comparison" or "paired") → row key → run number → data-value
    std::map<QString, std::map<QString, std::map<int, double>>> values;
    QStringList svgErrors; ///< each <svg> parsed on its own
    /// The configuration table: setting → run number → text; and which settings are flagged as differing.
    std::map<QString, std::map<int, QString>> config;
    QStringList differs;
};

ParsedReport parse(const QByteArray &html)
{
    ParsedReport r;
    QXmlStreamReader xml(html);
    QString table;
    QString key;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            const auto attrs = xml.attributes();
            if (name == QLatin1String("title") && r.title.isEmpty() && r.svgCount == 0)
                r.title = xml.readElementText();
            else if (name == QLatin1String("svg"))
                ++r.svgCount;
            else if (name == QLatin1String("polyline"))
                ++r.polylines;
            else if (name == QLatin1String("table"))
                table = attrs.value(QLatin1String("class")).toString();
            else if (name == QLatin1String("tr")) {
                key = attrs.value(QLatin1String("data-key")).toString();
                if (attrs.value(QLatin1String("class")) == QLatin1String("differs"))
                    r.differs << key;
            } else if (table == QLatin1String("config") && name == QLatin1String("td") &&
                       attrs.hasAttribute(QLatin1String("data-run")))
                r.config[key][attrs.value(QLatin1String("data-run")).toInt()] = xml.readElementText();
            else if (name == QLatin1String("td") && !key.isEmpty() && attrs.hasAttribute(QLatin1String("data-value")))
                r.values[table][key][attrs.value(QLatin1String("data-run")).toInt()] =
                    attrs.value(QLatin1String("data-value")).toDouble();
        }
    }
    if (xml.hasError())
        r.error = QStringLiteral("line %1: %2").arg(xml.lineNumber()).arg(xml.errorString());
    // Each chart on its own, as a browser or an editor would take it out of the page.
    static const QRegularExpression svgElement(QStringLiteral("<svg[\\s\\S]*?</svg>"));
    for (auto it = svgElement.globalMatch(QString::fromUtf8(html)); it.hasNext();) {
        QXmlStreamReader one(it.next().captured());
        while (!one.atEnd())
            one.readNext();
        if (one.hasError())
            r.svgErrors << one.errorString();
    }
    return r;
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_tmp;
    std::unique_ptr<SimulatorHost> m_fast;
    std::unique_ptr<SimulatorHost> m_slow;
    QString m_a;
    QString m_b;
    QString m_c;
    QString m_session;

    QString path(const QString &name) const { return m_tmp.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        m_fast = test::startFastSimulator(15, 2);
        m_slow = test::startFastSimulator(45, 2);
        QVERIFY(m_fast && m_slow);
        const auto run = [&](const SimulatorHost &host, const QString &out, const QStringList &extra,
                             const QString &maxTokens = QStringLiteral("32")) {
            const CliResult r =
                runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), host.baseUrl().toString(),
                                   QStringLiteral("--model"), host.config().model, QStringLiteral("--prompt-tokens"),
                                   QStringLiteral("30"), QStringLiteral("--max-tokens"), maxTokens,
                                   QStringLiteral("--header"), QStringLiteral("Authorization: Bearer sk-test-secret"),
                                   QStringLiteral("--out"), out, QStringLiteral("--quiet")} +
                       extra);
            return r.exitCode == 0 ? QString() : r.err;
        };
        m_a = path(QStringLiteral("run-a"));
        m_b = path(QStringLiteral("run-b"));
        m_c = path(QStringLiteral("run-c"));
        const QStringList plain{QStringLiteral("--concurrency"), QStringLiteral("2"), QStringLiteral("--requests"),
                                QStringLiteral("20")};
        QString error = run(*m_fast, m_a, plain);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = run(*m_slow, m_b, {QStringLiteral("--stages"), QStringLiteral("c=1:8,c=3:12")});
        QVERIFY2(error.isEmpty(), qPrintable(error));
        error = run(*m_slow, m_c, plain, QStringLiteral("16"));
        QVERIFY2(error.isEmpty(), qPrintable(error));

        // An interleaved session of the two servers.
        SessionRunner session;
        QSignalSpy finished(&session, &SessionRunner::sessionFinished);
        SessionRunner::Config config;
        config.mode = SessionMode::Interleaved;
        config.workload.load.concurrency = 2;
        config.workload.load.requests = 16;
        config.workload.prompt.promptTokens = 30;
        for (const SimulatorHost *host : {m_fast.get(), m_slow.get()}) {
            TargetConfig t;
            t.name = host == m_fast.get() ? QStringLiteral("fast") : QStringLiteral("slow");
            t.url = host->baseUrl().toString();
            t.model = host->config().model;
            config.targets << t;
        }
        m_session = path(QStringLiteral("session"));
        config.directory = m_session;
        QVERIFY2(session.start(config, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    }

    void reportOfSavedRuns()
    {
        const QString out = path(QStringLiteral("report.html"));
        const CliResult r = runCli({QStringLiteral("report"), m_a, m_b, m_c, QStringLiteral("--out"), out,
                                    QStringLiteral("--title"), QStringLiteral("Models <A & B>")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("3 runs, 7 charts")), qPrintable(r.out));
        const QByteArray html = readFile(out);
        QVERIFY(html.startsWith("<!DOCTYPE html>"));

        const ParsedReport report = parse(html);
        QVERIFY2(report.error.isEmpty(), qPrintable(report.error));
        QCOMPARE(report.title, QStringLiteral("Models <A & B>"));
        // CDFs of TTFT, E2E and ITL, output and request throughput over time, and (run b is
        // staged) the TTFT and E2E throughput–latency curves.
        QCOMPARE(report.svgCount, 7);
        QVERIFY2(report.svgErrors.isEmpty(), qPrintable(report.svgErrors.join(QLatin1Char('\n'))));
        // A line per run in each CDF, p50 and p99 of the staged run in each curve (the runs are too
        // short for every time chart to have two points).
        QVERIFY2(report.polylines >= 3 * 3 + 2 * 2, qPrintable(QString::number(report.polylines)));

        // Every number is its summary's, at full precision.
        const auto &values = report.values.at(QStringLiteral("comparison"));
        const QStringList dirs{m_a, m_b, m_c};
        for (int i = 0; i < 3; ++i) {
            QString error;
            const auto run = RunReader::load(dirs[i], &error, RunReader::SummaryOnly);
            QVERIFY2(run, qPrintable(error));
            const SummaryBlock &t = run->summary.total;
            QCOMPARE(values.at(QStringLiteral("ttft_mean")).at(i + 1), t.stat(Metric::Ttft).mean);
            QCOMPARE(values.at(QStringLiteral("ttft_p50")).at(i + 1), t.stat(Metric::Ttft).p50);
            QCOMPARE(values.at(QStringLiteral("ttft_p99")).at(i + 1), t.stat(Metric::Ttft).p99);
            QCOMPARE(values.at(QStringLiteral("e2e_p99")).at(i + 1), t.stat(Metric::E2e).p99);
            QCOMPARE(values.at(QStringLiteral("requests_per_s")).at(i + 1), t.throughput.requestsPerS);
            QCOMPARE(values.at(QStringLiteral("output_tokens_per_s")).at(i + 1), t.throughput.outputTokensPerS);
            QCOMPARE(values.at(QStringLiteral("out_in_ratio")).at(i + 1), *t.tokens.outInRatio);
            QVERIFY(run->summary.server); // the simulator's /metrics was scraped
            QCOMPARE(values.at(QStringLiteral("server_ttft_p50")).at(i + 1), *run->summary.server->ttft.p50);
            // The shown, rounded number is there too.
            QVERIFY(html.contains(ComparisonTable::formatValue(t.stat(Metric::Ttft).p50).toUtf8()));
        }
        QStringList keys;
        for (const auto &[key, row] : values)
            keys << key;
        // The server's rows, tokens in flight, the redundancy of the simulator's text (mean, p90, share
        // above the threshold), and a second mode when the simulator's apparatus made one.
        QVERIFY2(int(values.size()) - int(values.count(QStringLiteral("itl_bimodal_pct"))) -
                         int(values.count(QStringLiteral("ttft_bimodal_pct"))) ==
                     15 + 5 + 1 + 3,
                 qPrintable(keys.join(u' ')));

        // Self-contained: no scripts, no stylesheets or images from anywhere else (url(#…) names a
        // clip path in the same chart).
        static const QRegularExpression external(
            QStringLiteral("(?:src|href)\\s*=\\s*[\"']?\\s*(?:https?:)?//|url\\s*\\(\\s*[\"']?(?!#)|@import|<script|"
                           "<link|<img|<iframe|<object"),
            QRegularExpression::CaseInsensitiveOption);
        const QRegularExpressionMatch match = external.match(QString::fromUtf8(html));
        QVERIFY2(!match.hasMatch(), qPrintable(match.captured()));

        // Each run's configuration, without credentials; the workload difference is called out.
        QVERIFY(!html.contains("sk-test-secret"));
        for (int run = 1; run <= 3; ++run)
            QCOMPARE(report.config.at(QStringLiteral("target.headers.Authorization")).at(run),
                     QStringLiteral("(hidden)"));
        QCOMPARE(report.config.at(QStringLiteral("target.url")).at(1), m_fast->baseUrl().toString());
        QCOMPARE(report.config.at(QStringLiteral("request.max_tokens")).at(1), QStringLiteral("32"));
        QCOMPARE(report.config.at(QStringLiteral("request.max_tokens")).at(3), QStringLiteral("16"));
        QVERIFY(report.differs.contains(QStringLiteral("request.max_tokens")));
        QVERIFY(!report.differs.contains(QStringLiteral("prompt.prompt_tokens")));
        QVERIFY2(html.contains("#3 run-c: max_tokens 16, baseline 32"), html.constData());
        QVERIFY(html.contains("id=\"warnings\""));
        QVERIFY(!html.contains("id=\"paired\"")); // not an interleaved session
    }

    // Conversations: the measured multi-turn token growth and TTFT per turn, one point per turn.
    void reportDrawsTheTurnsOfConversations()
    {
        const QString run = path(QStringLiteral("run-turns"));
        CliResult r =
            runCli({QStringLiteral("run"), QStringLiteral("--url"), m_fast->baseUrl().toString(),
                    QStringLiteral("--model"), m_fast->config().model, QStringLiteral("--turns"), QStringLiteral("4"),
                    QStringLiteral("--concurrency"), QStringLiteral("2"), QStringLiteral("--requests"),
                    QStringLiteral("8"), QStringLiteral("--out"), run, QStringLiteral("--quiet")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString out = path(QStringLiteral("report-turns.html"));
        r = runCli({QStringLiteral("report"), run, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QByteArray html = readFile(out);
        const ParsedReport report = parse(html);
        QVERIFY2(report.error.isEmpty(), qPrintable(report.error));
        QVERIFY2(report.svgErrors.isEmpty(), qPrintable(report.svgErrors.join(QLatin1Char('\n'))));
        QVERIFY(html.contains("Multi-turn token growth"));
        QVERIFY(html.contains("Time to first token per turn"));
        // Not drawn for runs without conversations.
        const QString plainOut = path(QStringLiteral("report-plain.html"));
        r = runCli({QStringLiteral("report"), m_a, QStringLiteral("--out"), plainOut});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(!readFile(plainOut).contains("Multi-turn token growth"));
    }

    void reportAndCompareOfAnInterleavedSession()
    {
        const QString out = path(QStringLiteral("session.html"));
        const CliResult r = runCli({QStringLiteral("report"), m_session, QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QByteArray html = readFile(out);
        const ParsedReport report = parse(html);
        QVERIFY2(report.error.isEmpty(), qPrintable(report.error));
        QVERIFY(html.contains("id=\"paired\""));

        // The paired medians are what PairedComparison computes from the same directories.
        std::vector<RunData> runs;
        QStringList dirs;
        QString error;
        QVERIFY(expandRunDirectories({m_session}, &dirs, &error));
        QCOMPARE(dirs, (QStringList{QDir(m_session).filePath(QStringLiteral("1-fast")),
                                    QDir(m_session).filePath(QStringLiteral("2-slow"))}));
        for (const QString &dir : std::as_const(dirs))
            runs.push_back(*RunReader::load(dir, &error, RunReader::Records));
        const PairedComparison paired(runs, 0);
        const auto &shown = report.values.at(QStringLiteral("paired"));
        for (const auto &row : paired.rows()) {
            if (row.cells[1].median)
                QCOMPARE(shown.at(row.key).at(2), *row.cells[1].median);
        }
        QVERIFY(*paired.rows().front().cells[1].median > 0); // slow's TTFT is longer, request by request

        const CliResult text = runCli({QStringLiteral("compare"), m_session});
        QVERIFY2(text.exitCode == 0, qPrintable(text.err));
        QVERIFY2(text.out.contains(QStringLiteral("#1 1-fast (baseline)")), qPrintable(text.out));
        QVERIFY2(text.out.contains(QStringLiteral("Paired per-request differences against #1 1-fast")),
                 qPrintable(text.out));

        // The session's runs with another baseline, mixed with a run from elsewhere: no pairing.
        const CliResult mixed =
            runCli({QStringLiteral("compare"), m_session, m_a, QStringLiteral("--baseline"), QStringLiteral("3")});
        QVERIFY2(mixed.exitCode == 0, qPrintable(mixed.err));
        QVERIFY(mixed.out.contains(QStringLiteral("#3 run-a (baseline)")));
        QVERIFY(!mixed.out.contains(QStringLiteral("Paired")));
    }

    void badInputIsRefusedByName_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("setup");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        for (const QString &command : {QStringLiteral("compare"), QStringLiteral("report")}) {
            const QByteArray c = command.toLatin1();
            QTest::addRow("%s: not a run", c.constData())
                << command << QStringLiteral("empty") << 2 << QStringLiteral("BAD: not a run directory");
            QTest::addRow("%s: damaged summary", c.constData())
                << command << QStringLiteral("damaged") << 2 << QStringLiteral("BAD: damaged summary.json");
            QTest::addRow("%s: newer format", c.constData())
                << command << QStringLiteral("newer") << 2
                << QStringLiteral("BAD: summary.json was written by a newer format version 9");
            QTest::addRow("%s: damaged session", c.constData())
                << command << QStringLiteral("session") << 2 << QStringLiteral("BAD: damaged session.json");
            // Regression: requests.csv was read whole, whatever it was: a link to /dev/zero took all
            // memory, a FIFO hung the open, a sparse 3 GiB file took 3 GB and seconds.
            QTest::addRow("%s: requests.csv links to /dev/zero", c.constData())
                << command << QStringLiteral("dev-zero") << 2
                << QStringLiteral("BAD: cannot read requests.csv: a character device, not a regular file");
            QTest::addRow("%s: requests.csv is a FIFO", c.constData())
                << command << QStringLiteral("fifo") << 2
                << QStringLiteral("BAD: cannot read requests.csv: a FIFO (named pipe), not a regular file");
            QTest::addRow("%s: requests.csv is a sparse 3 GiB file", c.constData())
                << command << QStringLiteral("sparse") << 2
                << QStringLiteral("BAD: cannot read requests.csv: 3 GiB, more than the 2 GiB TokenBench reads of it");
        }
        QTest::newRow("report without --out")
            << QStringLiteral("report") << QStringLiteral("no-out") << 2 << QStringLiteral("--out: name the HTML file");
        QTest::newRow("report unwritable") << QStringLiteral("report") << QStringLiteral("unwritable") << 1
                                           << QStringLiteral("cannot write /nonexistent/dir/r.html");
    }

    void badInputIsRefusedByName()
    {
        QFETCH(QString, command);
        QFETCH(QString, setup);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        const QString bad = tmp.filePath(QStringLiteral("bad-folder"));
        QVERIFY(QDir().mkpath(bad));
        const auto copyRun = [&] {
            for (const QString &file : QDir(m_a).entryList(QDir::Files))
                QFile::copy(QDir(m_a).filePath(file), QDir(bad).filePath(file));
        };
        if (setup == QLatin1String("damaged")) {
            copyRun();
            QFile::remove(QDir(bad).filePath(QStringLiteral("summary.json")));
            QVERIFY(
                writeFile(QDir(bad).filePath(QStringLiteral("summary.json")), "{\"format_version\": 1, \"tool\": 3"));
        } else if (setup == QLatin1String("newer")) {
            copyRun();
            auto json =
                nlohmann::json::parse(readFile(QDir(bad).filePath(QStringLiteral("summary.json"))).toStdString());
            json["format_version"] = 9;
            QFile::remove(QDir(bad).filePath(QStringLiteral("summary.json")));
            QVERIFY(
                writeFile(QDir(bad).filePath(QStringLiteral("summary.json")), QByteArray::fromStdString(json.dump())));
        } else if (setup == QLatin1String("dev-zero") || setup == QLatin1String("fifo") ||
                   setup == QLatin1String("sparse")) {
            copyRun();
            const QString csv = QDir(bad).filePath(QStringLiteral("requests.csv"));
            QVERIFY(QFile::remove(csv));
            QVERIFY(makeUnreadableFile(csv, setup, qint64(3) << 30));
        } else if (setup == QLatin1String("session")) {
            QVERIFY(writeFile(QDir(bad).filePath(QStringLiteral("session.json")), "[1, 2"));
        }
        const QString out = setup == QLatin1String("unwritable") ? QStringLiteral("/nonexistent/dir/r.html")
                                                                 : tmp.filePath(QStringLiteral("r.html"));
        QStringList args{command, m_a};
        if (setup != QLatin1String("unwritable"))
            args << bad;
        if (command == QLatin1String("report") && setup != QLatin1String("no-out"))
            args << QStringLiteral("--out") << out;
        const CliResult r = runCli(args, QProcessEnvironment::systemEnvironment(), 60000); // a hang fails
        QCOMPARE(r.exitCode, exitCode);
        const QString expected = QString(message).replace(QStringLiteral("BAD"), QDir::toNativeSeparators(bad));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
        QVERIFY(r.out.isEmpty()); // nothing half-done on stdout
        QVERIFY(!QFile::exists(out));
    }

    void secretHeaderNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("secret");
        QTest::newRow("authorization") << QStringLiteral("Authorization") << true;
        QTest::newRow("x-api-key") << QStringLiteral("x-api-key") << true;
        QTest::newRow("cookie") << QStringLiteral("Cookie") << true;
        QTest::newRow("access token") << QStringLiteral("X-Access-Token") << true;
        QTest::newRow("content type") << QStringLiteral("Content-Type") << false;
        QTest::newRow("custom routing") << QStringLiteral("X-Route") << false;
    }

    void secretHeaderNames()
    {
        QFETCH(QString, name);
        QFETCH(bool, secret);
        QCOMPARE(HtmlReport::isSecretHeader(name), secret);
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
