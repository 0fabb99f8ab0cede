// The comparison table (best marks, deltas, noise tests, workload warnings), the bootstrap behind
// the noise test, and `tokenbench-cli compare` on run directories written here.
#include "analysis/comparison.h"
#include "analysis/metriccatalogue.h"
#include "formats/csv.h"
#include "metrics/bootstrap.h"
#include "metrics/requestmetrics.h"
#include "metrics/runaggregator.h"
#include "platform/iobackend.h"
#include "results/runwriter.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/comparisonrows.h"
#include "support/testfiles.h"
#include "support/testnumbers.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace tb;
using tb::test::ns;
using tb::test::row;

namespace {

using Noise = ComparisonTable::Noise;

RunConfig config()
{
    RunConfig c;
    c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
    c.target.model = QStringLiteral("m");
    c.load.concurrency = 4;
    c.load.requests = 300;
    c.prompt.promptTokens = 100;
    c.slo.ttftMs = 150;
    return c;
}

/// n requests, 4 at a time, TTFT lognormal around `ttftMedianMs`, 8 one-token chunks 5 ms apart;
/// the last `failures` end in HTTP 500.
std::vector<RequestRecord> synthetic(std::uint64_t seed, double ttftMedianMs, int n, int failures = 0,
                                     int promptTokens = 100)
{
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> ttft(std::log(ttftMedianMs), 0.3);
    std::vector<RequestRecord> out;
    for (int i = 0; i < n; ++i) {
        RequestRecord r;
        r.id = std::uint64_t(i + 1);
        r.scheduledNs = r.sentNs = ns(50.0 * i);
        r.httpStatus = 200;
        r.headersNs = r.sentNs + ns(5);
        const double first = 50.0 * i + ttft(rng);
        for (int c = 0; c < 8; ++c)
            r.tokenChunks.push_back({ns(first + 5 * c), 4});
        r.chunks = 8;
        r.firstTokenNs = r.firstContentNs = r.tokenChunks.front().tNs;
        r.lastTokenNs = r.tokenChunks.back().tNs;
        r.doneNs = r.lastTokenNs + ns(1);
        r.completionTokens = 8;
        r.promptTokens = promptTokens;
        r.cachedTokens = 10;
        r.tokenSource = TokenSource::Usage;
        if (i >= n - failures) {
            r.status = RequestStatus::Http;
            r.httpStatus = 500;
            r.tokenChunks.clear();
            r.chunks = 0;
            r.firstTokenNs = r.firstContentNs = r.lastTokenNs = -1;
            r.completionTokens = 0;
            r.errorMessage = QStringLiteral("internal error, \"oops\"");
        }
        out.push_back(r);
    }
    return out;
}

RunData inMemory(const QString &name, const RunConfig &c, std::vector<RequestRecord> records)
{
    RunData d;
    d.directory = QStringLiteral("/runs/") + name;
    d.info = RunInfo::begin(c);
    d.hasInfo = true;
    RunAggregator aggregator(d.info);
    for (const RequestRecord &r : records) {
        aggregator.add(r);
        d.itlMeanMs.push_back(TokenTimeline(r).itlMeanMs().value_or(std::nan("")));
    }
    d.summary = aggregator.summary();
    d.records = std::move(records);
    return d;
}

RunSummary writeRun(const QString &dir, const RunConfig &c, const std::vector<RequestRecord> &records)
{
    const RunInfo info = RunInfo::begin(c);
    RunAggregator aggregator(info);
    RunWriter writer;
    if (!writer.open(dir, info))
        qFatal("%s", qPrintable(writer.errorString()));
    for (const RequestRecord &r : records) {
        aggregator.add(r);
        writer.append(r);
    }
    const RunSummary summary = aggregator.summary();
    if (!writer.finish(summary, aggregator.timeSeries()))
        qFatal("%s", qPrintable(writer.errorString()));
    return summary;
}

CliResult compare(const QStringList &args)
{
    return runCli(QStringList{QStringLiteral("compare")} + args);
}

/// DIR's run.json and summary.json with their "io" block changed by `edit` (a run measured
/// elsewhere, or before the block existed).
template<typename Edit> bool editIo(const QString &dir, Edit edit)
{
    for (const char *name : {"run.json", "summary.json"}) {
        const QString path = QDir(dir).filePath(QLatin1String(name));
        nlohmann::json json = nlohmann::json::parse(tb::test::readFile(path).toStdString(), nullptr, false);
        if (!json.is_object())
            return false;
        edit(json);
        if (!tb::test::writeFile(path, QByteArray::fromStdString(json.dump(2))))
            return false;
    }
    return true;
}

QString lineOf(const QString &text, const QString &start)
{
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        if (line.startsWith(start))
            return line;
    }
    return {};
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // One catalogue: a key means one label, unit and direction on every screen. These keys had two
    // definitions (the summary table's and the comparison's) before.
    void metricCatalogue_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("label");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<int>("better");
        using B = MetricCatalogue::Better;
        QTest::newRow("errors") << "error_pct"
                                << "Errors"
                                << "%" << int(B::Lower);
        QTest::newRow("out/in") << "out_in_ratio"
                                << "Out/in tokens"
                                << "x" << int(B::Neither);
        QTest::newRow("cache hits") << "cache_hit_pct"
                                    << "Cache hits"
                                    << "%" << int(B::Higher);
        QTest::newRow("from schedule") << "ttft_from_schedule_p99"
                                       << "TTFT from schedule p99"
                                       << "ms" << int(B::Lower);
        QTest::newRow("retries") << "retries"
                                 << "Retries"
                                 << "count" << int(B::Lower);
        QTest::newRow("ttft p50") << "ttft_p50"
                                  << "TTFT p50"
                                  << "ms" << int(B::Lower);
        QTest::newRow("req/s") << "requests_per_s"
                               << "Requests/s"
                               << "req/s" << int(B::Higher);
    }
    void metricCatalogue()
    {
        QFETCH(QString, key);
        QFETCH(QString, label);
        QFETCH(QString, unit);
        QFETCH(int, better);
        const MetricCatalogue::Entry *metric = MetricCatalogue::find(key);
        QVERIFY(metric);
        QCOMPARE(metric->label, label);
        QCOMPARE(metric->unit, unit);
        QCOMPARE(int(metric->better), better);
        QVERIFY2(MetricCatalogue::glossaryEntry(key), qPrintable(key));

        RunData run;
        run.summary.total.requests.retries = 2;
        run.summary.total.requests.attempted = run.summary.total.requests.ok = 4;
        LatencyStats &fromSchedule = run.summary.total.stats[std::size_t(Metric::TtftFromSchedule)];
        fromSchedule.count = 4;
        fromSchedule.p99 = 120;
        const ComparisonTable table({run, run});
        const auto row = std::find_if(table.rows().begin(), table.rows().end(),
                                      [&](const ComparisonTable::Row &r) { return r.key == key; });
        QVERIFY(row != table.rows().end());
        QCOMPARE(row->label, label);
        QCOMPARE(row->unit, unit);
        QCOMPARE(int(row->better), better);
        QCOMPARE(row->values.front(), metric->of(run.summary));

        QSet<QString> keys;
        for (const MetricCatalogue::Entry &m : MetricCatalogue::all())
            keys.insert(m.key);
        QCOMPARE(std::size_t(keys.size()), MetricCatalogue::all().size());
    }

    void bootstrap_data()
    {
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("shift");
        QTest::addColumn<bool>("significant");
        QTest::newRow("median, same distribution") << 0.5 << 1.0 << false;
        QTest::newRow("median, 20% slower") << 0.5 << 1.2 << true;
        QTest::newRow("p99, same distribution") << 0.99 << 1.0 << false;
        QTest::newRow("p99, twice as slow") << 0.99 << 2.0 << true;
        QTest::newRow("mean, same distribution") << -1.0 << 1.0 << false;
        QTest::newRow("mean, 10% slower") << -1.0 << 1.1 << true;
    }

    void bootstrap()
    {
        QFETCH(double, q);
        QFETCH(double, shift);
        QFETCH(bool, significant);
        std::mt19937_64 rng(7);
        std::lognormal_distribution<double> d(std::log(100.0), 0.5);
        std::vector<double> a(2000);
        std::vector<double> b(1500);
        std::generate(a.begin(), a.end(), [&] { return d(rng); });
        std::generate(b.begin(), b.end(), [&] { return shift * d(rng); });
        const auto interval = Bootstrap::difference(a, b, q, 99);
        QVERIFY(interval);
        QVERIFY(interval->low <= interval->high);
        QCOMPARE(interval->excludesZero(), significant);
        // The interval holds the observed difference of the statistic.
        if (q >= 0) {
            std::sort(a.begin(), a.end());
            std::sort(b.begin(), b.end());
            const double observed =
                b[LogHistogram::nearestRank(q, b.size()) - 1] - a[LogHistogram::nearestRank(q, a.size()) - 1];
            QVERIFY2(
                interval->low <= observed && observed <= interval->high,
                qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(observed).arg(interval->low).arg(interval->high)));
        }
        // Deterministic: the same seed, the same interval.
        const auto again = Bootstrap::difference(a, b, q, 99);
        QCOMPARE(again->low, interval->low);
        QCOMPARE(again->high, interval->high);
    }

    void bootstrapLargeMeanUsesItsNormalLimit()
    {
        // Beyond kDirectMeanLimit the mean's replicates come from (mean, s/√n): the interval is
        // about ±1.96·√(s²/n_a + s²/n_b) around the observed difference.
        std::vector<double> a(Bootstrap::kDirectMeanLimit + 1, 10.0);
        std::vector<double> b(Bootstrap::kDirectMeanLimit + 1, 10.0);
        for (std::size_t i = 0; i < a.size(); i += 2) {
            a[i] = 12;
            b[i] = 13;
        }
        const auto interval = Bootstrap::difference(a, b, -1, 5);
        const double observed = 0.5; // means 11 and 11.5
        const double halfWidth = 1.96 * std::sqrt(1.0 / double(a.size()) + 2.25 / double(b.size()));
        QVERIFY(std::abs((interval->low + interval->high) / 2 - observed) < halfWidth / 5);
        QVERIFY(std::abs((interval->high - interval->low) / 2 - halfWidth) < halfWidth / 5);
        QVERIFY(!Bootstrap::difference({}, b, 0.5, 1));
    }

    void tableOnKnownRuns()
    {
        RunConfig slowConfig = config();
        slowConfig.request.stream = false;
        RunConfig otherConfig = config();
        otherConfig.request.maxTokens = 512;
        const std::vector<RunData> runs{
            inMemory(QStringLiteral("a"), config(), synthetic(1, 100, 300)),
            inMemory(QStringLiteral("b"), slowConfig, synthetic(2, 200, 300, 30, 150)),
            inMemory(QStringLiteral("c"), otherConfig, synthetic(3, 100, 300)),
        };
        const ComparisonTable table(runs, 0);
        QCOMPARE(table.labels(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        QStringList keys;
        for (const auto &r : table.rows())
            keys << r.key;
        QCOMPARE(keys, (QStringList{QStringLiteral("ttft_mean"), QStringLiteral("ttft_p50"), QStringLiteral("ttft_p99"),
                                    QStringLiteral("tpot_p50"), QStringLiteral("itl_p50"), QStringLiteral("e2e_p50"),
                                    QStringLiteral("e2e_p99"), QStringLiteral("ttft_error_adjusted_p99"),
                                    QStringLiteral("e2e_error_adjusted_p99"), QStringLiteral("ttft_from_schedule_p99"),
                                    QStringLiteral("requests_per_s"), QStringLiteral("output_tokens_per_s"),
                                    QStringLiteral("out_in_ratio"), QStringLiteral("cache_hit_pct"),
                                    QStringLiteral("error_pct"), QStringLiteral("goodput_requests_per_s"),
                                    QStringLiteral("good_pct"), QStringLiteral("tokens_in_flight_mean")}));

        // The rows a comparison leads with.
        QStringList headlines;
        for (const auto &r : table.rows()) {
            if (r.headline)
                headlines << r.key;
        }
        QCOMPARE(headlines, (QStringList{QStringLiteral("ttft_p50"), QStringLiteral("requests_per_s"),
                                         QStringLiteral("output_tokens_per_s"), QStringLiteral("out_in_ratio"),
                                         QStringLiteral("error_pct")}));

        // Values are the summaries'.
        const auto &ttftP50 = row(table, "ttft_p50");
        for (std::size_t i = 0; i < runs.size(); ++i)
            QCOMPARE(*ttftP50.values[i], runs[i].summary.total.stat(Metric::Ttft).p50);
        const auto &errors = row(table, "error_pct");
        QCOMPARE(*errors.values[0], 0.0);
        QCOMPARE(*errors.values[1], 10.0);
        QCOMPARE(row(table, "good_pct").values[0],
                 std::optional<double>(100.0 * *runs[0].summary.total.throughput.goodFraction));

        // Direction and best marks: lower TTFT is better, and b is the slow one.
        QCOMPARE(ttftP50.better, ComparisonTable::Better::Lower);
        QVERIFY(!ttftP50.best[1]);
        QVERIFY(ttftP50.best[0] != ttftP50.best[2] || *ttftP50.values[0] == *ttftP50.values[2]);
        QCOMPARE(errors.best, (std::vector<bool>{true, false, true}));
        QCOMPARE(row(table, "requests_per_s").better, ComparisonTable::Better::Higher);
        QCOMPARE(row(table, "out_in_ratio").best, (std::vector<bool>{false, false, false}));

        // Deltas against the baseline, in %.
        QVERIFY(!ttftP50.deltaPct[0]);
        QCOMPARE(*ttftP50.deltaPct[1], (*ttftP50.values[1] - *ttftP50.values[0]) / *ttftP50.values[0] * 100);
        QVERIFY(*ttftP50.deltaPct[1] > 60);
        QVERIFY(!errors.deltaPct[1]); // the baseline's 0 % has no relative change

        // Noise: b's TTFT is twice a's; c is a's distribution again with other random numbers.
        for (const char *key : {"ttft_mean", "ttft_p50", "ttft_p99", "e2e_p50"}) {
            QCOMPARE(row(table, key).noise[1], Noise::Significant);
            QCOMPARE(row(table, key).noise[2], Noise::WithinNoise);
            QCOMPARE(row(table, key).noise[0], Noise::NotTested);
        }
        // Every request decodes alike: TPOT and ITL are identical, so within noise.
        QCOMPARE(row(table, "tpot_p50").noise[1], Noise::WithinNoise);
        QCOMPARE(row(table, "itl_p50").noise[1], Noise::WithinNoise);
        QCOMPARE(row(table, "requests_per_s").noise[1], Noise::NotTested);

        // Workload differences.
        const QString warnings = table.warnings().join(QLatin1Char('\n'));
        QVERIFY2(warnings.contains(QStringLiteral("#2 b: stream off, baseline on")), qPrintable(warnings));
        QVERIFY2(warnings.contains(QStringLiteral("#3 c: max_tokens 512, baseline 256")), qPrintable(warnings));
        QVERIFY2(warnings.contains(QStringLiteral("#2 b: measured prompts average 150 tokens, baseline 100")),
                 qPrintable(warnings));
        QVERIFY2(!warnings.contains(QStringLiteral("#3 c: measured prompts")), qPrintable(warnings));

        const QString text = table.toText();
        QVERIFY(text.contains(QStringLiteral("#1 a (baseline): m @ http://127.0.0.1:9/v1 (openai-chat)")));
        QVERIFY(text.contains(QStringLiteral("Workload differences")));
        const QString ttftLine = lineOf(text, QStringLiteral("TTFT p50"));
        QVERIFY2(ttftLine.contains(ComparisonTable::formatValue(*ttftP50.values[1])), qPrintable(ttftLine));
        QVERIFY2(ttftLine.contains(QStringLiteral("significant")), qPrintable(ttftLine));
        QVERIFY2(ttftLine.contains(QStringLiteral("within noise")), qPrintable(ttftLine));

        // Another baseline: deltas are against run b now.
        const ComparisonTable againstB(runs, 1);
        QVERIFY(!row(againstB, "ttft_p50").deltaPct[1]);
        QVERIFY(*row(againstB, "ttft_p50").deltaPct[0] < -30);
        QVERIFY(againstB.toText().contains(QStringLiteral("vs #2")));
    }

    void outInReflectsTheCapAndReasoningHasARow()
    {
        std::vector<RequestRecord> capped = synthetic(5, 100, 300);
        for (RequestRecord &r : capped) {
            r.finishReason = QStringLiteral("length");
            r.reasoningTokens = 6;
            r.hiddenReasoningTokens = 6;
        }
        std::vector<RequestRecord> plain = synthetic(6, 100, 300);
        for (RequestRecord &r : plain)
            r.finishReason = QStringLiteral("stop");
        const std::vector<RunData> runs{inMemory(QStringLiteral("plain"), config(), plain),
                                        inMemory(QStringLiteral("capped"), config(), capped)};
        const ComparisonTable table(runs, 0);
        const auto &reasoning = row(table, "reasoning_per_request");
        QCOMPARE(*reasoning.values[0], 0.0);
        QCOMPARE(*reasoning.values[1], 6.0);
        QCOMPARE(*row(table, "ttfo_p50").values[1], runs[1].summary.total.stat(Metric::Ttfo).p50);
        const QString notes = table.notes().join(QLatin1Char('\n'));
        QVERIFY2(notes.contains(
                     QStringLiteral("#2 capped: 300 of 300 requests stopped at max_tokens (finish_reason length): "
                                    "out/in reflects the max_tokens cap")),
                 qPrintable(notes));
        QVERIFY2(!notes.contains(QStringLiteral("#1 plain: 300")), qPrintable(notes));
        QVERIFY(table.toText().contains(QStringLiteral("out/in reflects the max_tokens cap")));
        const QString reasoningLine = lineOf(table.toText(), QStringLiteral("Reasoning tokens/req"));
        QVERIFY2(reasoningLine.contains(QRegularExpression(QStringLiteral("\\s6\\s"))), qPrintable(reasoningLine));

        // What `compare` prints from the run directories.
        QTemporaryDir tmp;
        writeRun(tmp.filePath(QStringLiteral("plain")), config(), plain);
        writeRun(tmp.filePath(QStringLiteral("capped")), config(), capped);
        const CliResult r = compare({tmp.filePath(QStringLiteral("plain")), tmp.filePath(QStringLiteral("capped"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("out/in reflects the max_tokens cap")), qPrintable(r.out));
        QVERIFY2(lineOf(r.out, QStringLiteral("Reasoning tokens/req"))
                     .contains(QRegularExpression(QStringLiteral("\\s6\\s"))),
                 qPrintable(r.out));
    }

    /// Regression: replaying a run's prompts (--prompt-salt), the replay's cache hits came from the
    /// first run, and `compare` of the two did not say they shared a salt.
    void runsSharingASaltAreNoted()
    {
        RunConfig first = config();
        first.prompt.salt = QStringLiteral("5a175a175a175a17");
        RunConfig other = config();
        other.prompt.salt = QStringLiteral("0123456789abcdef");
        const std::vector<RunData> runs{inMemory(QStringLiteral("first"), first, synthetic(1, 100, 50)),
                                        inMemory(QStringLiteral("other"), other, synthetic(2, 100, 50)),
                                        inMemory(QStringLiteral("replay"), first, synthetic(3, 100, 50))};
        const QString notes = ComparisonTable(runs, 0).notes().join(QLatin1Char('\n'));
        QVERIFY2(notes.contains(QStringLiteral("#1 first, #3 replay share prompt salt 5a175a175a175a17 (the same "
                                               "prompts): against one server their cache hits are not independent")),
                 qPrintable(notes));
        QVERIFY2(!notes.contains(QStringLiteral("0123456789abcdef")), qPrintable(notes));
        const QString apart =
            ComparisonTable({runs[0], runs[1]}, 0).notes().join(QLatin1Char('\n')); // salts of their own
        QVERIFY2(!apart.contains(QStringLiteral("share prompt salt")), qPrintable(apart));

        // What `compare` prints from the run directories: run.json keeps the salt.
        QTemporaryDir tmp;
        writeRun(tmp.filePath(QStringLiteral("first")), first, synthetic(1, 100, 50));
        writeRun(tmp.filePath(QStringLiteral("replay")), first, synthetic(3, 100, 50));
        const CliResult r = compare({tmp.filePath(QStringLiteral("first")), tmp.filePath(QStringLiteral("replay"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("share prompt salt 5a175a175a175a17")), qPrintable(r.out));
    }

    /// Chunk times from the kernel's receive stamps and chunk times taken when the client read
    /// the bytes differ by the client's own read delay: a comparison of runs measured both ways
    /// says which runs' chunk times include it (the second run's io block written by hand).
    void runsOnDifferentIoBackendsAreNoted_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<int>("lateRun"); ///< the run whose chunk times include the read delay; 0: no note
        const int thisBuild = ioBackend().kernelReceiveStamps ? 2 : 1;
        QTest::newRow("same backend") << QStringLiteral("none") << 0;
        QTest::newRow("the other backend") << QStringLiteral("other") << thisBuild;
        QTest::newRow("same backend, kernel receive stamps differ") << QStringLiteral("stamps") << thisBuild;
        QTest::newRow("second run from before the block") << QStringLiteral("remove") << 0;
    }

    void runsOnDifferentIoBackendsAreNoted()
    {
        QFETCH(QString, change);
        QFETCH(int, lateRun);
        QTemporaryDir tmp;
        const QString a = tmp.filePath(QStringLiteral("run-a"));
        const QString b = tmp.filePath(QStringLiteral("run-b"));
        writeRun(a, config(), synthetic(21, 100, 50));
        writeRun(b, config(), synthetic(22, 100, 50));
        const bool onLinux = ioBackend().name == QLatin1String("linux");
        QVERIFY(editIo(b, [&](nlohmann::json &json) {
            nlohmann::json &io = json["io"];
            if (change == QLatin1String("other")) {
                io["backend"] = onLinux ? "portable" : "linux";
                io["poller"] = onLinux ? "poll and Qt socket notifiers" : "epoll";
                io["kernel_receive_stamps"] = !ioBackend().kernelReceiveStamps;
            } else if (change == QLatin1String("stamps")) {
                io["kernel_receive_stamps"] = !ioBackend().kernelReceiveStamps;
            } else if (change == QLatin1String("remove")) {
                json.erase("io");
            }
        }));

        QString why;
        std::vector<RunData> runs;
        for (const QString &dir : {a, b}) {
            auto data = RunReader::load(dir, &why);
            QVERIFY2(data, qPrintable(why));
            runs.push_back(std::move(*data));
        }
        const QString notes = ComparisonTable(runs, 0).notes().join(QLatin1Char('\n'));
        const CliResult r = compare({a, b});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        if (lateRun == 0) {
            QVERIFY2(!notes.contains(QStringLiteral("I/O backends differ")), qPrintable(notes));
            QVERIFY2(!r.out.contains(QStringLiteral("I/O backends differ")), qPrintable(r.out));
            return;
        }
        const QString late = QStringLiteral("#%1 %2 (%3)")
                                 .arg(lateRun)
                                 .arg(lateRun == 1 ? QStringLiteral("run-a") : QStringLiteral("run-b"),
                                      runs[std::size_t(lateRun - 1)].io().backend);
        const QString note = QStringLiteral("I/O backends differ: the chunk times of %1 include the client's own read "
                                            "delay (stamped when this process read the bytes, not when they reached "
                                            "the socket)")
                                 .arg(late);
        QVERIFY2(notes.contains(note), qPrintable(notes));
        QVERIFY2(notes.contains(QStringLiteral("part of their TTFT, ITL and TPOT differences may be the client's")),
                 qPrintable(notes));
        // `compare` prints the same note (and the GUI's comparison shows these notes too).
        QVERIFY2(r.out.contains(note), qPrintable(r.out));
    }

    void knee_data()
    {
        // Throughput of each stage (req/s); p50/p99 latency grows with the stage number.
        QTest::addColumn<QList<double>>("throughput");
        QTest::addColumn<int>("knee");
        QTest::addColumn<bool>("saturated");
        QTest::addColumn<QString>("text");
        QTest::newRow("flattens")
            << QList<double>{10, 19, 30, 31, 30} << 2 << true
            << QStringLiteral("knee at c=4: 30.00 req/s, TTFT p99 300.0 ms; c=8 adds +3.3% req/s for +33.3% p99");
        QTest::newRow("still rising")
            << QList<double>{10, 20, 40} << 2 << false
            << QStringLiteral(
                   "no knee up to c=4: throughput still rose +100.0% over c=2 (TTFT p99 +50.0%); sweep higher");
        QTest::newRow("a dip before the best is noise")
            << QList<double>{10, 9.8, 20, 20.5} << 2 << true
            << QStringLiteral("knee at c=4: 20.00 req/s, TTFT p99 300.0 ms; c=8 adds +2.5% req/s for +33.3% p99");
        QTest::newRow("falls off")
            << QList<double>{10, 30, 25} << 1 << true
            << QStringLiteral("knee at c=2: 30.00 req/s, TTFT p99 200.0 ms; c=4 adds -16.7% req/s for +50.0% p99");
        QTest::newRow("one point") << QList<double>{10} << -1 << false << QString();
    }

    void knee()
    {
        QFETCH(QList<double>, throughput);
        QFETCH(int, knee);
        QFETCH(bool, saturated);
        QFETCH(QString, text);
        std::vector<CurvePoint> curve;
        for (qsizetype i = 0; i < throughput.size(); ++i)
            curve.push_back(
                {QStringLiteral("c=%1").arg(1 << i), throughput[i], 50.0 * double(i + 1), 100.0 * double(i + 1)});
        const auto found = findKnee(curve, QStringLiteral("TTFT"));
        QCOMPARE(found.has_value(), knee >= 0);
        if (!found)
            return;
        QCOMPARE(int(found->point), knee);
        QCOMPARE(found->saturated, saturated);
        QCOMPARE(QString(found->text).replace(QChar(0x2212), QLatin1Char('-')), text);
    }

    // A stopped sweep's knee verdict came from its c=4 stage, cut by Stop 0.5 s in: the rate of a
    // stage's first half second is no point of the throughput–latency curve.
    void kneeIsNotDrawnFromAStageCutByStop()
    {
        RunConfig c = config();
        c.load.stages = *parseStages(QStringLiteral("c=1:10s,c=2:10s,c=4:10s"), nullptr);
        RunAggregator aggregator(RunInfo::begin(c));
        // Stage k runs 10·2^k requests a second at TTFT 50·(k+1) ms; stage 2 only until Stop at 10.5 s.
        std::uint64_t id = 0;
        const auto add = [&](int stage, double sentMs, double ttftMs, RequestStatus status, double doneMs) {
            RequestRecord r;
            r.id = ++id;
            r.stage = stage;
            r.status = status;
            r.scheduledNs = r.sentNs = ns(sentMs);
            r.doneNs = ns(doneMs);
            if (status == RequestStatus::Ok) {
                r.httpStatus = 200;
                r.headersNs = r.sentNs;
                r.tokenChunks.push_back({ns(sentMs + ttftMs), 4});
                r.chunks = 1;
                r.firstTokenNs = r.firstContentNs = r.lastTokenNs = r.tokenChunks.front().tNs;
                r.completionTokens = 1;
            }
            aggregator.add(r);
        };
        for (int stage = 0; stage < 3; ++stage) {
            const double startMs = 5000.0 * stage;
            aggregator.markStageStarted(stage, ns(startMs));
            const double gapMs = 100.0 / (1 << stage);
            const double ttftMs = 50.0 * (stage + 1);
            for (double t = startMs; t + 100 <= (stage < 2 ? startMs + 5000 : 10500); t += gapMs)
                add(stage, t, ttftMs, RequestStatus::Ok, t + 100);
        }
        aggregator.markStopped(ns(10500));
        add(2, 10450, 0, RequestStatus::Cancelled, 10500);
        const RunSummary s = aggregator.summary();
        QVERIFY(s.stages[2].stopped);

        const std::vector<CurvePoint> curve = throughputLatencyCurve(s, Metric::Ttft);
        QCOMPARE(curve.size(), std::size_t(2));
        QCOMPARE(curve.back().stage, QStringLiteral("c=2"));
        const auto knee = findKnee(s);
        QVERIFY(knee);
        QCOMPARE(curve[knee->point].stage, QStringLiteral("c=2"));
        QVERIFY2(knee->text.startsWith(QStringLiteral("no knee up to c=2")), qPrintable(knee->text));
        QVERIFY2(knee->text.endsWith(QStringLiteral("(c=4 left out: stopped after 0.5 s of 10 s)")),
                 qPrintable(knee->text));
    }

    void formatValue_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("text");
        QTest::newRow("thousands") << 12345.678 << QStringLiteral("12346");
        QTest::newRow("hundreds") << 123.456 << QStringLiteral("123.5");
        QTest::newRow("tens") << 12.3456 << QStringLiteral("12.35");
        QTest::newRow("units") << 1.23456 << QStringLiteral("1.235");
        QTest::newRow("fraction") << 0.0123456 << QStringLiteral("0.01235");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0");
    }

    void formatValue()
    {
        QFETCH(double, value);
        QFETCH(QString, text);
        QCOMPARE(ComparisonTable::formatValue(value), text);
    }

    void countsPrintWithTwoDecimals_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("text");
        QTest::newRow("target concurrency") << 50.0 << QStringLiteral("requests") << QStringLiteral("50");
        QTest::newRow("peak in flight") << 200.0 << QStringLiteral("requests") << QStringLiteral("200");
        QTest::newRow("a count") << 7.0 << QStringLiteral("count") << QStringLiteral("7");
        QTest::newRow("prompt tokens") << 123456.0 << QStringLiteral("tokens") << QStringLiteral("123456");
        QTest::newRow("server running") << 12.0 << QStringLiteral("req") << QStringLiteral("12");
        QTest::newRow("zero requests") << 0.0 << QStringLiteral("requests") << QStringLiteral("0");
        // Means of counts keep their decimals; other units keep formatValue()'s digits.
        QTest::newRow("mean in flight") << 12.5 << QStringLiteral("requests") << QStringLiteral("12.50");
        QTest::newRow("tokens per request") << 511.75 << QStringLiteral("tokens") << QStringLiteral("511.8");
        QTest::newRow("milliseconds") << 50.0 << QStringLiteral("ms") << QStringLiteral("50.00");
        QTest::newRow("requests per second") << 24.0 << QStringLiteral("req/s") << QStringLiteral("24.00");
        QTest::newRow("no unit") << 50.0 << QString() << QStringLiteral("50.00");
    }

    // Integer counts printed as "50.00 requests" (Target concurrency, Peak in flight, …).
    void countsPrintWithTwoDecimals()
    {
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(QString, text);
        QCOMPARE(ComparisonTable::formatValue(value, unit), text);
    }

    void cliComparesRunDirectories()
    {
        QTemporaryDir tmp;
        const QString a = tmp.filePath(QStringLiteral("run-a"));
        const QString b = tmp.filePath(QStringLiteral("run-b"));
        const RunSummary sa = writeRun(a, config(), synthetic(11, 100, 200, 4));
        const RunSummary sb = writeRun(b, config(), synthetic(12, 180, 200));
        const QString csvPath = tmp.filePath(QStringLiteral("table.csv"));

        const CliResult r = compare({a, b, QStringLiteral("--csv"), csvPath});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("#1 run-a (baseline)")), qPrintable(r.out));
        // The table's numbers are the summaries'.
        const QString ttft = lineOf(r.out, QStringLiteral("TTFT p99"));
        QVERIFY2(ttft.contains(ComparisonTable::formatValue(sa.total.stat(Metric::Ttft).p99)), qPrintable(ttft));
        QVERIFY2(ttft.contains(ComparisonTable::formatValue(sb.total.stat(Metric::Ttft).p99)), qPrintable(ttft));
        const QString rate = lineOf(r.out, QStringLiteral("Requests/s"));
        QVERIFY2(rate.contains(ComparisonTable::formatValue(sa.total.throughput.requestsPerS)), qPrintable(rate));
        const QString errors = lineOf(r.out, QStringLiteral("Errors"));
        QVERIFY2(errors.contains(ComparisonTable::formatValue(2.0)), qPrintable(errors)); // 4 of 200

        // The CSV parses, and holds the same numbers at full precision.
        QFile file(csvPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray csv = file.readAll();
        CsvReader reader(csv);
        std::vector<std::string> fields;
        QVERIFY(reader.next(fields));
        QCOMPARE(fields, (std::vector<std::string>{"metric", "unit", "better", "best", "run-a", "run-b",
                                                   "run-b delta %", "run-b noise"}));
        int rows = 0;
        while (reader.next(fields)) {
            ++rows;
            QCOMPARE(fields.size(), std::size_t(8));
            if (fields[0] == "e2e_p50") {
                QCOMPARE(std::stod(fields[4]), sa.total.stat(Metric::E2e).p50);
                QCOMPARE(std::stod(fields[5]), sb.total.stat(Metric::E2e).p50);
                QCOMPARE(fields[3], std::string("run-a"));
                QCOMPARE(fields[7], std::string("significant"));
            }
        }
        QCOMPARE(rows, 18); // with the error-adjusted p99s (run b failed) and tokens in flight
        QVERIFY(!reader.tornTail());

        const CliResult other = compare({a, b, QStringLiteral("--baseline"), QStringLiteral("2")});
        QCOMPARE(other.exitCode, 0);
        QVERIFY(other.out.contains(QStringLiteral("#2 run-b (baseline)")));
    }

    void cliRejectsBadInput_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("not a run directory") << QStringLiteral("empty") << QStringList() << 2
                                             << QStringLiteral("not a run directory (no summary.json/requests.csv)");
        QTest::newRow("missing directory")
            << QStringLiteral("missing") << QStringList() << 2 << QStringLiteral("no such directory");
        QTest::newRow("damaged summary") << QStringLiteral("damaged") << QStringList() << 2
                                         << QStringLiteral("damaged summary.json");
        QTest::newRow("newer format") << QStringLiteral("newer") << QStringList() << 2
                                      << QStringLiteral("summary.json was written by a newer format version 9");
        QTest::newRow("baseline out of range")
            << QStringLiteral("good") << QStringList{QStringLiteral("--baseline"), QStringLiteral("3")} << 2
            << QStringLiteral("--baseline: '3' is not a run number from 1 to 2");
        QTest::newRow("unwritable csv") << QStringLiteral("good")
                                        << QStringList{QStringLiteral("--csv"),
                                                       QStringLiteral("/nonexistent/dir/t.csv")}
                                        << 1 << QStringLiteral("cannot write /nonexistent/dir/t.csv");
        QTest::newRow("no directories") << QStringLiteral("none") << QStringList() << 2
                                        << QStringLiteral("give at least one run directory");
    }

    void cliRejectsBadInput()
    {
        QFETCH(QString, setup);
        QFETCH(QStringList, extra);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        QTemporaryDir tmp;
        const QString good = tmp.filePath(QStringLiteral("good"));
        writeRun(good, config(), synthetic(5, 100, 20));
        const QString second = tmp.filePath(QStringLiteral("second"));
        QStringList args;
        if (setup == QLatin1String("empty")) {
            QVERIFY(QDir().mkpath(second));
        } else if (setup == QLatin1String("damaged") || setup == QLatin1String("newer")) {
            writeRun(second, config(), synthetic(6, 100, 20));
            QFile summary(QDir(second).filePath(QStringLiteral("summary.json")));
            QVERIFY(summary.open(QIODevice::WriteOnly | QIODevice::Truncate));
            summary.write(setup == QLatin1String("damaged") ? QByteArray("{\"format_version\": 1, \"tool\": ")
                                                            : QByteArray("{\"format_version\": 9}"));
        } else if (setup == QLatin1String("good")) {
            writeRun(second, config(), synthetic(6, 100, 20));
        }
        if (setup != QLatin1String("none"))
            args << good << second;
        const CliResult r = compare(args + extra);
        QVERIFY2(r.exitCode == exitCode, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.err)));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        if (exitCode == 2 && setup != QLatin1String("good") && setup != QLatin1String("none"))
            QVERIFY2(r.err.contains(QDir::toNativeSeparators(second)), qPrintable(r.err)); // names the folder
    }

    void cliNotesARecomputedSummary()
    {
        QTemporaryDir tmp;
        const QString a = tmp.filePath(QStringLiteral("a"));
        writeRun(a, config(), synthetic(5, 100, 20));
        QVERIFY(QFile::remove(QDir(a).filePath(QStringLiteral("summary.json"))));
        const CliResult r = compare({a});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(QStringLiteral("recomputed from requests.csv")), qPrintable(r.err));
        QVERIFY(r.out.contains(QStringLiteral("TTFT p50")));
    }
};

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
