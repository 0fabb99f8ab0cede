// The simulator's parts without sockets, in virtual time, so every figure is exact: the serving
// model (prefill, batching, queue), request plans (lengths, faults, determinism), generated text,
// the prefix cache, the rate limiter, the pacing histogram and the HTTP request parser.
#include "config/runconfig.h"
#include "sim/httprequestparser.h"
#include "sim/prefixcache.h"
#include "sim/ratelimiter.h"
#include "sim/requestplan.h"
#include "sim/servingmodel.h"
#include "sim/simstats.h"
#include "tokenize/tokenizer.h"

#include <QTest>

using namespace tb::sim;

namespace {

constexpr qint64 kMs = 1'000'000;

SimConfig modelConfig()
{
    SimConfig c;
    c.ttftMs = 10;
    c.prefillMsPer1k = 100;
    c.prefillQuadraticMs = 0;
    c.stepMs = 5;
    c.stepMsPerSeq = 1;
    c.maxBatch = 2;
    c.queueLimit = 2;
    c.tokensPerChunk = 1;
    return c;
}

Job job(qint64 prompt, qint64 output, qint64 chunk = 1, qint64 reasoning = 0)
{
    Job j;
    j.promptTokens = prompt;
    j.outputTokens = output;
    j.chunkTokens = chunk;
    j.reasoningTokens = reasoning;
    return j;
}

/// Runs the model to the end, collecting every chunk.
QList<Chunk> drain(ServingModel &model)
{
    QList<Chunk> chunks;
    while (model.nextDueNs() != std::numeric_limits<qint64>::max())
        model.takeDue(model.nextDueNs(), [&](const Chunk &c) { chunks.append(c); });
    return chunks;
}

QList<Chunk> of(const QList<Chunk> &chunks, quint64 seq)
{
    QList<Chunk> mine;
    for (const Chunk &c : chunks) {
        if (c.seq == seq)
            mine.append(c);
    }
    return mine;
}

} // namespace

class TestSimModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void prefillEndSaysWhenTheRunningPrefillEnds()
    {
        // Two prompts of 1000 tokens at t=0: after 10 ms each, the first prefills over [10, 110) ms,
        // the second waits for the unit and prefills over [110, 210) ms (what a stalled scrape waits for).
        ServingModel model(modelConfig());
        QVERIFY(model.submit(job(1000, 3), 0));
        QVERIFY(model.submit(job(1000, 3), 0));
        QCOMPARE(model.prefillEndNs(5 * kMs), -1); // the fixed latency is no prefill
        QCOMPARE(model.prefillEndNs(10 * kMs), 110 * kMs);
        QCOMPARE(model.prefillEndNs(109 * kMs), 110 * kMs);
        QCOMPARE(model.prefillEndNs(110 * kMs), 210 * kMs);
        QCOMPARE(model.prefillEndNs(210 * kMs), -1);
        // Each chunk says when its sequence got its slot and how full the batch was.
        const QList<Chunk> chunks = drain(model);
        QCOMPARE(of(chunks, 2).first().admittedNs, 0);
        QCOMPARE(of(chunks, 2).first().dueNs, 210 * kMs);
        QCOMPARE(of(chunks, 1).first().batch, 2);
        QCOMPARE(of(chunks, 2).last().batch, 1); // the first had finished
    }

    void slotTruncationCutsAsLlamacppDoes_data()
    {
        QTest::addColumn<qint64>("prompt");
        QTest::addColumn<qint64>("context");
        QTest::addColumn<qint64>("dropped");
        QTest::newRow("off") << qint64(10000) << qint64(0) << qint64(0);
        QTest::newRow("fits") << qint64(4095) << qint64(4096) << qint64(0);
        QTest::newRow("exactly the context") << qint64(4096) << qint64(4096) << qint64(2048);
        QTest::newRow("issue 24: 4,106 -> 2,058") << qint64(4106) << qint64(4096) << qint64(2048);
        QTest::newRow("several blocks") << qint64(9000) << qint64(4096) << qint64(6144);
        QTest::newRow("odd context") << qint64(100) << qint64(33) << qint64(80); // blocks of 16: 20 left
    }

    void slotTruncationCutsAsLlamacppDoes()
    {
        QFETCH(qint64, prompt);
        QFETCH(qint64, context);
        QFETCH(qint64, dropped);
        QCOMPARE(slotTruncatedTokens(prompt, context), dropped);
        if (context > 0)
            QVERIFY(prompt - dropped < context); // llama.cpp asserts it fits afterwards
    }

    void prefillGrowsWithPromptAndIsSuperLinear()
    {
        SimConfig c = modelConfig();
        c.prefillQuadraticMs = 50;
        const ServingModel model(c);
        QCOMPARE(model.prefillNs(1000, 0), 150 * kMs); // 100 linear + 50 quadratic
        QCOMPARE(model.prefillNs(2000, 0), 400 * kMs); // 200 + 200: more than twice as long
        QVERIFY(model.prefillNs(8000, 0) > 4 * model.prefillNs(2000, 0));
        // Cached tokens are not computed again, but the new ones still attend to them.
        QCOMPARE(model.prefillNs(2000, 1000), 100 * kMs + 150 * kMs);
    }

    /// Regression: a client's prompt of billions of tokens made a prefill time beyond int64
    /// nanoseconds (llround undefined, on x86 INT64_MIN: the request finished at once); it is
    /// the longest a run can last now.
    void prefillBeyondInt64IsAYear()
    {
        SimConfig c = modelConfig();
        c.prefillQuadraticMs = 3.6e6;
        const ServingModel model(c);
        QCOMPARE(model.prefillNs(4'000'000'000, 0), tb::limits::kMaxDurationMs * 1'000'000);
    }

    void coldEngineWarmsUpLinearly_data()
    {
        QTest::addColumn<double>("factor");
        QTest::addColumn<qint64>("submitMs");
        QTest::addColumn<qint64>("firstTokenMs");  ///< submit + ttft_ms 10 + prefill 100 ms × slowdown
        QTest::addColumn<double>("secondTokenMs"); ///< + one decode step of 6 ms × slowdown
        // Warm-up 1 s from the first request (at 0): 3× at 0, 2× at 0.5 s, 1× from 1 s.
        QTest::newRow("cold: 2.98× at 10 ms") << 3.0 << qint64(0) << qint64(308) << 308 + 6 * 2.384;
        QTest::newRow("half warm: 2× at 500 ms") << 3.0 << qint64(490) << qint64(700) << 700 + 6 * 1.6;
        QTest::newRow("warm at 1 s") << 3.0 << qint64(990) << qint64(1100) << 1106.0;
        QTest::newRow("long after") << 3.0 << qint64(5000) << qint64(5110) << 5116.0;
        QTest::newRow("factor 1: never cold") << 1.0 << qint64(0) << qint64(110) << 116.0;
    }

    void coldEngineWarmsUpLinearly()
    {
        QFETCH(double, factor);
        QFETCH(qint64, submitMs);
        QFETCH(qint64, firstTokenMs);
        QFETCH(double, secondTokenMs);
        SimConfig c = modelConfig();
        c.warmupS = 1;
        c.warmupFactor = factor;
        ServingModel model(c);
        QVERIFY(model.submit(job(0, 1), 0)); // the first request starts the warm-up clock
        drain(model);
        QVERIFY(model.submit(job(1000, 2), submitMs * kMs));
        const QList<Chunk> chunks = drain(model);
        QCOMPARE(chunks.size(), 2);
        QCOMPARE(double(chunks[0].dueNs) / kMs, double(firstTokenMs));
        QCOMPARE(qRound64(double(chunks[1].dueNs) / kMs * 1000), qRound64(secondTokenMs * 1000));
    }

    void stepTimeGrowsWithBatch()
    {
        const ServingModel model(modelConfig());
        QCOMPARE(model.stepNs(1), 6 * kMs);
        QCOMPARE(model.stepNs(8), 13 * kMs);
    }

    void loneRequestTimeline()
    {
        ServingModel model(modelConfig());
        const auto seq = model.submit(job(500, 4), 0);
        QVERIFY(seq);
        QCOMPARE(model.active(), 1);
        const QList<Chunk> chunks = drain(model);
        QCOMPARE(chunks.size(), 4);
        // First token: 10 ms fixed + 50 ms prefill of 500 tokens; then one 6 ms step per token.
        QCOMPARE(chunks[0].dueNs, 60 * kMs);
        QCOMPARE(chunks[1].dueNs, 66 * kMs);
        QCOMPARE(chunks[3].dueNs, 78 * kMs);
        QVERIFY(chunks[3].last && !chunks[2].last);
        QCOMPARE(model.active(), 0);
    }

    void prefillUnitIsShared()
    {
        ServingModel model(modelConfig());
        const auto a = model.submit(job(1000, 1), 0);
        const auto b = model.submit(job(1000, 1), 0);
        const QList<Chunk> chunks = drain(model);
        // Both wait 10 ms in parallel, then prefill one after the other (100 ms each).
        QCOMPARE(of(chunks, *a).first().dueNs, 110 * kMs);
        QCOMPARE(of(chunks, *b).first().dueNs, 210 * kMs);
    }

    void queueDelaysAndLimitRefuses()
    {
        ServingModel model(modelConfig()); // batch 2, queue 2
        QList<quint64> seqs;
        for (int i = 0; i < 4; ++i)
            seqs << *model.submit(job(0, 3), 0);
        QCOMPARE(model.active(), 2);
        QCOMPARE(model.queued(), 2);
        QVERIFY(!model.submit(job(0, 3), 0)); // the fifth: 503

        const QList<Chunk> chunks = drain(model);
        // Batch of 2: steps of 7 ms; the first two finish at 10 + 2*7 = 24 ms; the queued ones
        // are admitted then and take their 10 ms, so their first token comes at 34 ms.
        QCOMPARE(of(chunks, seqs[0]).last().dueNs, 24 * kMs);
        QCOMPARE(of(chunks, seqs[2]).first().dueNs, 34 * kMs);
        QVERIFY(of(chunks, seqs[3]).first().dueNs >= 34 * kMs);
        QCOMPARE(model.queued(), 0);
        QCOMPARE(model.active(), 0);
    }

    void cancelFreesTheSlotForTheQueue()
    {
        ServingModel model(modelConfig());
        const quint64 a = *model.submit(job(0, 1000), 0);
        const quint64 b = *model.submit(job(0, 1000), 0);
        const quint64 c = *model.submit(job(0, 2), 0);
        QCOMPARE(model.queued(), 1);
        model.takeDue(50 * kMs, [](const Chunk &) {});
        model.cancel(a, 50 * kMs);
        QCOMPARE(model.queued(), 0);
        QCOMPARE(model.active(), 2);
        model.cancel(b, 50 * kMs);
        model.cancel(b, 50 * kMs); // twice is harmless
        const QList<Chunk> chunks = drain(model);
        QCOMPARE(of(chunks, a).size(), 0);
        QCOMPARE(of(chunks, c).first().dueNs, 60 * kMs); // admitted at the cancel, +10 ms
        // A queued request can leave too.
        const quint64 d = *model.submit(job(0, 1000), 0);
        const quint64 e = *model.submit(job(0, 1000), 0);
        const quint64 f = *model.submit(job(0, 1000), 0);
        model.cancel(f, 0);
        QCOMPARE(model.queued(), 0);
        model.cancel(d, 0);
        model.cancel(e, 0);
        QCOMPARE(model.active(), 0);
        QVERIFY(drain(model).isEmpty());
    }

    void chunksPackTokensAndNeverMixReasoning()
    {
        ServingModel model(modelConfig());
        const quint64 seq = *model.submit(job(0, 12, 4, 5), 0);
        QList<qint64> sizes;
        QList<bool> reasoning;
        for (const Chunk &c : of(drain(model), seq)) {
            sizes << c.tokens;
            reasoning << c.reasoning;
        }
        QCOMPARE(sizes, (QList<qint64>{1, 4, 4, 3}));
        QCOMPARE(reasoning, (QList<bool>{true, true, false, false}));
    }

    void lateCallerDoesNotShiftTheSchedule()
    {
        ServingModel model(modelConfig());
        const quint64 seq = *model.submit(job(0, 3), 0);
        QList<qint64> due;
        model.takeDue(500 * kMs, [&](const Chunk &c) { due << c.dueNs; }); // woke up very late
        QCOMPARE(due, (QList<qint64>{10 * kMs, 16 * kMs, 22 * kMs}));
        Q_UNUSED(seq);
    }

    void planIsDeterministicPerIndex()
    {
        SimConfig c;
        c.seed = 9;
        c.errorRate = 0.3;
        c.cutRate = 0.3;
        PlanInput in;
        in.promptTokens = 100;
        for (qint64 i = 0; i < 200; ++i) {
            in.index = i;
            const RequestPlan a = planRequest(c, in);
            const RequestPlan b = planRequest(c, in);
            QCOMPARE(a.outputTokens, b.outputTokens);
            QCOMPARE(a.serverError, b.serverError);
            QCOMPARE(a.cutAfter, b.cutAfter);
            QCOMPARE(a.textSeed, b.textSeed);
        }
        in.index = 5;
        SimConfig other = c;
        other.seed = 10;
        int differences = 0;
        for (qint64 i = 0; i < 50; ++i) {
            in.index = i;
            differences += planRequest(c, in).outputTokens != planRequest(other, in).outputTokens;
        }
        QVERIFY(differences > 25);
    }

    void faultRatesHold_data()
    {
        QTest::addColumn<double>("rate");
        QTest::newRow("0") << 0.0;
        QTest::newRow("0.1") << 0.1;
        QTest::newRow("0.5") << 0.5;
        QTest::newRow("1") << 1.0;
    }

    void faultRatesHold()
    {
        QFETCH(double, rate);
        SimConfig c;
        c.errorRate = rate;
        c.cutRate = rate;
        c.headerDelayMs = 100;
        c.headerDelayRate = rate;
        PlanInput in;
        int errors = 0, cuts = 0, delays = 0;
        const int n = 20000;
        for (qint64 i = 0; i < n; ++i) {
            in.index = i;
            const RequestPlan p = planRequest(c, in);
            errors += p.serverError;
            cuts += p.cutAfter >= 0;
            delays += p.headerDelayNs == 100 * kMs;
            if (p.cutAfter >= 0)
                QVERIFY(p.cutAfter >= 1 && p.cutAfter < p.outputTokens);
        }
        QVERIFY(std::abs(errors / double(n) - rate) < 0.015);
        QVERIFY(std::abs(cuts / double(n) - rate) < 0.015);
        QVERIFY(std::abs(delays / double(n) - rate) < 0.015);
    }

    void outputLengthDistributions_data()
    {
        QTest::addColumn<OutputDistribution>("dist");
        QTest::addColumn<double>("spread");
        QTest::newRow("fixed") << OutputDistribution::Fixed << 0.0;
        QTest::newRow("uniform") << OutputDistribution::Uniform << 0.5;
        QTest::newRow("normal") << OutputDistribution::Normal << 0.2;
        QTest::newRow("exponential") << OutputDistribution::Exponential << 0.0;
    }

    void outputLengthDistributions()
    {
        QFETCH(OutputDistribution, dist);
        QFETCH(double, spread);
        SimConfig c;
        c.outputTokens = 100;
        c.outputRatio = 0.5; // + 0.5 per prompt token: mean 150 for 100-token prompts
        c.outputDist = dist;
        c.outputSpread = spread;
        c.outputMin = 1;
        c.outputMax = 100000;
        PlanInput in;
        in.promptTokens = 100;
        double sum = 0;
        qint64 low = 1 << 30, high = 0;
        const int n = 20000;
        for (qint64 i = 0; i < n; ++i) {
            in.index = i;
            const qint64 tokens = planRequest(c, in).outputTokens;
            sum += double(tokens);
            low = std::min(low, tokens);
            high = std::max(high, tokens);
        }
        QVERIFY2(std::abs(sum / n - 150) < 3, qPrintable(QString::number(sum / n)));
        if (dist == OutputDistribution::Fixed)
            QCOMPARE(low, high);
        if (dist == OutputDistribution::Uniform)
            QVERIFY(low >= 75 && high <= 225 && high - low > 140);
        if (dist == OutputDistribution::Exponential)
            QVERIFY(high > 600);
    }

    void planHonoursRequestLimits()
    {
        SimConfig c;
        c.outputTokens = 50;
        c.outputDist = OutputDistribution::Fixed;
        c.reasoningRatio = 0.6;
        PlanInput in;
        in.maxTokens = 20;
        RequestPlan p = planRequest(c, in);
        QCOMPARE(p.outputTokens, 20);
        QVERIFY(p.stoppedByLength);
        QCOMPARE(p.reasoningTokens, 0); // completions carry none
        in.reasoning = true;
        QCOMPARE(planRequest(c, in).reasoningTokens, 12);
        in.maxTokens = 80;
        p = planRequest(c, in);
        QCOMPARE(p.outputTokens, 50);
        QVERIFY(!p.stoppedByLength);
        in.ignoreEos = true;
        QCOMPARE(planRequest(c, in).outputTokens, 80);
        in.ignoreEos = false;
        in.minTokens = 70;
        QCOMPARE(planRequest(c, in).outputTokens, 70);
        in.maxTokens = 1;
        in.minTokens = 0;
        p = planRequest(c, in);
        QCOMPARE(p.outputTokens, 1);
        QCOMPARE(p.reasoningTokens, 0); // at least one content token
        c.outputMax = 30;
        in.maxTokens.reset();
        QCOMPARE(planRequest(c, in).outputTokens, 30);
    }

    void generatedTokensAreOneTokenEach()
    {
        TextSource text(123);
        std::string out;
        for (qint64 n : {1, 7, 100, 5000}) {
            out.clear();
            text.append(out, n);
            QCOMPARE(tb::ApproxTokenizer::countUtf8(out.data(), out.size()), n);
        }
        std::string a, b;
        TextSource(5).append(a, 50);
        TextSource(5).append(b, 50);
        QCOMPARE(a, b);
    }

    void prefixCacheMatchesWholeBlocksOfSharedPrefixes()
    {
        PrefixCache cache(1'000'000);
        const std::string shared(1000, 'a');
        const auto first = PrefixCache::blocks(shared + "first");
        QCOMPARE(cache.cachedBytes(first), 0u);
        cache.insert(first);
        const auto second = PrefixCache::blocks(shared + "second question");
        // 1000 shared bytes hold 15 whole 64-byte blocks.
        QCOMPARE(cache.cachedBytes(second), 960u);
        // A different start shares nothing, even with the same bytes later.
        QCOMPARE(cache.cachedBytes(PrefixCache::blocks("x" + shared)), 0u);
        // Blocks never split a UTF-8 character.
        const std::string multibyte = std::string(63, 'a') + "é" + std::string(100, 'b');
        const auto blocks = PrefixCache::blocks(multibyte);
        QCOMPARE(blocks.front().endByte, 65u);
    }

    void prefixCacheEvictsLeastRecentlyUsedTails()
    {
        PrefixCache cache(60); // tokens: a few blocks of 16 four-letter words
        std::string a, b;
        for (int i = 0; i < 64; ++i) {
            a += "abc ";
            b += "xyz ";
        }
        const auto blocksA = PrefixCache::blocks(a);
        cache.insert(blocksA);
        QVERIFY(cache.tokens() <= 60);
        QCOMPARE(cache.cachedBytes(blocksA), 192u); // the first three blocks stay, the tail went
        cache.insert(PrefixCache::blocks(b));
        QCOMPARE(cache.cachedBytes(blocksA), 0u);
        PrefixCache off(0);
        off.insert(blocksA);
        QCOMPARE(off.cachedBytes(blocksA), 0u);
    }

    void rateLimiterBuckets()
    {
        RateLimiter limiter(60, 0); // one request per second, burst 60
        for (int i = 0; i < 60; ++i)
            QVERIFY(limiter.admit(10, 0).allowed);
        const RateLimiter::Verdict refused = limiter.admit(10, 0);
        QVERIFY(!refused.allowed);
        QCOMPARE(refused.retryAfterNs, 1000 * kMs);
        QVERIFY(!limiter.admit(10, 500 * kMs).allowed);
        QVERIFY(limiter.admit(10, 1000 * kMs).allowed);

        RateLimiter tokens(0, 6000); // 100 tokens per second
        QVERIFY(tokens.admit(6000, 0).allowed);
        const RateLimiter::Verdict wait = tokens.admit(50, 0);
        QVERIFY(!wait.allowed);
        QCOMPARE(wait.retryAfterNs, 500 * kMs);
        QVERIFY(QString::fromStdString(wait.reason).contains(QStringLiteral("tokens")));
        const RateLimiter::Verdict never = tokens.admit(7000, 0);
        QVERIFY(!never.allowed);
        QVERIFY(QString::fromStdString(never.reason).contains(QStringLiteral("too large")));

        RateLimiter none(0, 0);
        for (int i = 0; i < 1000; ++i)
            QVERIFY(none.admit(1 << 20, 0).allowed);
    }

    void traceLogKeepsTheNewest()
    {
        TraceLog log(3);
        for (int i = 0; i < 5; ++i)
            log.append(RequestTrace());
        QCOMPARE(log.lastSeq(), 5);
        const QList<RequestTrace> all = log.since(0);
        QCOMPARE(all.size(), 3);
        QCOMPARE(all.first().seq, 3);
        QCOMPARE(log.since(4).size(), 1);
        QCOMPARE(log.since(3, 1).first().seq, 4);
        QCOMPARE(log.since(9).size(), 0);
    }

    void httpParserAcceptsSplitAndPipelinedInput_data()
    {
        QTest::addColumn<int>("pieceSize");
        for (int size : {1, 3, 17, 1000})
            QTest::addRow("pieces of %d", size) << size;
    }

    void httpParserAcceptsSplitAndPipelinedInput()
    {
        QFETCH(int, pieceSize);
        const std::string wire =
            "\r\nPOST /v1/completions?x=1&since=42 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
            "Connection: close\r\n\r\nhello"
            "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n"
            "GET http://example.invalid/c HTTP/1.0\nConnection: keep-alive\n\n";
        HttpRequestParser parser(1000);
        std::string buffer;
        std::vector<HttpRequest> requests;
        for (std::size_t at = 0; at < wire.size(); at += std::size_t(pieceSize)) {
            buffer += wire.substr(at, std::size_t(pieceSize));
            while (true) {
                const auto result = parser.feed(buffer);
                QVERIFY2(result != HttpRequestParser::Result::Error, parser.errorText().c_str());
                if (result != HttpRequestParser::Result::Complete)
                    break;
                requests.push_back(std::move(parser.request()));
                parser.reset();
            }
        }
        QCOMPARE(requests.size(), 3u);
        QCOMPARE(requests[0].path, std::string("/v1/completions"));
        QCOMPARE(requests[0].queryValue("since"), std::string("42"));
        QCOMPARE(requests[0].body, std::string("hello"));
        QVERIFY(!requests[0].keepAlive());
        QCOMPARE(*requests[0].header("host"), std::string("a"));
        QCOMPARE(requests[1].body, std::string("abcde"));
        QVERIFY(requests[1].keepAlive());
        QCOMPARE(requests[2].path, std::string("/c"));
        QCOMPARE(requests[2].minorVersion, 0);
        QVERIFY(requests[2].keepAlive());
    }

    void httpParserRefusesBadInput_data()
    {
        QTest::addColumn<QByteArray>("wire");
        QTest::addColumn<int>("status");
        QTest::newRow("no version") << QByteArray("GET /\r\n\r\n") << 400;
        QTest::newRow("bad method") << QByteArray("G(T / HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("HTTP/2") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505;
        QTest::newRow("space in header name") << QByteArray("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n") << 400;
        QTest::newRow("folded header") << QByteArray("GET / HTTP/1.1\r\nA: x\r\n  y\r\n\r\n") << 400;
        QTest::newRow("body too large") << QByteArray("POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n") << 413;
        QTest::newRow("chunk too large") << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n")
                                         << 413;
        QTest::newRow("both lengths")
            << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n") << 400;
        QTest::newRow("gzip coding") << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n") << 501;
        QTest::newRow("conflicting lengths")
            << QByteArray("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n") << 400;
        QTest::newRow("chunk overrun") << QByteArray(
                                              "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n")
                                       << 400;
        QTest::newRow("headers too large") << QByteArray("GET / HTTP/1.1\r\nA: " + QByteArray(70000, 'x')) << 431;
        // Lines that have not ended yet, refused once longer than they may be.
        QTest::newRow("chunk size line too long")
            << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + QByteArray(1100, '1')) << 400;
        QTest::newRow("chunk overrun, unended")
            << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd") << 400;
        QTest::newRow("trailers too large")
            << QByteArray("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + QByteArray(70000, 'x'))
            << 431;
    }

    void httpParserRefusesBadInput()
    {
        QFETCH(QByteArray, wire);
        QFETCH(int, status);
        HttpRequestParser parser(1000);
        std::string buffer = wire.toStdString();
        QCOMPARE(parser.feed(buffer), HttpRequestParser::Result::Error);
        QCOMPARE(parser.errorStatus(), status);
        QVERIFY(!parser.errorText().empty());
    }
};

QTEST_GUILESS_MAIN(TestSimModel)
#include "tst_simmodel.moc"
