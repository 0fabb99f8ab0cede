// The metrics issue 29 added to a summary (docs/metrics.md): error-adjusted percentiles, tokens in
// flight, per-slice figures, the bimodality check and the chunk-vs-token warning — on hand-built
// records whose every figure is worked out in the comments, and end to end against the simulator.
#include "metrics/bimodality.h"
#include "metrics/runaggregator.h"
#include "results/rundirectory.h"
#include "sim/simulatorhost.h"

#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testnumbers.h"

#include <cmath>
#include <limits>

using namespace tb;
using tb::test::ns;

Q_DECLARE_METATYPE(std::vector<tb::RequestRecord>)
Q_DECLARE_METATYPE(tb::LogHistogram)

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Percentiles from a histogram: within its 0.5%.
constexpr double kHistogram = LogHistogram::kRelativeError;

RunConfig oneStage(qint64 sliceMs = 0)
{
    RunConfig c;
    c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
    c.target.model = QStringLiteral("m");
    c.load.requests = 1000;
    c.load.sliceMs = sliceMs;
    return c;
}

/// A chunk: when (s of run time) and how many tokens (its characters, so apportioning is exact).
struct Chunk {
    double s;
    int tokens;
};

/// A request of stage 0, sent and done at the given seconds of run time; ok with its chunks (the
/// completion count their tokens), or failed with HTTP 500.
RequestRecord request(double sentS, double doneS, std::int64_t prompt, const std::vector<Chunk> &chunks, bool ok = true)
{
    static std::uint64_t id = 0;
    RequestRecord r;
    r.id = ++id;
    r.status = ok ? RequestStatus::Ok : RequestStatus::Http;
    r.httpStatus = ok ? 200 : 500;
    r.scheduledNs = r.sentNs = ns(sentS * 1000);
    r.doneNs = ns(doneS * 1000);
    r.promptTokens = prompt;
    for (const Chunk &c : chunks) {
        r.tokenChunks.push_back({ns(c.s * 1000), c.tokens});
        r.completionTokens += c.tokens;
    }
    r.chunks = int(chunks.size());
    if (!chunks.empty()) {
        r.firstTokenNs = r.firstContentNs = r.tokenChunks.front().tNs;
        r.lastTokenNs = r.tokenChunks.back().tNs;
    }
    return r;
}

RunSummary summarise(const RunConfig &config, const std::vector<RequestRecord> &records)
{
    RunAggregator aggregator(RunInfo::begin(config));
    for (const RequestRecord &r : records)
        aggregator.add(r);
    return aggregator.summary();
}

/// Φ⁻¹(p) by bisection on erfc: deterministic normal quantiles for "lognormal" samples.
double normalQuantile(double p)
{
    double lo = -10;
    double hi = 10;
    for (int i = 0; i < 100; ++i) {
        const double mid = (lo + hi) / 2;
        (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

/// n values of a lognormal with this median and σ (of the log), at its quantiles (i + ½)/n.
void lognormal(LogHistogram &h, int n, double median, double sigma)
{
    for (int i = 0; i < n; ++i)
        h.record(median * std::exp(sigma * normalQuantile((i + 0.5) / n)));
}

sim::SimConfig stepSim()
{
    sim::SimConfig c = *sim::SimConfig::preset(QStringLiteral("fast"));
    // 20 ms steps: gaps far above the jitter of a busy machine, as a real engine's.
    c.stepMs = 20;
    c.stepMsPerSeq = 0;
    c.outputTokens = 36;
    c.outputDist = sim::OutputDistribution::Fixed;
    return c;
}

} // namespace

class TestLoadMetrics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void errorAdjustedPercentiles_data()
    {
        QTest::addColumn<int>("ok");
        QTest::addColumn<int>("failed");
        QTest::addColumn<double>("p50");
        QTest::addColumn<double>("p90");
        QTest::addColumn<double>("p99");
        // 100 requests; the k-th successful one (k = 1, 2, …) has TTFT k ms, E2E k + 100 ms. The
        // nearest rank of q among 100 samples is ⌈100·q⌉: 50, 90, 99; failures sort last (+∞).
        QTest::newRow("no failures") << 100 << 0 << 50.0 << 90.0 << 99.0;
        // Rank 99 is still the largest successful request (99 of them): finite, at the edge.
        QTest::newRow("1% failed") << 99 << 1 << 50.0 << 90.0 << 99.0;
        // Rank 99 > 95 successful: p99 falls among the failures.
        QTest::newRow("5% failed") << 95 << 5 << 50.0 << 90.0 << kInf;
        // Rank 50 > 40: even the median is a failure's.
        QTest::newRow("60% failed") << 40 << 60 << kInf << kInf << kInf;
    }
    void errorAdjustedPercentiles()
    {
        QFETCH(int, ok);
        QFETCH(int, failed);
        QFETCH(double, p50);
        QFETCH(double, p90);
        QFETCH(double, p99);
        std::vector<RequestRecord> records;
        for (int k = 1; k <= ok; ++k) {
            RequestRecord r = request(k, k + 0.3, 10, {{k + k / 1000.0, 1}});
            r.lastTokenNs = r.sentNs + ns(k + 100.0); // E2E k + 100 ms
            records.push_back(r);
        }
        for (int k = 0; k < failed; ++k)
            records.push_back(request(200 + k, 200.5 + k, 10, {}, false));
        const RunSummary s = summarise(oneStage(), records);
        for (const ErrorAdjusted *e : {&s.total.errorAdjustedTtft, &s.stages.at(0).errorAdjustedTtft}) {
            QCOMPARE(e->count, std::uint64_t(ok + failed));
            QCOMPARE(e->failed, std::uint64_t(failed));
            QCOMPARE(e->p50, p50); // exact: no histogram in between
            QCOMPARE(e->p90, p90);
            QCOMPARE(e->p99, p99);
        }
        const ErrorAdjusted &e2e = s.total.errorAdjustedE2e;
        QCOMPARE(e2e.p50, p50 + 100);
        QCOMPARE(e2e.p99, p99 + 100);
        // Beside the ordinary ones, which leave the failures out: p99 of 1..ok ms.
        COMPARE_NEAR(s.total.stat(Metric::Ttft).p99, double(LogHistogram::nearestRank(0.99, std::uint64_t(ok))),
                     kHistogram);

        // summary.json: "inf" for an infinite percentile, and it reads back.
        const nlohmann::json j = s.toJson();
        QCOMPARE(j["error_adjusted_ms"]["ttft"]["p99"] == "inf", std::isinf(p99));
        QString error;
        const auto back = RunSummary::fromJson(j, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->total.errorAdjustedTtft.p99, p99);
        QCOMPARE(back->total.errorAdjustedTtft.failed, std::uint64_t(failed));
        QVERIFY(back->toJson() == j);
    }

    void tokensInFlight_data()
    {
        QTest::addColumn<std::vector<RequestRecord>>("records");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("peak");
        QTest::addColumn<double>("meanInFlight");
        // A: sent 0, prompt 100, one token at 0.5 s and one at 1.0 s, done 1.0 s:
        // 100 × 1.0 + 1 × 0.5 + 1 × 0 = 100.5 token·s over a window of 1 s.
        const RequestRecord a = request(0, 1.0, 100, {{0.5, 1}, {1.0, 1}});
        QTest::newRow("one request") << std::vector<RequestRecord>{a} << 100.5 << 100.5 << 1.0;
        // B: sent 0.5, prompt 50, four tokens in one chunk at 1.5 s, done 2.0: 50 × 1.5 + 4 × 0.5 = 77.
        // C failed: sent 1.0, done 1.5, prompt 20: 20 × 0.5 = 10 (a failure holds its prompt).
        // Σ 187.5 token·s over the window 0 → 2.0 s: mean 93.75.
        // Second 0: A 100 + 0.5, B 50 × 0.5 = 125.5; second 1: B 50 + 4 × 0.5, C 10 = 62: peak 125.5.
        // In flight (effective concurrency): (1.0 + 1.5 + 0.5) s / 2 s = 1.5.
        const RequestRecord b = request(0.5, 2.0, 50, {{1.5, 4}});
        const RequestRecord c = request(1.0, 1.5, 20, {}, false);
        QTest::newRow("two ok, one failed") << std::vector<RequestRecord>{a, b, c} << 93.75 << 125.5 << 1.5;
        // D: a non-streamed answer of 0.25 → 2.75 s holding 10 prompt tokens: 25 token·s over 2.5 s
        // = 10; the seconds hold 7.5, 10 (the whole second in between), 7.5: peak 10.
        RequestRecord d = request(0.25, 2.75, 10, {});
        d.completionTokens = 5; // arrive at done: held for no time
        QTest::newRow("across a whole second") << std::vector<RequestRecord>{d} << 10.0 << 10.0 << 1.0;
    }
    void tokensInFlight()
    {
        QFETCH(std::vector<RequestRecord>, records);
        QFETCH(double, mean);
        QFETCH(double, peak);
        QFETCH(double, meanInFlight);
        const RunSummary s = summarise(oneStage(), records);
        COMPARE_NEAR(s.total.concurrency.meanTokensInFlight, mean, 1e-9);
        COMPARE_NEAR(s.total.concurrency.peakTokensInFlight, peak, 1e-9);
        COMPARE_NEAR(s.total.concurrency.meanInFlight, meanInFlight, 1e-9);
        QString error;
        const auto back = RunSummary::fromJson(s.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->total.concurrency.meanTokensInFlight, s.total.concurrency.meanTokensInFlight);
        QCOMPARE(back->total.concurrency.peakTokensInFlight, s.total.concurrency.peakTokensInFlight);
    }

    void slices_data()
    {
        QTest::addColumn<int>("slice");
        QTest::addColumn<double>("endS");
        QTest::addColumn<qint64>("ok");
        QTest::addColumn<qint64>("failed");
        QTest::addColumn<double>("tokensPerS");
        QTest::addColumn<double>("ttftP50");
        QTest::addColumn<double>("itlP99");
        QTest::addColumn<double>("inFlight");
        // Slices of 1 s. A: sent 0.1, one token each at 0.3, 0.5 and 1.2 s, done 1.2 (TTFT 200 ms;
        // ITL 200 ms at 0.5 s, 700 ms at 1.2 s). B: sent 0.2, tokens at 0.4 and 0.6, done 0.6 (TTFT
        // 200, ITL 200 at 0.6). C failed: sent 1.5, done 2.5. The window ends at 2.5 s: 3 slices,
        // the last 0.5 s long.
        // Slice 0: B done; 4 tokens / 1 s; TTFT B's 200; ITL 200, 200; in flight (0.9 + 0.4) / 1.
        QTest::newRow("slice 0") << 0 << 1.0 << qint64(1) << qint64(0) << 4.0 << 200.0 << 200.0 << 1.3;
        // Slice 1: A done; 1 token; TTFT 200; ITL 700; in flight (A 0.2 + C 0.5) / 1.
        QTest::newRow("slice 1") << 1 << 2.0 << qint64(1) << qint64(0) << 1.0 << 200.0 << 700.0 << 0.7;
        // Slice 2, [2, 2.5]: C failed; nothing else; in flight 0.5 / 0.5.
        QTest::newRow("slice 2") << 2 << 2.5 << qint64(0) << qint64(1) << 0.0 << qQNaN() << qQNaN() << 1.0;
    }
    void slices()
    {
        QFETCH(int, slice);
        QFETCH(double, endS);
        QFETCH(qint64, ok);
        QFETCH(qint64, failed);
        QFETCH(double, tokensPerS);
        QFETCH(double, ttftP50);
        QFETCH(double, itlP99);
        QFETCH(double, inFlight);
        const std::vector<RequestRecord> records{request(0.1, 1.2, 10, {{0.3, 1}, {0.5, 1}, {1.2, 1}}),
                                                 request(0.2, 0.6, 10, {{0.4, 1}, {0.6, 1}}),
                                                 request(1.5, 2.5, 10, {}, false)};
        const RunSummary s = summarise(oneStage(1000), records);
        QCOMPARE(s.sliceS, 1.0);
        QCOMPARE(s.slices.size(), std::size_t(3));
        const SliceSummary &x = s.slices.at(std::size_t(slice));
        QCOMPARE(x.startS, double(slice));
        COMPARE_NEAR(x.endS, endS, 1e-12);
        QCOMPARE(x.ok, ok);
        QCOMPARE(x.failed, failed);
        COMPARE_NEAR(x.outputTokensPerS, tokensPerS, 1e-9);
        COMPARE_NEAR(x.ttftP50Ms, ttftP50, kHistogram);
        COMPARE_NEAR(x.ttftP99Ms, ttftP50, kHistogram);
        COMPARE_NEAR(x.itlP99Ms, itlP99, kHistogram);
        COMPARE_NEAR(x.meanInFlight, inFlight, 1e-9);

        QString error;
        const nlohmann::json j = s.toJson();
        const auto back = RunSummary::fromJson(j, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->toJson() == j);
        // Without --slice there are none, and summary.json has no such key.
        QVERIFY(!summarise(oneStage(), records).toJson().contains("slices"));
    }

    void slicesAreBounded()
    {
        // 1 ms slices and a request done at 5 s: slices stop at the 1000th ([0, 1 s)); what came
        // after is counted in a warning.
        const RunSummary s = summarise(oneStage(1), {request(0, 5.0, 10, {{4.0, 1}, {5.0, 1}})});
        QCOMPARE(s.slices.size(), std::size_t(SliceAggregator::kMaxSlices));
        QCOMPARE(s.slices.back().startS, 0.999);
        QVERIFY2(s.warnings.join(u'\n').contains(QStringLiteral("in no slice")), qPrintable(s.warnings.join(u'\n')));
    }

    void bimodality_data()
    {
        QTest::addColumn<LogHistogram>("samples");
        QTest::addColumn<double>("share"); // < 0: not bimodal
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        QTest::addColumn<bool>("minorHigh");
        LogHistogram unimodal;
        lognormal(unimodal, 2000, 20, 0.5);
        QTest::newRow("lognormal") << unimodal << -1.0 << 0.0 << 0.0 << false;
        // 1840 gaps near 20 ms and 160 (8%) near 920 ms, each a narrow lognormal: decades apart, so
        // the valley between holds nothing and the stall side holds exactly 160 / 2000.
        LogHistogram stalls;
        lognormal(stalls, 1840, 20, 0.15);
        lognormal(stalls, 160, 920, 0.1);
        QTest::newRow("92/8") << stalls << 0.08 << 20.0 << 920.0 << true;
        // 1% is below the 2% a second mode must hold.
        LogHistogram rare;
        lognormal(rare, 1980, 20, 0.15);
        lognormal(rare, 20, 920, 0.1);
        QTest::newRow("99/1") << rare << -1.0 << 0.0 << 0.0 << false;
        // A fast minority below the bulk (TTFT of prefix-cache hits): the minor mode is the low one.
        LogHistogram hits;
        lognormal(hits, 100, 3, 0.1);
        lognormal(hits, 900, 200, 0.2);
        QTest::newRow("10% fast") << hits << 0.1 << 3.0 << 200.0 << false;
        // Too few samples to judge, however two-moded.
        LogHistogram few;
        lognormal(few, 80, 20, 0.15);
        lognormal(few, 10, 920, 0.1);
        QTest::newRow("90 samples") << few << -1.0 << 0.0 << 0.0 << false;
        // Regression (a loaded CI machine): half the gaps 0 (events of one read share its stamp),
        // half 0.4 µs, warned "49.7% of gaps near 0.000 ms, the rest near 0 ms — periodic stalls?".
        LogHistogram readBatched;
        readBatched.record(0, 500);
        readBatched.record(0.0004, 500);
        QTest::newRow("gaps of one read beside sub-µs gaps") << readBatched << -1.0 << 0.0 << 0.0 << false;
    }
    void bimodality()
    {
        QFETCH(LogHistogram, samples);
        QFETCH(double, share);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(bool, minorHigh);
        const auto b = Bimodality::of(samples);
        QCOMPARE(b.has_value(), share >= 0);
        if (!b)
            return;
        COMPARE_NEAR(b->share, share, 1e-9);
        // A mode's value is the heaviest 1% bucket of its 1/8-decade bin: near the median.
        COMPARE_NEAR(b->lowModeMs, low, 0.1);
        COMPARE_NEAR(b->highModeMs, high, 0.1);
        QCOMPARE(b->minorHigh, minorHigh);
    }

    /// Regression: the simulator's 1-ms steps, caught up after a late one, put 10% of ITL gaps near
    /// 0.27 ms, and every GUI run against it warned "ITL is bimodal". Only a high minor ITL mode (a
    /// stall) is warned of; a low one is recorded. Ten requests of 41 one-token chunks, every
    /// `every`-th gap `oddMs`, the others `gapMs`.
    void onlyHighItlModesAreWarned_data()
    {
        QTest::addColumn<double>("gapMs");
        QTest::addColumn<double>("oddMs");
        QTest::addColumn<int>("every");
        QTest::addColumn<bool>("minorHigh");
        QTest::addColumn<bool>("warned");
        QTest::newRow("stalls: every 12th gap 320 ms") << 20.0 << 320.0 << 12 << true << true;
        QTest::newRow("catch-up: every 10th gap 0.27 ms") << 1.0 << 0.27 << 10 << false << false;
    }
    void onlyHighItlModesAreWarned()
    {
        QFETCH(double, gapMs);
        QFETCH(double, oddMs);
        QFETCH(int, every);
        QFETCH(bool, minorHigh);
        QFETCH(bool, warned);
        std::vector<RequestRecord> records;
        for (int i = 0; i < 10; ++i) {
            std::vector<Chunk> chunks;
            double t = double(i) + 0.1;
            for (int k = 0; k <= 40; ++k) {
                chunks.push_back({t, 1});
                t += (k % every == every - 1 ? oddMs : gapMs) / 1000;
            }
            records.push_back(request(double(i), t, 10, chunks));
        }
        const RunSummary s = summarise(oneStage(), records);
        QCOMPARE(s.bimodal.count(QStringLiteral("itl")), std::size_t(1));
        QCOMPARE(s.bimodal.at(QStringLiteral("itl")).minorHigh, minorHigh);
        QCOMPARE(!s.warnings.filter(QStringLiteral("ITL is bimodal")).isEmpty(), warned);
    }

    /// End to end: the simulator's stalls (every 12th decode step 300 ms longer) show as a bimodal
    /// ITL in summary.json and a warning; without stalls, nothing.
    void stallsMakeItlBimodal_data()
    {
        QTest::addColumn<qint64>("stallEvery");
        QTest::addColumn<bool>("bimodal");
        QTest::newRow("stall every 12th step") << qint64(12) << true;
        QTest::newRow("no stalls") << qint64(0) << false;
    }
    void stallsMakeItlBimodal()
    {
        QFETCH(qint64, stallEvery);
        QFETCH(bool, bimodal);
        sim::SimConfig config = stepSim();
        config.stallEvery = stallEvery;
        config.stallMs = 300;
        sim::SimulatorHost host(config);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        // 8 requests of 36 tokens: 35 gaps each, 280 in all; steps 12 and 24 stall: 2/35 = 5.7%.
        const CliResult r = runCli(
            {QStringLiteral("run"), QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"),
             config.model, QStringLiteral("--concurrency"), QStringLiteral("8"), QStringLiteral("--requests"),
             QStringLiteral("8"), QStringLiteral("--max-tokens"), QStringLiteral("64"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error, RunReader::SummaryOnly);
        QVERIFY2(data, qPrintable(error));
        const RunSummary &s = data->summary;
        QCOMPARE(s.bimodal.count(QStringLiteral("itl")), std::size_t(bimodal ? 1 : 0));
        QCOMPARE(r.out.contains(QStringLiteral("ITL is bimodal")), bimodal);
        if (!bimodal)
            return;
        const Bimodality &b = s.bimodal.at(QStringLiteral("itl"));
        QVERIFY(b.minorHigh);
        COMPARE_NEAR(b.share, 2.0 / 35, 0.25); // the apparatus may merge or split a gap or two
        QVERIFY2(b.highModeMs > 250 && b.highModeMs < 450, qPrintable(QString::number(b.highModeMs)));
        QVERIFY2(b.lowModeMs > 10 && b.lowModeMs < 40, qPrintable(QString::number(b.lowModeMs)));
    }

    /// A server that packs tokens into chunks is named: ITL per token, ICL per chunk.
    void severalTokensPerChunkAreNamed_data()
    {
        QTest::addColumn<qint64>("tokensPerChunk");
        QTest::addColumn<QString>("warning"); // empty: none
        // 36 tokens: the first alone, 35 in chunks of 4 (8 × 4 + 3): 10 chunks, 3.6 tokens each.
        QTest::newRow("4 per chunk") << qint64(4)
                                     << QStringLiteral("the server sent 3.6 tokens per chunk: ITL is per token (gap "
                                                       "÷ tokens), ICL per chunk; tools that count ITL per chunk "
                                                       "report ~3.6× higher");
        QTest::newRow("1 per chunk") << qint64(1) << QString();
    }
    void severalTokensPerChunkAreNamed()
    {
        QFETCH(qint64, tokensPerChunk);
        QFETCH(QString, warning);
        sim::SimConfig config = stepSim();
        config.stepMs = 1;
        config.tokensPerChunk = tokensPerChunk;
        sim::SimulatorHost host(config);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult r =
            runCli({QStringLiteral("run"), QStringLiteral("--url"), host.baseUrl().toString(),
                    QStringLiteral("--model"), config.model, QStringLiteral("--requests"), QStringLiteral("4"),
                    QStringLiteral("--max-tokens"), QStringLiteral("64"), QStringLiteral("--out"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QString error;
        const auto data = RunReader::load(out, &error, RunReader::SummaryOnly);
        QVERIFY2(data, qPrintable(error));
        const QStringList &warnings = data->summary.warnings;
        const bool named = std::any_of(warnings.begin(), warnings.end(),
                                       [](const QString &w) { return w.contains(QStringLiteral("tokens per chunk")); });
        QCOMPARE(named, !warning.isEmpty());
        if (!warning.isEmpty())
            QVERIFY2(warnings.contains(warning), qPrintable(warnings.join(u'\n')));
    }
};

QTEST_GUILESS_MAIN(TestLoadMetrics)
#include "tst_loadmetrics.moc"
