// RunAggregator and the per-request token timeline on hand-built records whose every statistic is
// worked out by hand in the comments.
#include "metrics/errortimeline.h"
#include "metrics/inflighttracker.h"
#include "metrics/requestmetrics.h"
#include "metrics/runaggregator.h"

#include <QTest>

#include "support/testnumbers.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace Qt::Literals::StringLiterals;
using namespace tb;
using tb::test::ns;

namespace {

RequestRecord record(std::uint64_t id, int stage, RequestStatus status, double sentMs, double doneMs)
{
    RequestRecord r;
    r.id = id;
    r.stage = stage;
    r.status = status;
    r.scheduledNs = ns(sentMs);
    r.sentNs = ns(sentMs);
    r.doneNs = ns(doneMs);
    return r;
}

/// Token-bearing chunks at the given times (ms) with the given characters.
void stream(RequestRecord &r, double headersMs, const std::vector<std::pair<double, int>> &chunks, std::int64_t tokens)
{
    r.httpStatus = 200;
    r.headersNs = ns(headersMs);
    for (const auto &[t, chars] : chunks)
        r.tokenChunks.push_back({ns(t), chars});
    r.chunks = int(chunks.size());
    r.firstTokenNs = r.firstContentNs = r.tokenChunks.front().tNs;
    r.lastTokenNs = r.tokenChunks.back().tNs;
    r.completionTokens = tokens;
}

/// Percentiles come from the histogram: within its 0.5%.
constexpr double kHistogram = LogHistogram::kRelativeError;

RunConfig twoStageConfig()
{
    RunConfig c;
    c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
    c.target.model = QStringLiteral("m");
    StageConfig first;
    first.level = 2;
    first.requests = 3;
    StageConfig second;
    second.level = 4;
    second.requests = 4;
    c.load.stages = {first, second};
    return c;
}

/// The scenario of summaryOfKnownRecords (times in ms of run time):
///  W warm-up, stage 0:         sent 0, first token 40, done 50 — must not show anywhere
///  A ok, stage 0, usage:       sent 100, headers 150, 11 one-token chunks at 200, 210, … 300, done 305;
///                              prompt 100 (20 cached), 11 completion tokens (3 reasoning)
///  B ok, stage 0, tokenizer:   sent 150, headers 200, chunks at 400 (4 chars) and 500 (8 chars), done 500;
///                              prompt 200, 3 tokens → apportioned 1 and 2
///  C 429, stage 1:             sent 600, headers 620, done 620, Retry-After 2 s
///  D timeout, stage 1:         sent 700, done 1700
///  E cancelled, stage 1:       sent 900, headers 950, one chunk at 1000, done 1800
///  F ok, stage 1, not streamed: sent 1000, headers 1500, done 1600; prompt 100, 50 tokens by chunks
std::vector<RequestRecord> scenario()
{
    std::vector<RequestRecord> records;

    RequestRecord w = record(1, 0, RequestStatus::Ok, 0, 50);
    w.warmup = true;
    stream(w, 20, {{40, 4}, {45, 4}}, 2);
    w.promptTokens = 1000;
    records.push_back(w);

    RequestRecord a = record(2, 0, RequestStatus::Ok, 100, 305);
    std::vector<std::pair<double, int>> chunksA;
    for (int i = 0; i <= 10; ++i)
        chunksA.push_back({200.0 + 10 * i, 4});
    stream(a, 150, chunksA, 11);
    a.promptTokens = 100;
    a.cachedTokens = 20;
    a.cachedSource = CacheSource::Usage;
    a.reasoningTokens = 3;
    a.tokenSource = TokenSource::Usage;
    records.push_back(a);

    RequestRecord b = record(3, 0, RequestStatus::Ok, 150, 500);
    stream(b, 200, {{400, 4}, {500, 8}}, 3);
    b.promptTokens = 200;
    b.tokenSource = TokenSource::Tokenizer;
    records.push_back(b);

    RequestRecord c = record(4, 1, RequestStatus::Http, 600, 620);
    c.httpStatus = 429;
    c.headersNs = ns(620);
    c.retryAfterS = 2;
    records.push_back(c);

    records.push_back(record(5, 1, RequestStatus::Timeout, 700, 1700));

    RequestRecord e = record(6, 1, RequestStatus::Cancelled, 900, 1800);
    stream(e, 950, {{1000, 4}}, 1);
    records.push_back(e);

    RequestRecord f = record(7, 1, RequestStatus::Ok, 1000, 1600);
    f.httpStatus = 200;
    f.headersNs = ns(1500);
    f.promptTokens = 100;
    f.completionTokens = 50;
    f.tokenSource = TokenSource::Chunks;
    records.push_back(f);
    return records;
}

/// Three stages of 1 s each, c=2, c=4, c=8: a sweep Stop may cut.
RunConfig timedSweepConfig()
{
    RunConfig c = twoStageConfig();
    c.load.stages = *parseStages(QStringLiteral("c=2:1s,c=4:1s,c=8:1s"), nullptr);
    return c;
}

/// A sweep stopped 0.5 s into its second stage (times in ms of run time; stages begin at 0 and
/// 1000): stage 0 has ok requests sent 0…900, done 100…1000, and one sent at 950 that runs on
/// into stage 1 (users carry over) until Stop cancels it at 1500; stage 1 has ok requests sent
/// 1000…1300, done 1100…1400, and one cancelled at 1500. Stage 2 (c=8) never began.
/// `marked`: the runner marked the stage starts and Stop (a summary recomputed from
/// requests.csv has neither: Stop is where the first cancelled request ended).
RunAggregator stoppedSweep(bool marked)
{
    RunAggregator aggregator(RunInfo::begin(timedSweepConfig()));
    if (marked) {
        aggregator.markStageStarted(0, ns(0));
        aggregator.markStageStarted(1, ns(1000));
    }
    std::uint64_t id = 0;
    for (int i = 0; i < 10; ++i)
        aggregator.add(record(++id, 0, RequestStatus::Ok, 100.0 * i, 100.0 * i + 100));
    for (int i = 0; i < 4; ++i)
        aggregator.add(record(++id, 1, RequestStatus::Ok, 1000 + 100.0 * i, 1000 + 100.0 * i + 100));
    if (marked)
        aggregator.markStopped(ns(1500));
    aggregator.add(record(++id, 0, RequestStatus::Cancelled, 950, 1500));
    aggregator.add(record(++id, 1, RequestStatus::Cancelled, 1400, 1500));
    return aggregator;
}

RunAggregator aggregate(const RunConfig &config, const std::vector<RequestRecord> &records)
{
    RunAggregator aggregator(RunInfo::begin(config));
    for (const RequestRecord &r : records)
        aggregator.add(r);
    return aggregator;
}

} // namespace

class TestAggregator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // --window: what the headline figures (total) cover. Ten requests, one sent each second from 0
    // to 9 s, each done 100 ms later; a steady window, where one is given, is [2, 6) s.
    void headlineWindow_data()
    {
        QTest::addColumn<QString>("window");
        QTest::addColumn<bool>("steady");           // a steady window [2, 6) was found
        QTest::addColumn<std::int64_t>("headline"); // total.requests.attempted
        QTest::addColumn<QString>("mode");          // summary.window->mode; empty: the whole run
        QTest::addColumn<double>("startS");
        QTest::addColumn<double>("endS");
        QTest::addColumn<QString>("warning"); // a summary warning that starts so; empty: none
        QTest::newRow("all") << u"all"_s << true << std::int64_t(10) << QString() << 0.0 << 0.0 << QString();
        QTest::newRow("steady") << u"steady"_s << true << std::int64_t(4) << u"steady"_s << 2.0 << 6.0 << QString();
        QTest::newRow("steady, none found")
            << u"steady"_s << false << std::int64_t(10) << QString() << 0.0 << 0.0
            << u"--window steady: no steady state (too short); the headline figures cover the whole run"_s;
        QTest::newRow("from 5 s") << u"5s"_s << false << std::int64_t(5) << u"from"_s << 5.0 << 9.1 << QString();
        QTest::newRow("from 4.5 s") << u"4500ms"_s << false << std::int64_t(5) << u"from"_s << 4.5 << 9.1 << QString();
        QTest::newRow("from after the last request")
            << u"20s"_s << true << std::int64_t(10) << QString() << 0.0 << 0.0
            << u"--window 20s: no request was sent that late; the headline figures cover the whole run"_s;
    }
    void headlineWindow()
    {
        QFETCH(QString, window);
        QFETCH(bool, steady);
        QFETCH(std::int64_t, headline);
        QFETCH(QString, mode);
        QFETCH(double, startS);
        QFETCH(double, endS);
        QFETCH(QString, warning);
        RunConfig config = twoStageConfig();
        config.load.stages.clear();
        config.load.window = window;
        const RunInfo info = RunInfo::begin(config);
        std::vector<RequestRecord> records;
        for (int i = 0; i < 10; ++i)
            records.push_back(record(std::uint64_t(i + 1), 0, RequestStatus::Ok, 1000.0 * i, 1000.0 * i + 100));
        RunSummary s = aggregate(config, records).summary();
        SteadyWindow found;
        found.found = steady;
        found.startS = steady ? 2 : 0;
        found.endS = steady ? 6 : 0;
        found.runS = 10;
        found.reason = steady ? QString() : u"too short"_s;
        s.steady = SteadySummary{found, SteadyWindow::method(), std::nullopt};
        RunAggregator::addSteadyBlock(s, info, records);
        RunAggregator::applyHeadlineWindow(s, info, records);

        QCOMPARE(s.total.requests.attempted, headline);
        QCOMPARE(s.wholeRun().requests.attempted, std::int64_t(10));
        QCOMPARE(s.window.has_value(), !mode.isEmpty());
        QCOMPARE(s.warnings.filter(u"--window"_s), warning.isEmpty() ? QStringList() : QStringList{warning});
        if (!s.window)
            return;
        QCOMPARE(s.window->mode, mode);
        QCOMPARE(s.window->startS, startS);
        QCOMPARE(s.window->endS, endS);
        QCOMPARE(s.total.name, s.window->whole.name); // the headline block stands where total stood
        // summary.json keeps both, and reads back the same.
        QString error;
        const auto back = RunSummary::fromJson(s.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->window);
        QCOMPARE(back->window->mode, mode);
        QCOMPARE(back->window->startS, startS);
        QCOMPARE(back->window->endS, endS);
        QCOMPARE(back->total.requests.attempted, headline);
        QCOMPARE(back->window->whole.requests.attempted, std::int64_t(10));
    }

    // The failure headline the GUI, `run` and `report` say: none without failures; else the failed
    // share and the biggest cause, with its share when there were others.
    void failureHeadline_data()
    {
        QTest::addColumn<int>("ok");
        QTest::addColumn<QStringList>("failures"); ///< "429", "503" (HTTP) or a status name, ":message" appended
        QTest::addColumn<QString>("expected");
        QTest::newRow("no failures") << 10 << QStringList{} << QString();
        QTest::newRow("only cancelled and warm-up") << 5 << QStringList{u"cancelled"_s, u"warmup"_s} << QString();
        QTest::newRow("one class, no message")
            << 0 << QStringList{u"timeout"_s, u"timeout"_s} << QStringLiteral("2 of 2 requests failed — timeout");
        QTest::newRow("one class, its message")
            << 8 << QStringList{u"connect:Connection refused"_s, u"connect:Connection refused"_s}
            << QStringLiteral("2 of 10 requests failed — Connection refused");
        QTest::newRow("mixed: the biggest class and its share")
            << 6 << QStringList{u"503"_s, u"429"_s, u"timeout"_s, u"429"_s, u"429"_s}
            << QStringLiteral("5 of 11 requests failed — 429 (3 of 5)");
    }
    void failureHeadline()
    {
        QFETCH(int, ok);
        QFETCH(QStringList, failures);
        QFETCH(QString, expected);
        ErrorTimeline errors;
        RequestCounts counts;
        counts.ok = ok;
        std::uint64_t id = 0;
        for (int i = 0; i < ok; ++i)
            errors.add(record(++id, 0, RequestStatus::Ok, 0, 10));
        for (const QString &failure : failures) {
            const QString what = failure.section(u':', 0, 0);
            ++id;
            RequestRecord r = record(id, 0, RequestStatus::Http, 100, 200 + 1000 * double(id));
            if (what == QLatin1String("warmup")) {
                r.warmup = true;
            } else if (what.front().isDigit()) {
                r.httpStatus = what.toInt();
            } else {
                r.status = *statusFromName(what);
                r.httpStatus = 0;
            }
            r.errorMessage = failure.section(u':', 1);
            errors.add(r);
            if (r.status != RequestStatus::Cancelled && !r.warmup)
                ++counts.failed;
        }
        counts.attempted = counts.ok + counts.failed;
        QCOMPARE(errors.headline(counts), expected);
        QCOMPARE(errors.total(), counts.failed);
    }

    void apportion_data()
    {
        QTest::addColumn<QList<int>>("chars");
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<QList<qint64>>("expected");
        QTest::newRow("one token per chunk, whatever the characters")
            << QList<int>{1, 12, 3, 7} << qint64(4) << QList<qint64>{1, 1, 1, 1};
        // 1 each, then 5 more by 1:12:3 → exact 0.3125, 3.75, 0.9375 → 0, 3, 0 and the two left
        // to the largest remainders (0.9375, then 0.75).
        QTest::newRow("multi-token chunks by characters")
            << QList<int>{1, 12, 3} << qint64(8) << QList<qint64>{1, 5, 2};
        QTest::newRow("characters all 0: even, earlier first")
            << QList<int>{0, 0, 0} << qint64(7) << QList<qint64>{3, 2, 2};
        QTest::newRow("fewer tokens than chunks") << QList<int>{5, 1, 1, 5} << qint64(2) << QList<qint64>{1, 0, 0, 1};
        QTest::newRow("no tokens") << QList<int>{3, 3} << qint64(0) << QList<qint64>{0, 0};
        QTest::newRow("no chunks") << QList<int>{} << qint64(5) << QList<qint64>{};
        QTest::newRow("huge count stays exact")
            << QList<int>{1, 2} << qint64(5'000'000'000) << QList<qint64>{2'500'000'000, 2'500'000'000};
    }

    void apportion()
    {
        QFETCH(QList<int>, chars);
        QFETCH(qint64, tokens);
        QFETCH(QList<qint64>, expected);
        std::vector<ChunkStamp> chunks;
        for (const int c : chars)
            chunks.push_back({0, c});
        const auto result = TokenTimeline::apportion(chunks, tokens);
        QCOMPARE(QList<qint64>(result.begin(), result.end()), expected);
    }

    void itlVersusIcl()
    {
        // Chunks at 100, 120, 126 ms carrying 1, 5, 2 tokens (8 tokens, chars 1:12:3):
        // ITL: 20 ms over 5 tokens = 4 ms ×5, 6 ms over 2 tokens = 3 ms ×2; ICL: 20 and 6 ms.
        RequestRecord r = record(1, 0, RequestStatus::Ok, 0, 130);
        stream(r, 50, {{100, 1}, {120, 12}, {126, 3}}, 8);
        const TokenTimeline timeline(r);
        std::vector<std::pair<double, qint64>> itl;
        timeline.forEachItl([&](double ms, std::int64_t n) { itl.push_back({ms, n}); });
        QCOMPARE(itl.size(), std::size_t(2));
        COMPARE_NEAR(itl[0].first, 4.0, 1e-9);
        QCOMPARE(itl[0].second, qint64(5));
        COMPARE_NEAR(itl[1].first, 3.0, 1e-9);
        QCOMPARE(itl[1].second, qint64(2));
        std::vector<double> icl;
        timeline.forEachIcl([&](double ms) { icl.push_back(ms); });
        QCOMPARE(icl.size(), std::size_t(2));
        COMPARE_NEAR(icl[0], 20.0, 1e-9);
        COMPARE_NEAR(icl[1], 6.0, 1e-9);
        // Mean ITL = (126 − 100) / (8 − 1 token of the first chunk).
        COMPARE_NEAR(*timeline.itlMeanMs(), 26.0 / 7, 1e-9);
        // TPOT spreads the same 26 ms over 8 − 1 tokens too, but ignores how the first chunk was packed.
        COMPARE_NEAR(*r.tpotMs(), 26.0 / 7, 1e-9);

        // A chunk apportioned no token passes its gap on: 2 tokens over chunks of 5, 1, 1, 5 chars
        // land on the first and last, so ITL is one gap of 30 ms.
        RequestRecord sparse = record(2, 0, RequestStatus::Ok, 0, 40);
        stream(sparse, 5, {{10, 5}, {20, 1}, {30, 1}, {40, 5}}, 2);
        std::vector<double> gaps;
        TokenTimeline(sparse).forEachItl([&](double ms, std::int64_t) { gaps.push_back(ms); });
        QCOMPARE(gaps.size(), std::size_t(1));
        COMPARE_NEAR(gaps[0], 30.0, 1e-9);

        RequestRecord single = record(3, 0, RequestStatus::Ok, 0, 40);
        stream(single, 5, {{10, 5}}, 4);
        QVERIFY(!TokenTimeline(single).itlMeanMs());
    }

    void summaryOfKnownRecords()
    {
        RunConfig config = twoStageConfig();
        config.slo.ttftMs = 150;
        config.slo.tpotMs = 10;
        const RunAggregator aggregator = aggregate(config, scenario());
        QCOMPARE(aggregator.recordCount(), qint64(7));
        const RunSummary s = aggregator.summary();
        const SummaryBlock &t = s.total;

        QCOMPARE(s.toolName, QStringLiteral("tokenbench"));
        QCOMPARE(s.model, QStringLiteral("m"));
        QCOMPARE(s.api, QStringLiteral("openai-chat"));
        QCOMPARE(t.load.mode, LoadMode::Concurrency);
        QCOMPARE(t.load.stages, QStringLiteral("c=2:3,c=4:4"));

        // Requests: A B C D F attempted (E was cancelled, W warm-up).
        QCOMPARE(t.requests.attempted, qint64(5));
        QCOMPARE(t.requests.ok, qint64(3));
        QCOMPARE(t.requests.failed, qint64(2));
        QCOMPARE(t.requests.cancelled, qint64(1));
        QCOMPARE(t.requests.warmup, qint64(1));
        QCOMPARE(t.requests.byStatus, (std::map<int, std::int64_t>{{200, 3}, {429, 1}}));
        QCOMPARE(t.requests.byError,
                 (std::map<QString, std::int64_t>{
                     {QStringLiteral("http"), 1}, {QStringLiteral("timeout"), 1}, {QStringLiteral("cancelled"), 1}}));
        QCOMPARE(t.stat(Metric::RetryAfter).count, std::uint64_t(1));
        COMPARE_NEAR(t.stat(Metric::RetryAfter).max, 2.0, 1e-12);

        // Window: first sent 100 (W excluded) → last done 1800 (E).
        COMPARE_NEAR(t.windowS, 1.7, 1e-12);
        COMPARE_NEAR(t.throughput.requestsPerS, 3 / 1.7, 1e-12);
        COMPARE_NEAR(t.throughput.outputTokensPerS, 64 / 1.7, 1e-12);
        COMPARE_NEAR(t.throughput.inputTokensPerS, 400 / 1.7, 1e-12);
        COMPARE_NEAR(t.throughput.totalTokensPerS, 464 / 1.7, 1e-12);
        // Second 0: A's 11 and B's 1 + 2 tokens; second 1: F's 50 at its done.
        COMPARE_NEAR(t.throughput.peakOutputTokensPerS, 50.0, 1e-12);
        // Good: A (TTFT 100, TPOT 10) and F (no TTFT or TPOT to judge); B's TTFT is 250.
        QCOMPARE(t.throughput.good, qint64(2));
        COMPARE_NEAR(t.throughput.goodputRequestsPerS, 2 / 1.7, 1e-12);
        COMPARE_NEAR(*t.throughput.goodFraction, 0.4, 1e-12);

        QCOMPARE(t.tokens.input, qint64(400));
        QCOMPARE(t.tokens.output, qint64(64));
        QCOMPARE(t.tokens.cached, qint64(20));
        QCOMPARE(t.tokens.reasoning, qint64(3));
        COMPARE_NEAR(*t.tokens.outInRatio, 0.16, 1e-12);
        COMPARE_NEAR(*t.tokens.cacheHitRatio, 0.05, 1e-12);
        QCOMPARE(t.tokens.fromUsage, qint64(1));
        QCOMPARE(t.tokens.fromTokenizer, qint64(1));
        QCOMPARE(t.tokens.fromChunks, qint64(1));
        QCOMPARE(t.tokens.cachedFromUsage, qint64(1));
        QCOMPARE(t.tokens.cachedFromTimings, qint64(0));

        // In flight: D, E and F overlap in 1000–1600; busy 205+350+20+1000+900+600 = 3075 ms.
        QCOMPARE(t.concurrency.target, std::optional<int>(4));
        QCOMPARE(t.concurrency.peakInFlight, 3);
        COMPARE_NEAR(t.concurrency.meanInFlight, 3.075 / 1.7, 1e-12);

        const auto &ttft = t.stat(Metric::Ttft); // A 100, B 250
        QCOMPARE(ttft.count, std::uint64_t(2));
        COMPARE_NEAR(ttft.mean, 175.0, 1e-12);
        COMPARE_NEAR(ttft.stddev, 75.0, 1e-12);
        COMPARE_NEAR(ttft.min, 100.0, 1e-12);
        COMPARE_NEAR(ttft.max, 250.0, 1e-12);
        COMPARE_NEAR(ttft.p50, 100.0, kHistogram);
        COMPARE_NEAR(ttft.p99, 250.0, kHistogram);
        const auto &ttfb = t.stat(Metric::Ttfb); // A 50, B 50, F 500
        QCOMPARE(ttfb.count, std::uint64_t(3));
        COMPARE_NEAR(ttfb.mean, 200.0, 1e-12);
        const auto &e2e = t.stat(Metric::E2e); // A 200, B 350, F 600 (done − sent, not streamed)
        QCOMPARE(e2e.count, std::uint64_t(3));
        COMPARE_NEAR(e2e.mean, 1150.0 / 3, 1e-12);
        COMPARE_NEAR(e2e.p50, 350.0, kHistogram);
        const auto &tpot = t.stat(Metric::Tpot); // A 100/10, B 100/2
        QCOMPARE(tpot.count, std::uint64_t(2));
        COMPARE_NEAR(tpot.min, 10.0, 1e-12);
        COMPARE_NEAR(tpot.max, 50.0, 1e-12);
        // ITL over tokens: A 10 × 10 ms; B 100 ms over its second chunk's 2 tokens → 50 ms ×2.
        const auto &itl = t.stat(Metric::Itl);
        QCOMPARE(itl.count, std::uint64_t(12));
        COMPARE_NEAR(itl.mean, 200.0 / 12, 1e-12);
        COMPARE_NEAR(itl.p50, 10.0, kHistogram);
        COMPARE_NEAR(itl.p90, 50.0, kHistogram);
        // ICL over gaps: A 10 × 10 ms, B one 100 ms gap.
        const auto &icl = t.stat(Metric::Icl);
        QCOMPARE(icl.count, std::uint64_t(11));
        COMPARE_NEAR(icl.mean, 200.0 / 11, 1e-12);
        COMPARE_NEAR(icl.max, 100.0, 1e-12);
        const auto &perChunk = t.stat(Metric::TokensPerChunk); // A 11 × 1, B 1 and 2
        QCOMPARE(perChunk.count, std::uint64_t(13));
        COMPARE_NEAR(perChunk.mean, 14.0 / 13, 1e-12);
        const auto &decode = t.stat(Metric::DecodeSpeed); // A 11 / 0.1 s, B 3 / 0.1 s
        QCOMPARE(decode.count, std::uint64_t(2));
        COMPARE_NEAR(decode.max, 110.0, 1e-9);
        COMPARE_NEAR(decode.min, 30.0, 1e-9);
        // Scheduled (the user ready) = sent in this closed loop: queue delay 0, and TTFT from
        // schedule is TTFT.
        QCOMPARE(t.stat(Metric::QueueDelay).count, std::uint64_t(3));
        QCOMPARE(t.stat(Metric::QueueDelay).max, 0.0);
        QCOMPARE(t.stat(Metric::TtftFromSchedule).count, t.stat(Metric::Ttft).count);
        QCOMPARE(t.stat(Metric::TtftFromSchedule).p50, t.stat(Metric::Ttft).p50);

        // Stages.
        QCOMPARE(s.stages.size(), std::size_t(2));
        const SummaryBlock &s0 = s.stages[0];
        QCOMPARE(s0.name, QStringLiteral("c=2"));
        QCOMPARE(s0.load.concurrency, std::optional<int>(2));
        QCOMPARE(s0.requests.warmup, qint64(1));
        QCOMPARE(s0.requests.attempted, qint64(2));
        QCOMPARE(s0.requests.ok, qint64(2));
        COMPARE_NEAR(s0.windowS, 0.4, 1e-12);
        QCOMPARE(s0.throughput.good, qint64(1));
        COMPARE_NEAR(*s0.throughput.goodFraction, 0.5, 1e-12);
        QCOMPARE(s0.concurrency.peakInFlight, 2);
        COMPARE_NEAR(s0.concurrency.meanInFlight, 0.555 / 0.4, 1e-12);
        COMPARE_NEAR(s0.throughput.peakOutputTokensPerS, 14.0, 1e-12);
        QCOMPARE(s0.stat(Metric::Ttft).count, std::uint64_t(2));
        const SummaryBlock &s1 = s.stages[1];
        QCOMPARE(s1.name, QStringLiteral("c=4"));
        QCOMPARE(s1.requests.attempted, qint64(3));
        QCOMPARE(s1.requests.ok, qint64(1));
        QCOMPARE(s1.requests.failed, qint64(2));
        QCOMPARE(s1.requests.cancelled, qint64(1));
        COMPARE_NEAR(s1.windowS, 1.2, 1e-12);
        COMPARE_NEAR(*s1.throughput.goodFraction, 1.0 / 3, 1e-12);
        QCOMPARE(s1.concurrency.peakInFlight, 3);
        COMPARE_NEAR(s1.concurrency.meanInFlight, 2.52 / 1.2, 1e-12);
        QCOMPARE(s1.concurrency.target, std::optional<int>(4));
        QCOMPARE(s1.stat(Metric::Ttft).count, std::uint64_t(0));
        QCOMPARE(s1.stat(Metric::E2e).count, std::uint64_t(1));
    }

    void summaryJsonHasEverySpecKey()
    {
        const RunSummary s = aggregate(twoStageConfig(), scenario()).summary();
        const nlohmann::json j = nlohmann::json::parse(s.toJson().dump());
        const auto has = [](const nlohmann::json &o, std::initializer_list<const char *> keys, const QString &where) {
            for (const char *key : keys)
                QVERIFY2(o.contains(key), qPrintable(where + QLatin1Char('.') + QLatin1String(key)));
        };
        const auto block = [&](const nlohmann::json &b, const QString &where) {
            has(b, {"load", "window_s", "requests", "throughput", "latency_ms", "tokens", "concurrency"}, where);
            has(b["load"], {"mode", "concurrency", "rate", "arrival"}, where + QStringLiteral(".load"));
            has(b["requests"], {"attempted", "ok", "failed", "warmup", "by_status", "by_error"},
                where + QStringLiteral(".requests"));
            has(b["throughput"],
                {"requests_per_s", "output_tokens_per_s", "input_tokens_per_s", "total_tokens_per_s",
                 "peak_output_tokens_per_s", "goodput_requests_per_s", "good_fraction"},
                where + QStringLiteral(".throughput"));
            has(b["latency_ms"],
                {"ttft", "ttfo", "ttft_from_schedule", "ttfb", "e2e", "tpot", "itl", "icl", "queue_delay"},
                where + QStringLiteral(".latency_ms"));
            for (const auto &[name, stats] : b["latency_ms"].items())
                has(stats, {"count", "mean", "stddev", "min", "p50", "p90", "p95", "p99", "p999", "max"},
                    where + QStringLiteral(".latency_ms.") + QString::fromStdString(name));
            has(b["tokens"],
                {"input", "output", "cached", "reasoning", "reasoning_hidden", "out_in_ratio", "cache_hit_ratio",
                 "sources"},
                where + QStringLiteral(".tokens"));
            has(b["tokens"]["sources"], {"usage", "tokenizer", "chunks"}, where + QStringLiteral(".tokens.sources"));
            has(b["tokens"]["cached_sources"], {"usage", "timings"}, where + QStringLiteral(".tokens.cached_sources"));
            has(b["concurrency"], {"target", "peak_in_flight", "mean_in_flight"},
                where + QStringLiteral(".concurrency"));
        };
        has(j, {"tool", "target", "stages", "format_version", "warnings"}, QStringLiteral("summary"));
        has(j["tool"], {"name", "version"}, QStringLiteral("tool"));
        has(j["target"], {"url", "api", "model"}, QStringLiteral("target"));
        block(j, QStringLiteral("summary"));
        QCOMPARE(j["stages"].size(), std::size_t(2));
        for (const auto &stage : j["stages"]) {
            QVERIFY(stage.contains("name"));
            block(stage, QStringLiteral("stage"));
        }
        QVERIFY(j["requests"]["by_status"]["429"] == 1);
        QVERIFY(j["requests"]["by_error"]["timeout"] == 1);
        // Closed loop: from when the user was ready, which these records set to when they were sent.
        QVERIFY(j["latency_ms"]["ttft_from_schedule"]["p50"] == j["latency_ms"]["ttft"]["p50"]);
        has(j["phases_ms"], {"blocked", "connect", "tls", "sending", "waiting", "receiving"},
            QStringLiteral("summary.phases_ms"));
        has(j["connections"], {"opened", "reused", "slow", "slow_mean_ms"}, QStringLiteral("summary.connections"));

        // Round trip: what summary.json holds reads back to the same summary.
        QString error;
        const auto back = RunSummary::fromJson(j, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(back->toJson() == j);
    }

    void damagedSummaryJson_data()
    {
        QTest::addColumn<QByteArray>("pointer");
        QTest::addColumn<QByteArray>("replacement"); // JSON; empty: remove the key
        QTest::addColumn<QString>("error");
        QTest::newRow("missing requests")
            << QByteArray("/requests") << QByteArray() << QStringLiteral("requests: missing");
        QTest::newRow("missing ttft") << QByteArray("/latency_ms/ttft") << QByteArray()
                                      << QStringLiteral("latency_ms.ttft: missing");
        QTest::newRow("string count") << QByteArray("/requests/ok") << QByteArray("\"3\"")
                                      << QStringLiteral("requests.ok: must be an integer");
        QTest::newRow("stage without name")
            << QByteArray("/stages/1/name") << QByteArray() << QStringLiteral("stages[1].name: missing");
        QTest::newRow("bad histogram") << QByteArray("/histograms/e2e/count") << QByteArray("99")
                                       << QStringLiteral(
                                              "histograms.e2e: histogram: bucket counts add up to 3, not count 99");
        QTest::newRow("newer format") << QByteArray("/format_version") << QByteArray("99")
                                      << QStringLiteral("written by a newer format version 99");
    }

    void damagedSummaryJson()
    {
        QFETCH(QByteArray, pointer);
        QFETCH(QByteArray, replacement);
        QFETCH(QString, error);
        nlohmann::json j = aggregate(twoStageConfig(), scenario()).summary().toJson();
        const nlohmann::json::json_pointer at(pointer.toStdString());
        if (replacement.isEmpty())
            j[at.parent_pointer()].erase(at.back());
        else
            j[at] = nlohmann::json::parse(replacement.toStdString());
        QString why;
        QVERIFY(!RunSummary::fromJson(j, &why));
        QVERIFY2(why.contains(error), qPrintable(why));
    }

    void timeSeriesRows()
    {
        RunConfig config = twoStageConfig();
        config.slo.ttftMs = 150;
        const RunAggregator aggregator = aggregate(config, scenario());
        const auto rows = aggregator.timeSeries();
        QCOMPARE(rows.size(), std::size_t(2));
        const TimeSeriesRow &r0 = rows[0];
        QCOMPARE(r0.second, 0);
        QCOMPARE(r0.sent, qint64(5));      // A B C D E (W is warm-up)
        QCOMPARE(r0.completed, qint64(2)); // A, B
        QCOMPARE(r0.failed, qint64(1));    // C
        QCOMPARE(r0.cancelled, qint64(0));
        QCOMPARE(r0.inFlight, 2); // A+B, later D+E
        QCOMPARE(r0.outputTokens, qint64(14));
        QCOMPARE(r0.inputTokens, qint64(300)); // A and B were sent in second 0
        COMPARE_NEAR(r0.ttftP50Ms, 100.0, kHistogram);
        COMPARE_NEAR(r0.ttftP99Ms, 250.0, kHistogram);
        COMPARE_NEAR(r0.e2eP50Ms, 200.0, kHistogram);
        COMPARE_NEAR(r0.e2eP99Ms, 350.0, kHistogram);
        QCOMPARE(r0.good, qint64(1));
        QCOMPARE(r0.stage, 1); // C, D, E were sent in stage 1 before the second ended
        const TimeSeriesRow &r1 = rows[1];
        QCOMPARE(r1.sent, qint64(1));      // F
        QCOMPARE(r1.completed, qint64(1)); // F
        QCOMPARE(r1.failed, qint64(1));    // D's timeout
        QCOMPARE(r1.cancelled, qint64(1)); // E
        QCOMPARE(r1.inFlight, 3);          // D, E, F
        QCOMPARE(r1.outputTokens, qint64(50));
        QCOMPARE(r1.inputTokens, qint64(100));
        QVERIFY(std::isnan(r1.ttftP50Ms)); // F had no first token
        COMPARE_NEAR(r1.e2eP50Ms, 600.0, kHistogram);
        QCOMPARE(r1.good, qint64(1));

        // The sums are the summary's totals.
        const RunSummary s = aggregator.summary();
        QCOMPARE(r0.outputTokens + r1.outputTokens, s.total.tokens.output);
        QCOMPARE(r0.completed + r1.completed, s.total.requests.ok);
        QCOMPARE(std::max(r0.inFlight, r1.inFlight), s.total.concurrency.peakInFlight);

        // Live reading: only the seconds complete at `now`, and from a given row on.
        QCOMPARE(aggregator.timeSeries(0, ns(1500)).size(), std::size_t(1));
        QCOMPARE(aggregator.timeSeries(0, ns(999)).size(), std::size_t(0));
        const auto tail = aggregator.timeSeries(1);
        QCOMPARE(tail.size(), std::size_t(1));
        QCOMPARE(tail[0].second, 1);
        QCOMPARE(tail[0].stage, 1);
        QVERIFY(aggregator.timeSeries(5).empty());
    }

    void timeSeriesCarriesStageOverIdleSeconds()
    {
        RunConfig config = twoStageConfig();
        RunAggregator aggregator(RunInfo::begin(config));
        RequestRecord early = record(1, 1, RequestStatus::Ok, 100, 200);
        aggregator.add(early);
        RequestRecord late = record(2, 1, RequestStatus::Ok, 3100, 3200);
        aggregator.add(late);
        const auto rows = aggregator.timeSeries(1);
        QCOMPARE(rows.size(), std::size_t(3));
        for (const TimeSeriesRow &row : rows)
            QCOMPARE(row.stage, 1);
        QCOMPARE(rows[0].inFlight, 0);
    }

    void goodputSlos_data()
    {
        QTest::addColumn<QString>("slo");
        QTest::addColumn<qint64>("good");
        // Ok requests: A (TTFT 100, TPOT 10, E2E 200), B (250, 50, 350), F (none, none, 600).
        QTest::newRow("no SLO") << QString() << qint64(3);
        QTest::newRow("ttft") << QStringLiteral("ttft_ms=150") << qint64(2);
        QTest::newRow("tpot at the limit") << QStringLiteral("tpot_ms=10") << qint64(2);
        QTest::newRow("e2e") << QStringLiteral("e2e_ms=300") << qint64(1);
        QTest::newRow("all met") << QStringLiteral("ttft_ms=300,tpot_ms=60,e2e_ms=600") << qint64(3);
        QTest::newRow("every one constrains") << QStringLiteral("ttft_ms=300,tpot_ms=60,e2e_ms=599") << qint64(2);
    }

    void goodputSlos()
    {
        QFETCH(QString, slo);
        QFETCH(qint64, good);
        RunConfig config = twoStageConfig();
        if (!slo.isEmpty()) {
            QString error;
            const auto parsed = parseSlo(slo, &error);
            QVERIFY2(parsed, qPrintable(error));
            config.slo = *parsed;
        }
        const RunSummary s = aggregate(config, scenario()).summary();
        QCOMPARE(s.total.throughput.good, good);
        COMPARE_NEAR(*s.total.throughput.goodFraction, double(good) / 5, 1e-12); // errors count as not good
    }

    void singleTokenIsNotConstrainedByTpot()
    {
        RunConfig config = twoStageConfig();
        config.slo.tpotMs = 1;
        RequestRecord one = record(1, 0, RequestStatus::Ok, 0, 100);
        stream(one, 10, {{50, 4}}, 1);
        const RunSummary s = aggregate(config, {one}).summary();
        QCOMPARE(s.total.throughput.good, qint64(1));
        QCOMPARE(s.total.stat(Metric::Tpot).count, std::uint64_t(0));
    }

    void openLoopFromSchedule()
    {
        RunConfig config;
        config.target.model = QStringLiteral("m");
        config.load.mode = LoadMode::Rate;
        config.load.rate = 20;
        config.load.arrival = Arrival::Constant;
        config.load.maxInFlight = 8;
        // Scheduled 100 ms before it could be sent (the in-flight cap): queue 100, TTFT 50 from
        // sent, 150 from schedule; E2E 80 from sent, 180 from schedule.
        RequestRecord r = record(1, 0, RequestStatus::Ok, 200, 280);
        r.scheduledNs = ns(100);
        stream(r, 220, {{250, 4}, {280, 4}}, 2);
        const RunSummary s = aggregate(config, {r}).summary();
        const SummaryBlock &t = s.total;
        QCOMPARE(t.load.mode, LoadMode::Rate);
        QCOMPARE(t.load.rate, std::optional<double>(20));
        QCOMPARE(t.load.arrival, std::optional<Arrival>(Arrival::Constant));
        QCOMPARE(t.load.maxInFlight, 8);
        QVERIFY(!t.load.concurrency);
        QVERIFY(!t.concurrency.target);
        COMPARE_NEAR(t.stat(Metric::QueueDelay).mean, 100.0, 1e-12);
        COMPARE_NEAR(t.stat(Metric::Ttft).mean, 50.0, 1e-12);
        COMPARE_NEAR(t.stat(Metric::TtftFromSchedule).mean, 150.0, 1e-12);
        COMPARE_NEAR(t.stat(Metric::E2e).mean, 80.0, 1e-12);
        COMPARE_NEAR(t.stat(Metric::E2eFromSchedule).mean, 180.0, 1e-12);
    }

    // Against llama.cpp (listen backlog 5) 10 of 16 users waited ≈1,032 ms to connect — their SYN
    // dropped by a full accept queue and sent again — and the headline TTFT p99 (1,201 ms) left it
    // out with no word: users had waited up to 2,234 ms for their first token.
    void connectStallsAreInWhatUsersWaitedAndWarned()
    {
        RunConfig config;
        config.target.model = QStringLiteral("m");
        config.load.concurrency = 4;
        std::vector<RequestRecord> records;
        for (std::uint64_t i = 1; i <= 4; ++i) {
            // Ready at 0; the connect took 1,030 ms for two users and 0.2 ms for the others.
            const double connectMs = i <= 2 ? 1030 : 0.2;
            RequestRecord r = record(i, 0, RequestStatus::Ok, connectMs + 0.1, connectMs + 300);
            r.scheduledNs = 0;
            r.blockedNs = ns(0.05);
            r.connectNs = ns(connectMs);
            r.tlsNs = 0;
            r.sendingNs = ns(0.05);
            stream(r, connectMs + 100, {{connectMs + 200, 4}, {connectMs + 300, 4}}, 2);
            records.push_back(r);
        }
        const RunSummary s = aggregate(config, records).summary();
        const SummaryBlock &t = s.total;
        QCOMPARE(t.connections.opened, qint64(4));
        QCOMPARE(t.connections.slow, qint64(2));
        COMPARE_NEAR(t.connections.slowMeanMs, 1030.0, 1e-9);
        COMPARE_NEAR(t.stat(Metric::Ttft).max, 199.9, kHistogram);
        COMPARE_NEAR(t.stat(Metric::TtftFromSchedule).max, 1230.0, kHistogram);
        COMPARE_NEAR(t.stat(Metric::Connect).max, 1030.0, kHistogram);
        const auto warning = std::find_if(s.warnings.begin(), s.warnings.end(),
                                          [](const QString &w) { return w.contains(QLatin1String("connects took")); });
        QVERIFY2(warning != s.warnings.end(), qPrintable(s.warnings.join(QLatin1Char('\n'))));
        QVERIFY2(warning->startsWith(QStringLiteral("2 of 4 connects took ≈1.03 s")), qPrintable(*warning));
        QVERIFY2(warning->contains(QLatin1String("accept queue overflowed")), qPrintable(*warning));

        // Regression: a loaded listener drops some SYNs twice. 10 connects of 16 took 1.0 s or
        // 3.0 s, a mean of 1.43 s: it read as "the network's", not the accept queue (seen in
        // tst_connectionreuse under load). Each connect is judged, not their mean.
        for (RequestRecord &r : records)
            r.connectNs = r.id == 1 ? ns(3030) : r.id == 2 ? ns(1020) : ns(0.2);
        records.push_back(records[1]);
        records.back().id = 5;
        records.push_back(records[1]);
        records.back().id = 6;
        const RunSummary mixed = aggregate(config, records).summary();
        QCOMPARE(mixed.total.connections.slow, qint64(4));
        QCOMPARE(mixed.total.connections.slowAtSynRetry, qint64(4));
        const auto retried = std::find_if(mixed.warnings.begin(), mixed.warnings.end(),
                                          [](const QString &w) { return w.contains(QLatin1String("connects took")); });
        QVERIFY2(retried != mixed.warnings.end(), qPrintable(mixed.warnings.join(QLatin1Char('\n'))));
        QVERIFY2(retried->startsWith(QStringLiteral("4 of 6 connects took ≈1.52 s")), qPrintable(*retried));
        QVERIFY2(retried->contains(QLatin1String("accept queue overflowed")), qPrintable(*retried));
        records.resize(4);

        // No stall, no warning; a kept-alive connection is no connect at all.
        for (RequestRecord &r : records)
            r.connectNs = r.id <= 2 ? 0 : ns(0.2);
        const RunSummary calm = aggregate(config, records).summary();
        QCOMPARE(calm.total.connections.reused, qint64(2));
        QCOMPARE(calm.total.connections.slow, qint64(0));
        QVERIFY(std::none_of(calm.warnings.begin(), calm.warnings.end(),
                             [](const QString &w) { return w.contains(QLatin1String("connects took")); }));
    }

    void inFlightPeakIsExact()
    {
        // Closed loop at 3 users, back to back: a request ends exactly when the next one starts,
        // which must not count as 4 in flight.
        RunConfig config;
        config.load.concurrency = 3;
        RunAggregator aggregator(RunInfo::begin(config));
        std::uint64_t id = 0;
        for (int user = 0; user < 3; ++user) {
            double t = user * 7;
            for (int i = 0; i < 50; ++i) {
                aggregator.add(record(++id, 0, RequestStatus::Ok, t, t + 40));
                t += 40;
            }
        }
        const RunSummary s = aggregator.summary();
        QCOMPARE(s.total.concurrency.peakInFlight, 3);
        QCOMPARE(s.total.concurrency.target, std::optional<int>(3));
        // 150 requests × 40 ms in a window of 14 + 2000 ms.
        COMPARE_NEAR(s.total.concurrency.meanInFlight, 6.0 / 2.014, 1e-12);
    }

    void inFlightIncrementalEqualsBruteForce()
    {
        // Intervals arrive in completion order and the tracker is asked between arrivals, as a live
        // view does: every answer must equal counting the overlaps directly.
        std::mt19937_64 rng(5);
        std::uniform_int_distribution<std::int64_t> start(0, 20'000'000'000);
        std::uniform_int_distribution<std::int64_t> duration(0, 5'000'000'000);
        std::vector<std::pair<std::int64_t, std::int64_t>> intervals(300);
        for (auto &[sent, done] : intervals) {
            sent = start(rng) / 1'000'000 * 1'000'000; // whole ms, so that ends and starts coincide
            done = sent + duration(rng) / 1'000'000 * 1'000'000;
        }
        std::sort(intervals.begin(), intervals.end(), [](const auto &a, const auto &b) { return a.second < b.second; });
        const auto bruteForce = [](const std::vector<std::pair<std::int64_t, std::int64_t>> &added) {
            const auto inFlightAt = [&added](std::int64_t t) {
                return int(std::count_if(added.begin(), added.end(),
                                         [t](const auto &i) { return i.first <= t && t < i.second; }));
            };
            std::int64_t last = 0;
            for (const auto &i : added)
                last = std::max(last, i.second);
            std::vector<int> peaks(std::size_t(last / 1'000'000'000 + 1), 0);
            for (std::size_t s = 0; s < peaks.size(); ++s)
                peaks[s] = inFlightAt(std::int64_t(s) * 1'000'000'000);
            for (const auto &i : added) {
                int &peak = peaks[std::size_t(i.first / 1'000'000'000)];
                peak = std::max(peak, inFlightAt(i.first));
            }
            return peaks;
        };
        InFlightTracker tracker;
        std::vector<std::pair<std::int64_t, std::int64_t>> added;
        for (std::size_t i = 0; i < intervals.size(); ++i) {
            tracker.add(intervals[i].first, intervals[i].second);
            added.push_back(intervals[i]);
            if (i % 7 == 0 || i + 1 == intervals.size()) {
                const std::vector<int> expected = bruteForce(added);
                QCOMPARE(tracker.peakPerSecond(), expected);
                QCOMPARE(tracker.peak(), *std::max_element(expected.begin(), expected.end()));
            }
        }
    }

    /// Found by fuzz_requestscsv: one record done a century after the start (a damaged
    /// requests.csv read back) grew the per-second series to 3 billion seconds (std::bad_alloc).
    void aFarOffRecordDoesNotGrowTheTimeSeriesPastItsBound()
    {
        constexpr double kDayMs = 24 * 3600 * 1000.0;
        RunAggregator aggregator(RunInfo::begin(twoStageConfig()));
        RequestRecord soon = record(1, 0, RequestStatus::Ok, 100, 1500);
        stream(soon, 150, {{200, 4}, {1500, 4}}, 2);
        aggregator.add(soon);
        RequestRecord far = record(2, 0, RequestStatus::Ok, 200, 8 * kDayMs);
        stream(far, 250, {{300, 4}, {8 * kDayMs, 4}}, 2);
        aggregator.add(far);
        aggregator.add(record(3, 1, RequestStatus::Http, 36500 * kDayMs, 36500 * kDayMs + 1));

        const std::vector<TimeSeriesRow> rows = aggregator.timeSeries();
        QCOMPARE(rows.size(), std::size_t(kMaxTimeSeriesSeconds));
        QCOMPARE(rows[0].sent, qint64(2));
        QCOMPARE(rows[1].completed, qint64(1));
        QCOMPARE(rows.back().inFlight, 1); // the far record, still in flight at the series' end
        const RunSummary s = aggregator.summary();
        QCOMPARE(s.total.requests.ok, qint64(2)); // past the series, records count everywhere else
        QCOMPARE(s.total.requests.failed, qint64(1));
        QCOMPARE(s.total.concurrency.peakInFlight, 2);
        QVERIFY2(s.warnings.join(QLatin1Char('\n'))
                     .contains(QStringLiteral("the time series covers the run's first 7 days: 3 events after that")),
                 qPrintable(s.warnings.join(QLatin1Char('\n'))));
    }

    /// Found by fuzz_requestscsv: records of a century each (what requests.csv may hold) overflowed
    /// the sums of their time in flight and of their slow connects (signed overflow).
    void centuryLongRecordsDoNotOverflowTheSums()
    {
        constexpr std::int64_t kCenturyNs = std::int64_t(100) * 365 * 24 * 3600 * 1'000'000'000;
        RunAggregator aggregator(RunInfo::begin(twoStageConfig()));
        for (std::uint64_t id = 1; id <= 4; ++id) {
            RequestRecord r = record(id, 0, RequestStatus::Timeout, 0, 0);
            r.doneNs = kCenturyNs;
            r.connectNs = kCenturyNs;
            aggregator.add(r);
        }
        const RunSummary s = aggregator.summary();
        QCOMPARE(s.total.concurrency.peakInFlight, 4);
        // Σ in flight saturates at int64's maximum over a century's window: about 2.9, not 4 or less than 0.
        QVERIFY2(s.total.concurrency.meanInFlight > 2.9 && s.total.concurrency.meanInFlight < 3,
                 qPrintable(QString::number(s.total.concurrency.meanInFlight)));
        QCOMPARE(s.total.connections.slowMeanMs, double(kCenturyNs) / 1e6);
    }

    void timeSeriesRowsFollowNewRecords()
    {
        // A row read live is recomputed when a later record lands in its second.
        RunAggregator aggregator(RunInfo::begin(twoStageConfig()));
        RequestRecord a = record(1, 0, RequestStatus::Ok, 100, 400);
        stream(a, 150, {{200, 4}, {400, 4}}, 2);
        aggregator.add(a);
        COMPARE_NEAR(aggregator.timeSeries()[0].ttftP99Ms, 100.0, 1e-6);
        RequestRecord b = record(2, 0, RequestStatus::Ok, 200, 900);
        stream(b, 250, {{500, 4}, {900, 4}}, 2);
        aggregator.add(b);
        const TimeSeriesRow row = aggregator.timeSeries()[0];
        COMPARE_NEAR(row.ttftP50Ms, 100.0, 1e-6);
        COMPARE_NEAR(row.ttftP99Ms, 300.0, 1e-6);
        QCOMPARE(row.completed, qint64(2));
        QCOMPARE(row.inFlight, 2);
    }

    void orderOfArrivalDoesNotMatter()
    {
        RunConfig config = twoStageConfig();
        config.slo.e2eMs = 400;
        std::vector<RequestRecord> records = scenario();
        const RunAggregator forward = aggregate(config, records);
        std::reverse(records.begin(), records.end());
        const RunAggregator backward = aggregate(config, records);
        const RunSummary a = forward.summary();
        const RunSummary b = backward.summary();
        QCOMPARE(a.total.concurrency.peakInFlight, b.total.concurrency.peakInFlight);
        QVERIFY(a.total.histogram(Metric::Itl).toJson()["counts"] == b.total.histogram(Metric::Itl).toJson()["counts"]);
        QCOMPARE(a.total.throughput.good, b.total.throughput.good);
        QCOMPARE(forward.timeSeries().size(), backward.timeSeries().size());
        for (std::size_t i = 0; i < forward.timeSeries().size(); ++i)
            QCOMPARE(forward.timeSeries()[i].inFlight, backward.timeSeries()[i].inFlight);
    }

    /// A request of a reasoning model with hidden reasoning (OpenAI's o-series): 1 s of thinking,
    /// then five visible one-token chunks 5 ms apart; usage says 805 tokens, 800 of them reasoning.
    void hiddenReasoningMetricsCoverWhatStreamed()
    {
        RequestRecord r = record(1, 0, RequestStatus::Ok, 0, 1021);
        stream(r, 10, {{1000, 4}, {1005, 4}, {1010, 4}, {1015, 4}, {1020, 4}}, 805);
        r.reasoningTokens = 800;
        r.hiddenReasoningTokens = 800;
        r.tokenSource = TokenSource::Usage;
        r.finishReason = QStringLiteral("length");
        RequestRecord plain = record(2, 0, RequestStatus::Ok, 0, 30);
        stream(plain, 5, {{10, 4}, {30, 4}}, 2);
        plain.finishReason = QStringLiteral("stop");
        const RunSummary s = aggregate(twoStageConfig(), {r, plain}).summary();
        const SummaryBlock &t = s.total;
        COMPARE_NEAR(t.stat(Metric::Tpot).max, 20.0, kHistogram);         // plain: 20 ms / 1
        COMPARE_NEAR(t.stat(Metric::Tpot).min, 5.0, kHistogram);          // hidden: 20 ms / (5 − 1), not 20 / 804
        COMPARE_NEAR(t.stat(Metric::DecodeSpeed).max, 250.0, kHistogram); // 5 tokens / 20 ms
        COMPARE_NEAR(t.stat(Metric::Ttfo).max, 1000.0, kHistogram);       // the thinking is inside TTFO
        QCOMPARE(t.stat(Metric::Itl).count, std::uint64_t(5));            // 4 gaps of 5 ms, plain's one of 20
        COMPARE_NEAR(t.stat(Metric::Itl).p50, 5.0, kHistogram);
        QCOMPARE(t.tokens.output, std::int64_t(807));
        QCOMPARE(t.tokens.reasoning, std::int64_t(800));
        QCOMPARE(t.tokens.reasoningHidden, std::int64_t(800));
        QCOMPARE(t.requests.byFinishReason.at(QStringLiteral("length")), std::int64_t(1));
        QCOMPARE(t.requests.stoppedAtCap(), std::int64_t(1));
        // Hidden tokens count for throughput with the first visible chunk: second 1 has them all.
        const std::vector<TimeSeriesRow> rows = aggregate(twoStageConfig(), {r}).timeSeries();
        QCOMPARE(rows.at(1).outputTokens, std::int64_t(805));
        QString error;
        const auto back = RunSummary::fromJson(nlohmann::json::parse(s.toJson().dump()), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->total.tokens.reasoningHidden, std::int64_t(800));
        QCOMPARE(back->total.requests.stoppedAtCap(), std::int64_t(1));
    }

    /// Every source's prompts are unique to the request but for what they share by design
    /// (RunInfo::sharedPromptTokens, none when they repeat on purpose): more cached is warned of.
    void unexpectedCacheHitsWarn_data()
    {
        QTest::addColumn<qint64>("shared"); ///< -1: prompts repeat by design
        QTest::addColumn<int>("turns");
        QTest::addColumn<qint64>("cached");
        QTest::addColumn<bool>("warned");
        QTest::newRow("unique prompts, no hits") << qint64(0) << 0 << qint64(0) << false;
        QTest::newRow("unique prompts, the chat template's first tokens (llama.cpp's timings)")
            << qint64(0) << 0 << qint64(5) << false;
        QTest::newRow("unique prompts, hits") << qint64(0) << 0 << qint64(60) << true;
        QTest::newRow("a shared part asked for") << qint64(50) << 0 << qint64(60) << false;
        QTest::newRow("a file's system message, counted a fifth short") << qint64(40) << 0 << qint64(50) << false;
        QTest::newRow("system prompt asked for, the rest cached too") << qint64(40) << 0 << qint64(95) << true;
        QTest::newRow("prompts repeated on purpose") << qint64(-1) << 0 << qint64(60) << false;
        QTest::newRow("conversations carry their history") << qint64(0) << 3 << qint64(60) << false;
    }
    void unexpectedCacheHitsWarn()
    {
        QFETCH(qint64, shared);
        QFETCH(int, turns);
        QFETCH(qint64, cached);
        QFETCH(bool, warned);
        RunConfig config = twoStageConfig();
        config.prompt.promptTokens = 100;
        config.load.turns = turns;
        RunInfo info = RunInfo::begin(config);
        if (shared >= 0)
            info.sharedPromptTokens = shared;
        RequestRecord r = record(1, 0, RequestStatus::Ok, 0, 30);
        stream(r, 5, {{10, 4}, {30, 4}}, 2);
        r.promptTokens = 100;
        r.promptTokenSource = TokenSource::Usage;
        r.cachedTokens = cached;
        RunAggregator aggregator(info);
        aggregator.add(r);
        const RunSummary s = aggregator.summary();
        QCOMPARE(!s.warnings.isEmpty(), warned);
        if (warned)
            QVERIFY2(s.warnings.first().contains(
                         QStringLiteral("unexpected cache hits: %1.0% of prompt tokens were cached").arg(cached)),
                     qPrintable(s.warnings.first()));
    }

    /// Regression: a run replaying an earlier run's prompts (--prompt-salt) served 521 of 522
    /// prompt tokens from llama.cpp's cache and said nothing of the replay. It says so now, with
    /// the hits, instead of calling them unexpected.
    void aReplayedSaltIsNamed()
    {
        RunConfig config = twoStageConfig();
        config.prompt.promptTokens = 522;
        config.prompt.salt = QStringLiteral("0123456789abcdef");
        RunInfo info = RunInfo::begin(config);
        info.sharedPromptTokens = 0;
        for (const bool replayed : {false, true}) {
            info.saltReplayed = replayed;
            RequestRecord r = record(1, 0, RequestStatus::Ok, 0, 30);
            stream(r, 5, {{10, 4}, {30, 4}}, 2);
            r.promptTokens = 522;
            r.promptTokenSource = TokenSource::Usage;
            r.cachedTokens = 521;
            r.cachedSource = CacheSource::Timings;
            RunAggregator aggregator(info);
            aggregator.add(r);
            const RunSummary s = aggregator.summary();
            QCOMPARE(s.warnings.size(), 1);
            QCOMPARE(s.total.tokens.cachedFromTimings, qint64(1));
            QCOMPARE(s.warnings.first().contains(QStringLiteral("unexpected cache hits")), !replayed);
            QCOMPARE(s.warnings.first().contains(
                         QStringLiteral("this run replays prompt salt 0123456789abcdef (--prompt-salt)")),
                     replayed);
            QVERIFY2(s.warnings.first().contains(QStringLiteral("99.8% of prompt tokens were cached")),
                     qPrintable(s.warnings.first()));
        }
    }

    /// Regression: with a per-slot context of 4,096, llama.cpp cut a 4,106-token prompt to 2,058
    /// (usage said 2,058) and the context sweep fitted those points (R² 0.84) without a word. A
    /// measured prompt under 75% of its stage's size is warned of, and left out of the fit.
    void truncatedPromptsWarnAndLeaveTheFit_data()
    {
        QTest::addColumn<int>("systemTokens");
        QTest::addColumn<qint64>("measured"); ///< of the largest stage's requests
        QTest::addColumn<int>("source");
        QTest::addColumn<bool>("truncated");
        QTest::newRow("cut to 2058 of 4106") << 10 << qint64(2058) << int(TokenSource::Usage) << true;
        QTest::newRow("the chat template adds some") << 10 << qint64(4120) << int(TokenSource::Usage) << false;
        QTest::newRow("another tokenizer counts 20% fewer") << 10 << qint64(3285) << int(TokenSource::Usage) << false;
        QTest::newRow("the client's own count says nothing of the server")
            << 10 << qint64(2058) << int(TokenSource::Tokenizer) << false;
    }
    void truncatedPromptsWarnAndLeaveTheFit()
    {
        QFETCH(int, systemTokens);
        QFETCH(qint64, measured);
        QFETCH(int, source);
        QFETCH(bool, truncated);
        RunConfig config = twoStageConfig();
        config.prompt.systemTokens = systemTokens;
        config.load.stages = *parseSweep(QStringLiteral("p=512..4096:4"), nullptr);
        QCOMPARE(config.load.stages.size(), 4);
        RunAggregator aggregator(RunInfo::begin(config));
        std::uint64_t id = 1;
        for (int stage = 0; stage < 4; ++stage) {
            const int size = config.load.stages[stage].promptTokens;
            for (int k = 0; k < 4; ++k) {
                const std::int64_t prompt = stage == 3 ? measured : size + systemTokens;
                // TTFT grows linearly with the prompt; the truncated stage's with what was read.
                const double ttftMs = 50 + double(prompt) * 0.1 + k;
                RequestRecord r = record(id++, stage, RequestStatus::Ok, stage * 1000.0, stage * 1000.0 + ttftMs + 10);
                stream(r, 1, {{stage * 1000.0 + ttftMs, 4}, {stage * 1000.0 + ttftMs + 10, 4}}, 2);
                r.promptTokens = prompt;
                r.promptTokenSource = TokenSource(source);
                aggregator.add(r);
            }
        }
        const RunSummary s = aggregator.summary();
        QVERIFY(s.contextSweep);
        const ContextSweepSummary &sweep = *s.contextSweep;
        QCOMPARE(sweep.stages.size(), std::size_t(4));
        QCOMPARE(sweep.stages[3].requestedTokens, std::int64_t(4096 + systemTokens));
        QCOMPARE(sweep.stages[3].truncated, truncated ? std::int64_t(4) : std::int64_t(0));
        QCOMPARE(sweep.excluded.size(), truncated ? std::size_t(4) : std::size_t(0));
        QCOMPARE(sweep.points.size(), truncated ? std::size_t(12) : std::size_t(16));
        QCOMPARE(sweep.fit.points, truncated ? 12 : 16);
        const QStringList truncation = s.warnings.filter(QStringLiteral("truncated"));
        QCOMPARE(truncation.size(), truncated ? 1 : 0);
        if (truncated) {
            QVERIFY2(truncation.first().startsWith(
                         QStringLiteral("the server truncated prompts: check its context size (4 of 16 requests")),
                     qPrintable(truncation.first()));
            QVERIFY2(truncation.first().contains(QStringLiteral("p=4096: 4 requests measured 2058 of 4106 tokens")),
                     qPrintable(truncation.first()));
            QVERIFY2(sweep.fitText().endsWith(QStringLiteral("; 4 requests the server truncated left out")),
                     qPrintable(sweep.fitText()));
            // The fit is the stages the server read whole: 0.1 ms a token from 50 ms.
            QVERIFY2(sweep.fit.ok && sweep.fit.r2 > 0.99, qPrintable(sweep.fitText()));
            QVERIFY2(std::abs(sweep.fit.b - 1) < 0.05, qPrintable(sweep.fitText()));
        }
        QString error;
        const auto back = ContextSweepSummary::fromJson(nlohmann::json::parse(sweep.toJson().dump()), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->excluded.size(), sweep.excluded.size());
        QCOMPARE(back->stages[3].truncated, sweep.stages[3].truncated);
        QCOMPARE(back->stages[3].requestedTokens, sweep.stages[3].requestedTokens);
    }

    void aRequestCancelledByStopDoesNotStretchItsStage_data()
    {
        QTest::addColumn<bool>("marked");
        QTest::newRow("as run") << true;
        QTest::newRow("recomputed from requests.csv") << false;
    }

    // A stopped sweep's c=50 stage read 10.21 s and 23.8 req/s where the chart showed 27–30: one
    // of its requests, still running when Stop cancelled it, stretched its window to Stop.
    void aRequestCancelledByStopDoesNotStretchItsStage()
    {
        QFETCH(bool, marked);
        const RunSummary s = stoppedSweep(marked).summary();
        QCOMPARE(s.stages.size(), std::size_t(3));
        const SummaryBlock &ended = s.stages[0];
        COMPARE_NEAR(ended.windowS, 1.0, 1e-12); // its own requests: 0 → 1000, not Stop's 1500
        COMPARE_NEAR(ended.throughput.requestsPerS, 10.0, 1e-12);
        QVERIFY(!ended.partial());
        QCOMPARE(ended.requests.cancelled, qint64(1));

        // The stage Stop cut ends at Stop, and says how far it got of its plan.
        const SummaryBlock &cut = s.stages[1];
        COMPARE_NEAR(cut.windowS, 0.5, 1e-12);
        COMPARE_NEAR(cut.throughput.requestsPerS, 8.0, 1e-12);
        QVERIFY(cut.stopped);
        COMPARE_NEAR(cut.stopped->afterS, 0.5, 1e-12);
        COMPARE_NEAR(cut.stopped->plannedS, 1.0, 1e-12);
        QCOMPARE(cut.partialNote(), QStringLiteral("stopped after 0.5 s of 1 s"));
        QCOMPARE(cut.label(), QStringLiteral("c=4 (stopped after 0.5 s of 1 s)"));
        QVERIFY(!s.stages[2].reached);
        QCOMPARE(s.stages[2].partialNote(), QStringLiteral("not reached: stopped before"));

        QVERIFY(s.partial());
        COMPARE_NEAR(s.total.windowS, 1.5, 1e-12);
        COMPARE_NEAR(s.total.stopped->afterS, 1.5, 1e-12);
        COMPARE_NEAR(s.total.stopped->plannedS, 3.0, 1e-12);
        QCOMPARE(s.partialNote(),
                 QStringLiteral("partial run: stopped after 1.5 s of 3 s; c=4 stopped after 0.5 s of 1 s; c=8 "
                                "not reached: stopped before"));

        // summary.json keeps it: planned against ran.
        const nlohmann::json j = s.toJson();
        QCOMPARE(j["stages"][1]["stopped"]["after_s"].get<double>(), cut.stopped->afterS);
        QCOMPARE(j["stages"][1]["stopped"]["planned_s"].get<double>(), 1.0);
        QVERIFY(j["stages"][2]["reached"] == false);
        QVERIFY(!j["stages"][0].contains("stopped") && !j["stages"][0].contains("reached"));
        QString error;
        const auto back = RunSummary::fromJson(nlohmann::json::parse(j.dump()), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->stages[1].stopped, cut.stopped);
        QVERIFY(!back->stages[2].reached);
        QVERIFY(back->stages[0].reached && !back->stages[0].stopped);
        QCOMPARE(back->partialNote(), s.partialNote());
    }

    // "Target concurrency 200" for a sweep Stop ended at c=100.
    void stoppedRunDoesNotClaimTheTargetItNeverReached()
    {
        const RunSummary stopped = stoppedSweep(true).summary();
        QCOMPARE(stopped.total.concurrency.target, std::optional<int>(4));
        QCOMPARE(stopped.stages[2].concurrency.target, std::optional<int>(8)); // what it would have run

        // A run that ran its plan claims its largest level, as before.
        RunAggregator whole(RunInfo::begin(timedSweepConfig()));
        for (int stage = 0; stage < 3; ++stage)
            whole.add(record(std::uint64_t(stage + 1), stage, RequestStatus::Ok, 1000.0 * stage, 1000.0 * stage + 100));
        QCOMPARE(whole.summary().total.concurrency.target, std::optional<int>(8));
        QVERIFY(!whole.summary().partial());
    }

    // A context sweep Stop cut in its last stage fitted TTFT through that stage's first requests
    // without a word.
    void contextFitLeavesOutAStageCutByStop()
    {
        RunConfig config = twoStageConfig();
        config.load.stages = *parseSweep(QStringLiteral("p=512..4096:4"), nullptr);
        for (StageConfig &stage : config.load.stages)
            stage.durationMs = 1000;
        RunAggregator aggregator(RunInfo::begin(config));
        std::uint64_t id = 1;
        for (int stage = 0; stage < 4; ++stage) {
            aggregator.markStageStarted(stage, ns(stage * 1000.0));
            const int size = config.load.stages[stage].promptTokens;
            // TTFT grows linearly with the prompt, but the stopped stage's first requests met a
            // server still busy with the stage before (ten times slower).
            for (int k = 0; k < 4; ++k) {
                const double ttftMs = (50 + size * 0.1) * (stage == 3 ? 10 : 1) + k;
                const double sent = stage * 1000.0 + k;
                RequestRecord r = record(id++, stage, RequestStatus::Ok, sent, sent + ttftMs + 10);
                stream(r, 1, {{sent + ttftMs, 4}, {sent + ttftMs + 10, 4}}, 2);
                r.promptTokens = size;
                r.promptTokenSource = TokenSource::Usage;
                aggregator.add(r);
            }
        }
        aggregator.markStopped(ns(3000 + 600));
        aggregator.add(record(id, 3, RequestStatus::Cancelled, 3500, 3600));
        const RunSummary s = aggregator.summary();
        QVERIFY(s.stages[3].stopped);
        QVERIFY(s.contextSweep);
        const ContextSweepSummary &sweep = *s.contextSweep;
        QCOMPARE(sweep.points.size(), std::size_t(12));
        QCOMPARE(sweep.fit.points, 12);
        QVERIFY2(sweep.fit.ok && std::abs(sweep.fit.b - 1) < 0.05, qPrintable(sweep.fitText()));
        QCOMPARE(sweep.leftOut, QStringLiteral("p=4096 left out: stopped after 0.6 s of 1 s"));
        QVERIFY2(sweep.fitText().endsWith(QStringLiteral("; p=4096 left out: stopped after 0.6 s of 1 s")),
                 qPrintable(sweep.fitText()));
        QString error;
        const auto back = ContextSweepSummary::fromJson(nlohmann::json::parse(sweep.toJson().dump()), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->leftOut, sweep.leftOut);
    }

    void emptyRun()
    {
        const RunAggregator aggregator(RunInfo::begin(twoStageConfig()));
        const RunSummary s = aggregator.summary();
        QCOMPARE(s.total.requests.attempted, qint64(0));
        QCOMPARE(s.total.windowS, 0.0);
        QCOMPARE(s.total.throughput.requestsPerS, 0.0);
        QVERIFY(!s.total.throughput.goodFraction);
        QVERIFY(!s.total.tokens.outInRatio);
        QCOMPARE(s.total.concurrency.peakInFlight, 0);
        QVERIFY(aggregator.timeSeries().empty());
        QString error;
        QVERIFY2(RunSummary::fromJson(nlohmann::json::parse(s.toJson().dump()), &error), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestAggregator)
#include "tst_aggregator.moc"
