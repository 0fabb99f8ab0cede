#include "metrics/runaggregator.h"

#include "config/saturating.h"
#include "formats/numberformat.h"
#include "metrics/exactpercentile.h"
#include "metrics/inflighttracker.h"
#include "metrics/requestmetrics.h"
#include "metrics/tokensinflight.h"
#include "tokenbench/version.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tb {

namespace {

std::size_t secondOf(std::int64_t ns)
{
    return std::size_t(ns / kNsPerSecond);
}

double perSecond(double amount, double windowS)
{
    return windowS > 0 ? amount / windowS : 0;
}

std::optional<double> ratio(std::int64_t numerator, std::int64_t denominator)
{
    if (denominator <= 0)
        return std::nullopt;
    return double(numerator) / double(denominator);
}

/// Exact nearest-rank p50 and p99 of one second's values (NaN without any).
std::pair<double, double> medianAndP99(const std::vector<float> &values, std::vector<float> &scratch)
{
    if (values.empty())
        return {TimeSeriesRow::kNone, TimeSeriesRow::kNone};
    scratch = values;
    const double p99 = exactPercentile(scratch, 0.99);
    return {exactPercentile(scratch, 0.50), p99};
}

LoadSummary stageLoad(const StageConfig &stage, const LoadConfig &load)
{
    LoadSummary l;
    l.mode = stage.mode;
    if (stage.mode == LoadMode::Concurrency) {
        l.concurrency = int(stage.level);
    } else {
        l.rate = stage.level;
        l.arrival = load.arrival;
        l.maxInFlight = load.maxInFlight;
    }
    return l;
}

} // namespace

/// The accumulators behind one SummaryBlock.
struct RunAggregator::Block {
    QString name;
    LoadSummary load;
    std::optional<int> target;
    RequestCounts requests;
    TokenSummary tokens;
    std::int64_t good = 0;
    std::array<LogHistogram, kMetricCount> histograms;
    std::int64_t firstSentNs = -1;
    std::int64_t lastDoneNs = -1; ///< of requests not cancelled
    InFlightTracker inFlight;
    TokensInFlight tokensInFlight;
    /// The exact TTFT and E2E values of successful requests, for the error-adjusted percentiles
    /// (like the histograms, the whole run's are its stages' joined at summary time).
    struct Samples {
        std::vector<float> ttftMs, e2eMs;
    } samples;
    std::vector<std::int64_t> outputTokensPerSecond;
    ConnectionSummary connections;
    double slowConnectNs = 0;           ///< Σ of the slow connects (a double: connects read back may each be years)
    LogHistogram redundancy;            ///< RequestRecord::redundancy of successful requests that have one
    std::int64_t redundancyAbove = 0;   ///< of them, those above quality.redundancy_threshold
    StructuredOutputSummary structured; ///< counts only: the rates are made in summary()
    ImageSummary images;                ///< counts only: the median is made in summary()
    std::vector<double> tokensPerImage; ///< each measured request's image tokens / its images
    ToolCallSummary tools;              ///< counts only, as `structured`
    LogHistogram firstToolCall;         ///< RequestRecord::firstToolCallMs of successful requests

    LogHistogram &histogram(Metric m) { return histograms[std::size_t(m)]; }
    void record(Metric m, const std::optional<double> &value)
    {
        if (value)
            histogram(m).record(*value);
    }

    /// `distributions`: also record into the histograms. The whole run's come from merging its
    /// stages' at summary time, so each value is recorded once (per-chunk values are the bulk of
    /// the work).
    void add(const RequestRecord &r, const TokenTimeline *timeline, bool good, bool distributions);
    /// `stopNs` ≥ 0: Stop ended this block, its window ends there.
    SummaryBlock summary(const std::array<LogHistogram, kMetricCount> &distributions, const Samples &exact,
                         std::int64_t stopNs = -1) const;
};

/// One second of the time series (the parts not kept per block).
struct RunAggregator::Second {
    std::int64_t sent = 0;
    std::int64_t completed = 0;
    std::int64_t failed = 0;
    std::int64_t cancelled = 0;
    std::int64_t good = 0;
    std::int64_t inputTokens = 0;
    int stage = -1;
    // Exact values, not histograms: 4 bytes a request, where a histogram per second would cost
    // about a kilobyte at the few requests a second of a typical LLM run.
    std::vector<float> ttftMs;
    std::vector<float> e2eMs;
    // Their p50/p99, kept until a value is added, so a live view re-reading rows pays only for
    // the seconds that changed.
    mutable std::array<double, 4> percentiles{TimeSeriesRow::kNone, TimeSeriesRow::kNone, TimeSeriesRow::kNone,
                                              TimeSeriesRow::kNone};
    mutable bool stale = false;
};

void RunAggregator::Block::add(const RequestRecord &r, const TokenTimeline *timeline, bool isGood, bool distributions)
{
    if (r.sentNs >= 0)
        firstSentNs = firstSentNs < 0 ? r.sentNs : std::min(firstSentNs, r.sentNs);
    inFlight.add(r.sentNs, r.doneNs);
    if (r.doneNs >= 0)
        tokensInFlight.hold(r.sentNs, r.doneNs, r.promptTokens);

    if (r.status == RequestStatus::Cancelled) {
        ++requests.cancelled;
        ++requests.byError[QLatin1String(statusName(r.status))];
        return;
    }
    if (r.status == RequestStatus::Abandoned) {
        lastDoneNs = std::max(lastDoneNs, r.doneNs); // the run's own load, unlike Stop's cut
        ++requests.abandoned;
        requests.abandonedInPrefill += r.firstGeneratedNs() < 0 ? 1 : 0;
        return;
    }
    lastDoneNs = std::max(lastDoneNs, r.doneNs);
    ++requests.attempted;
    requests.redirected += r.redirects > 0 ? 1 : 0;
    requests.redirects += r.redirects;
    requests.retries += r.retries;
    connections.unendedBodies += r.unendedBody ? 1 : 0;
    if (r.connectNs == 0) {
        ++connections.reused;
    } else if (r.connectNs > 0) {
        ++connections.opened;
        if (double(r.connectNs) >= kSlowConnectMs * 1e6) {
            ++connections.slow;
            connections.slowAtSynRetry += ConnectionSummary::isSynRetryMs(double(r.connectNs) / 1e6) ? 1 : 0;
            slowConnectNs += double(r.connectNs);
        }
    }
    // The phases of every attempted request: a connect that stalled matters whatever followed.
    if (distributions) {
        record(Metric::Blocked, r.blockedMs());
        record(Metric::Connect, r.connectMs());
        record(Metric::Tls, r.tlsMs());
        record(Metric::Sending, r.sendingMs());
        record(Metric::Waiting, r.waitingMs());
        record(Metric::Receiving, r.receivingMs());
    }
    if (r.httpStatus > 0)
        ++requests.byStatus[r.httpStatus];
    if (r.httpVersion > 0)
        ++requests.byHttpVersion[r.httpVersion == 2 ? QStringLiteral("2") : QStringLiteral("1.1")];
    if (!r.ok()) {
        ++requests.failed;
        ++requests.byError[QLatin1String(statusName(r.status))];
        if (r.retryAfterS >= 0 && distributions)
            histogram(Metric::RetryAfter).record(r.retryAfterS);
        return;
    }
    ++requests.ok;
    good += isGood ? 1 : 0;
    if (!r.finishReason.isEmpty())
        ++requests.byFinishReason[r.finishReason];

    requests.inputs += r.inputs;
    tokens.input += r.promptTokens;
    tokens.output += r.completionTokens;
    tokens.cached += r.cachedTokens;
    tokens.reasoning += r.reasoningTokens;
    tokens.reasoningHidden += r.hiddenReasoningTokens;
    switch (r.tokenSource) {
    case TokenSource::Usage:
        ++tokens.fromUsage;
        break;
    case TokenSource::Tokenizer:
        ++tokens.fromTokenizer;
        break;
    case TokenSource::Chunks:
        ++tokens.fromChunks;
        break;
    case TokenSource::Estimate:
        ++tokens.fromEstimate;
        break;
    }
    tokens.cachedFromUsage += r.cachedSource == CacheSource::Usage ? 1 : 0;
    tokens.cachedFromTimings += r.cachedSource == CacheSource::Timings ? 1 : 0;
    switch (r.promptTokenSource) {
    case TokenSource::Usage:
        ++tokens.promptFromUsage;
        break;
    case TokenSource::Tokenizer:
        ++tokens.promptFromTokenizer;
        break;
    case TokenSource::Chunks:
    case TokenSource::Estimate:
        ++tokens.promptEstimated;
        break;
    }
    tokens.promptMin = requests.ok == 1 ? r.promptTokens : std::min(tokens.promptMin, r.promptTokens);
    tokens.promptMax = std::max(tokens.promptMax, r.promptTokens);
    timeline->forEachArrival([this, &r](std::int64_t tNs, std::int64_t n) {
        tokensInFlight.hold(tNs, r.doneNs, n);
        if (tNs < 0 || secondOf(tNs) >= std::size_t(kMaxTimeSeriesSeconds))
            return;
        const std::size_t s = secondOf(tNs);
        if (s >= outputTokensPerSecond.size())
            outputTokensPerSecond.resize(s + 1, 0);
        outputTokensPerSecond[s] += n;
    });
    if (!distributions)
        return;

    record(Metric::Ttfb, r.ttfbMs());
    record(Metric::Ttft, r.ttftMs());
    if (const auto ttft = r.ttftMs())
        samples.ttftMs.push_back(float(*ttft));
    if (const auto e2e = r.e2eMs())
        samples.e2eMs.push_back(float(*e2e));
    record(Metric::Ttfo, r.ttfoMs());
    record(Metric::E2e, r.e2eMs());
    record(Metric::Tpot, r.tpotMs());
    record(Metric::DecodeSpeed, r.decodeTokensPerS());
    record(Metric::QueueDelay, r.queueMs());
    // Open loop: from the schedule; closed loop: from when the user was ready — either way what
    // the user waited, a connect that stalled included (docs/SPEC.md §3 TTFT).
    record(Metric::TtftFromSchedule, r.ttftFromScheduleMs());
    record(Metric::E2eFromSchedule, r.e2eFromScheduleMs());
    timeline->forEachItl(
        [this](double ms, std::int64_t tokens) { histogram(Metric::Itl).record(ms, std::uint64_t(tokens)); });
    timeline->forEachIcl([this](double ms) { histogram(Metric::Icl).record(ms); });
    for (const std::int64_t n : timeline->tokensPerChunk())
        histogram(Metric::TokensPerChunk).record(double(n));
}

SummaryBlock RunAggregator::Block::summary(const std::array<LogHistogram, kMetricCount> &distributions,
                                           const Samples &exact, std::int64_t stopNs) const
{
    SummaryBlock b;
    b.name = name;
    b.load = load;
    const std::int64_t endNs = std::max(lastDoneNs, stopNs);
    b.windowS = firstSentNs >= 0 && endNs > firstSentNs ? double(endNs - firstSentNs) / 1e9 : 0;
    b.requests = requests;
    b.tokens = tokens;
    b.tokens.outInRatio = ratio(tokens.output, tokens.input);
    b.tokens.cacheHitRatio = ratio(tokens.cached, tokens.input);

    ThroughputSummary &t = b.throughput;
    t.requestsPerS = perSecond(double(requests.ok), b.windowS);
    t.outputTokensPerS = perSecond(double(tokens.output), b.windowS);
    t.inputTokensPerS = perSecond(double(tokens.input), b.windowS);
    t.totalTokensPerS = perSecond(double(tokens.input + tokens.output), b.windowS);
    if (!outputTokensPerSecond.empty())
        t.peakOutputTokensPerS = double(*std::max_element(outputTokensPerSecond.begin(), outputTokensPerSecond.end()));
    t.good = good;
    t.goodputRequestsPerS = perSecond(double(good), b.windowS);
    t.inputsPerS = perSecond(double(requests.inputs), b.windowS);
    t.goodFraction = ratio(good, requests.attempted);

    b.connections = connections;
    if (connections.slow > 0)
        b.connections.slowMeanMs = slowConnectNs / double(connections.slow) / 1e6;
    b.concurrency.target = target;
    b.concurrency.peakInFlight = inFlight.peak();
    b.concurrency.meanInFlight = perSecond(double(inFlight.busyNs()) / 1e9, b.windowS);
    b.concurrency.meanTokensInFlight = perSecond(tokensInFlight.tokenSeconds(), b.windowS);
    b.concurrency.peakTokensInFlight = tokensInFlight.peakSecondMean();
    b.errorAdjustedTtft = ErrorAdjusted::of(exact.ttftMs, std::uint64_t(requests.failed));
    b.errorAdjustedE2e = ErrorAdjusted::of(exact.e2eMs, std::uint64_t(requests.failed));

    b.histograms = distributions;
    for (std::size_t i = 0; i < kMetricCount; ++i)
        b.stats[i] = LatencyStats::fromHistogram(distributions[i]);
    if (!redundancy.isEmpty())
        b.redundancy = RedundancySummary{std::int64_t(redundancy.count()),
                                         redundancy.mean(),
                                         redundancy.percentile(0.5),
                                         redundancy.percentile(0.9),
                                         0,
                                         redundancyAbove,
                                         {}};
    if (structured.requests > 0) {
        StructuredOutputSummary &s = b.structuredOutput.emplace(structured);
        s.qualifiedGoodputPerS = perSecond(double(s.qualifiedGood), b.windowS);
        s.qualifiedGoodFraction = ratio(s.qualifiedGood, requests.attempted).value_or(0);
    }
    if (images.requests > 0) {
        ImageSummary &s = b.images.emplace(images);
        std::vector<double> values = tokensPerImage;
        s.tokensPerImageMedian = values.empty() ? 0 : exactPercentile(values, 0.5);
    }
    if (tools.requests > 0) {
        ToolCallSummary &s = b.toolCalls.emplace(tools);
        s.firstToolCallMs = LatencyStats::fromHistogram(firstToolCall);
        s.qualifiedGoodputPerS = perSecond(double(s.qualifiedGood), b.windowS);
        s.qualifiedGoodFraction = ratio(s.qualifiedGood, requests.attempted).value_or(0);
    }
    return b;
}

RunAggregator::RunAggregator(RunInfo info)
    : m_info(std::move(info))
{
    if (m_info.stages.isEmpty())
        m_info.stages = effectiveStages(m_info.config.load);
    // Never negative; said so, or GCC's -O3 sees a resize by a size_t from a negative count.
    const auto stageCount = std::size_t(std::max<qsizetype>(0, m_info.stages.size()));
    m_blocks.resize(stageCount + 1);
    m_stageStartNs.resize(stageCount, -1);

    Block &total = m_blocks[0];
    std::optional<int> largestUsers;
    for (qsizetype i = 0; i < m_info.stages.size(); ++i) {
        const StageConfig &stage = m_info.stages[i];
        Block &b = m_blocks[std::size_t(i) + 1];
        b.name = stage.name;
        b.load = stageLoad(stage, m_info.config.load);
        b.target = b.load.concurrency;
        if (b.target)
            largestUsers = std::max(largestUsers.value_or(0), *b.target);
    }
    // The whole run: as its one stage, or, for a staged run, its mode and stage list.
    total.load =
        m_info.stages.size() == 1 ? m_blocks[1].load : LoadSummary{m_info.stages.first().mode, {}, {}, {}, 0, {}};
    total.load.stages = formatStages(m_info.stages);
    total.target = largestUsers;
    if (isContextSweep(m_info.stages))
        m_context.resize(std::size_t(m_info.stages.size()));
    // Synthetic prompts have a size asked for, system prompt included; what the server measured
    // far below it was truncated.
    const PromptConfig &prompt = m_info.config.prompt;
    const bool synthetic =
        prompt.promptFile.isEmpty() && prompt.dataset.isEmpty() && m_info.config.load.trace.isEmpty();
    m_truncation.resize(std::size_t(m_info.stages.size()));
    for (qsizetype i = 0; i < m_info.stages.size(); ++i) {
        const int size = m_info.stages[i].promptTokens > 0 ? m_info.stages[i].promptTokens : prompt.promptTokens;
        if (synthetic && size > 0)
            m_truncation[std::size_t(i)].requested = std::int64_t(size) + prompt.systemTokens;
    }

    if (m_info.config.load.sliceMs > 0)
        m_slices.emplace(saturatingRound(double(m_info.config.load.sliceMs) * 1e6, 1));
    if (m_info.config.load.cancelRate > 0)
        m_cancellation.emplace(m_info.config.load.cancelRate, m_info.config.load.cancelAfter);
    if (!m_info.config.target.replicas.isEmpty()) {
        for (const QString &url : m_info.config.target.instanceUrls()) {
            Block &b = m_instances.emplace_back();
            b.name = url;
            b.load = total.load;
        }
    }
    if (const QStringList models = m_info.modelList(); models.size() > 1) {
        for (const QString &model : models) {
            Block &b = m_models.emplace_back();
            b.name = model;
            b.load = total.load;
        }
    }
}

RunAggregator::~RunAggregator() = default;
RunAggregator::RunAggregator(RunAggregator &&) noexcept = default;
RunAggregator &RunAggregator::operator=(RunAggregator &&) noexcept = default;

bool RunAggregator::isGood(const RequestRecord &r) const
{
    const auto meets = [](const std::optional<double> &limit, const std::optional<double> &value) {
        return !limit || !value || *value <= *limit;
    };
    const SloConfig &slo = m_info.config.slo;
    return r.ok() && meets(slo.ttftMs, r.ttftMs()) && meets(slo.tpotMs, r.tpotMs()) && meets(slo.e2eMs, r.e2eMs());
}

RunAggregator::Second *RunAggregator::second(std::int64_t ns)
{
    const std::size_t s = secondOf(std::max<std::int64_t>(ns, 0));
    if (s >= std::size_t(kMaxTimeSeriesSeconds)) {
        ++m_pastSeries;
        return nullptr;
    }
    if (s >= m_seconds.size())
        m_seconds.resize(s + 1);
    return &m_seconds[s];
}

void RunAggregator::markStageStarted(int stage, std::int64_t ns)
{
    if (stage >= 0 && std::size_t(stage) < m_stageStartNs.size())
        m_stageStartNs[std::size_t(stage)] = ns;
}

void RunAggregator::markStopped(std::int64_t ns, const QString &reason)
{
    if (m_stoppedNs < 0) {
        m_stoppedNs = ns;
        m_stopReason = reason;
    }
}

std::int64_t RunAggregator::stoppedNs() const
{
    return m_stoppedNs >= 0 ? m_stoppedNs : m_firstCancelledNs;
}

void RunAggregator::markPartial(RunSummary &summary, std::int64_t stopNs) const
{
    // The stage running at Stop: the last one begun by then, or, unmarked, the last with requests.
    int cut = -1;
    for (std::size_t i = 0; i < m_stageStartNs.size(); ++i) {
        const std::int64_t started = m_stageStartNs[i];
        if (started >= 0 && started <= stopNs)
            cut = int(i);
    }
    if (cut < 0) {
        for (std::size_t i = 0; i < summary.stages.size(); ++i) {
            const RequestCounts &r = summary.stages[i].requests;
            if (r.attempted + r.cancelled > 0)
                cut = int(i);
        }
    }
    const auto planned = [](const StageConfig &stage) {
        return StopSummary{0, double(stage.durationMs) / 1000, stage.requests, {}};
    };
    const auto startOf = [this](std::size_t i) {
        return m_stageStartNs[i] >= 0 ? m_stageStartNs[i] : m_blocks[i + 1].firstSentNs;
    };
    std::optional<int> largestUsers;
    for (std::size_t i = 0; i < summary.stages.size(); ++i) {
        SummaryBlock &stage = summary.stages[i];
        if (int(i) > cut) {
            stage.reached = false;
            continue;
        }
        if (stage.concurrency.target)
            largestUsers = std::max(largestUsers.value_or(0), *stage.concurrency.target);
        if (int(i) < cut)
            continue;
        StopSummary stopped = planned(m_info.stages.at(qsizetype(i)));
        const std::int64_t started = startOf(i);
        stopped.afterS = started >= 0 && stopNs > started ? double(stopNs - started) / 1e9 : 0;
        // Its window ends at Stop.
        stage = m_blocks[i + 1].summary(m_blocks[i + 1].histograms, m_blocks[i + 1].samples, stopNs);
        stopped.reason = m_stopReason;
        stage.stopped = stopped;
    }
    // What the run as a whole was to do: its stages' durations when each had one, likewise counts.
    StopSummary whole;
    bool timed = true;
    bool counted = true;
    for (const StageConfig &stage : m_info.stages) {
        whole.plannedS += double(stage.durationMs) / 1000;
        whole.plannedRequests += stage.requests;
        timed = timed && stage.durationMs > 0;
        counted = counted && stage.requests > 0;
    }
    whole.plannedS = timed ? whole.plannedS : 0;
    whole.plannedRequests = counted ? whole.plannedRequests : 0;
    const std::int64_t loadStart =
        !m_stageStartNs.empty() && m_stageStartNs[0] >= 0 ? m_stageStartNs[0] : m_blocks[0].firstSentNs;
    whole.afterS = loadStart >= 0 && stopNs > loadStart ? double(stopNs - loadStart) / 1e9 : 0;
    whole.reason = m_stopReason;
    summary.total.stopped = whole;
    summary.total.concurrency.target = largestUsers;
}

void RunAggregator::add(const RequestRecord &r)
{
    ++m_records;
    if (m_sentFromNs >= 0 && (r.sentNs < m_sentFromNs || r.sentNs >= m_sentToNs))
        return;
    m_streamsPerConnection = std::max(m_streamsPerConnection, r.streams);
    const bool hasStage = r.stage >= 0 && r.stage < m_info.stages.size();
    Block *stage = hasStage ? &m_blocks[std::size_t(r.stage) + 1] : nullptr;
    Block *instance = r.instance >= 0 && std::size_t(r.instance) < m_instances.size()
                          ? &m_instances[std::size_t(r.instance)]
                          : nullptr;
    Block *model = r.model >= 0 && std::size_t(r.model) < m_models.size() ? &m_models[std::size_t(r.model)] : nullptr;
    if (r.warmup) {
        ++m_blocks[0].requests.warmup;
        if (stage)
            ++stage->requests.warmup;
        if (instance)
            ++instance->requests.warmup;
        if (model)
            ++model->requests.warmup;
        return;
    }
    if (r.status == RequestStatus::Cancelled && r.doneNs >= 0)
        m_firstCancelledNs = m_firstCancelledNs < 0 ? r.doneNs : std::min(m_firstCancelledNs, r.doneNs);
    const bool good = isGood(r);
    const std::optional<TokenTimeline> timeline =
        r.ok() ? std::optional<TokenTimeline>(std::in_place, r) : std::nullopt;
    const TokenTimeline *t = timeline ? &*timeline : nullptr;
    // Records of an unknown stage (none come from the engine) keep their distributions in the total.
    m_blocks[0].add(r, t, good, !stage);
    if (stage)
        stage->add(r, t, good, true);
    if (instance)
        instance->add(r, t, good, true);
    if (model)
        model->add(r, t, good, true);
    if (r.ok() && r.redundancy >= 0) {
        const bool above = r.redundancy > m_info.config.quality.redundancyThreshold;
        for (Block *b : {&m_blocks[0], stage, instance, model}) {
            if (b) {
                b->redundancy.record(r.redundancy);
                b->redundancyAbove += above ? 1 : 0;
            }
        }
    }
    if (r.ok() && r.outputCheck != OutputCheck::None) {
        for (Block *b : {&m_blocks[0], stage, instance, model}) {
            if (!b)
                continue;
            StructuredOutputSummary &s = b->structured;
            ++s.requests;
            s.notChecked += r.outputCheck == OutputCheck::NotChecked ? 1 : 0;
            s.validJson += r.outputCheck == OutputCheck::Valid || r.outputCheck == OutputCheck::SchemaInvalid ? 1 : 0;
            s.schemaValid += r.outputCheck == OutputCheck::Valid ? 1 : 0;
            s.qualifiedGood += good && r.outputCheck == OutputCheck::Valid ? 1 : 0;
        }
    }
    if (r.images > 0 && r.status != RequestStatus::Cancelled) {
        for (Block *b : {&m_blocks[0], stage, instance}) {
            if (!b)
                continue;
            ImageSummary &s = b->images;
            ++s.requests;
            s.images += r.images;
            s.imageBytes = saturatingAdd(s.imageBytes, r.imageBytes);
            if (r.ok() && r.imageTokens) {
                ++s.measured;
                s.measuredImages += r.images;
                s.imageTokens = saturatingAdd(s.imageTokens, *r.imageTokens);
                b->tokensPerImage.push_back(double(*r.imageTokens) / r.images);
            }
        }
    }
    if (r.ok() && r.toolCallCheck != ToolCallCheck::NotAsked) {
        const ToolCallCheck check = r.toolCallCheck;
        const bool called = check != ToolCallCheck::None && check != ToolCallCheck::Missing;
        for (Block *b : {&m_blocks[0], stage, instance}) {
            if (!b)
                continue;
            ToolCallSummary &s = b->tools;
            ++s.requests;
            s.withCalls += called ? 1 : 0;
            s.calls += r.toolCalls;
            s.notChecked += check == ToolCallCheck::NotChecked ? 1 : 0;
            s.valid += check == ToolCallCheck::Valid ? 1 : 0;
            s.invalidJson += check == ToolCallCheck::InvalidJson ? 1 : 0;
            s.schemaMismatch += check == ToolCallCheck::SchemaMismatch ? 1 : 0;
            s.missing += check == ToolCallCheck::Missing ? 1 : 0;
            s.tokens += called ? r.completionTokens : 0;
            s.qualifiedGood += good && (check == ToolCallCheck::Valid || check == ToolCallCheck::None) ? 1 : 0;
            if (const auto ms = r.firstToolCallMs())
                b->firstToolCall.record(*ms);
        }
    }
    if (m_slices)
        m_slices->add(r, t);
    if (m_cancellation)
        m_cancellation->add(r);
    if (r.ok() && r.turn > 0 && r.turn <= limits::kMaxTurns) {
        if (std::size_t(r.turn) > m_turns.size())
            m_turns.resize(std::size_t(r.turn));
        Turn &turn = m_turns[std::size_t(r.turn) - 1];
        ++turn.requests;
        if (const auto ttft = r.ttftMs())
            turn.ttftMs.record(*ttft);
        turn.promptTokens.record(double(r.promptTokens));
        turn.cachedTokens.record(double(r.cachedTokens));
        turn.completionTokens.record(double(r.completionTokens));
        turn.promptTotal = saturatingAdd(turn.promptTotal, std::max<std::int64_t>(r.promptTokens, 0));
        turn.completionTotal = saturatingAdd(turn.completionTotal, std::max<std::int64_t>(r.completionTokens, 0));
        if (r.toolResults > 0)
            ++turn.toolResults;
    }
    // Only the server's count says what it read; the client's own is what it sent.
    const bool truncated =
        hasStage && r.ok() && r.promptTokenSource == TokenSource::Usage &&
        ContextSweepSummary::isTruncated(r.promptTokens, m_truncation[std::size_t(r.stage)].requested);
    if (truncated) {
        Truncation &t = m_truncation[std::size_t(r.stage)];
        t.measuredMin = t.requests == 0 ? r.promptTokens : std::min(t.measuredMin, r.promptTokens);
        t.measuredMax = std::max(t.measuredMax, r.promptTokens);
        ++t.requests;
    }
    if (hasStage && !m_context.empty() && r.ok()) {
        if (const auto ttft = r.ttftMs()) {
            ContextStage &c = m_context[std::size_t(r.stage)];
            ++c.requests;
            c.promptTokens.record(double(r.promptTokens));
            std::vector<ContextSweepSummary::Point> &kept = truncated ? c.excluded : c.points;
            if (kept.size() < ContextSweepSummary::kMaxPointsPerStage)
                kept.push_back({double(r.promptTokens), *ttft});
        }
    }

    if (Second *s = r.sentNs >= 0 ? second(r.sentNs) : nullptr) {
        ++s->sent;
        s->stage = std::max(s->stage, r.stage);
        if (r.ok())
            s->inputTokens += r.promptTokens;
    }
    if (Second *s = r.doneNs >= 0 ? second(r.doneNs) : nullptr) {
        // An abandoned request is neither completed nor failed: in the series only while in flight.
        if (r.status == RequestStatus::Cancelled) {
            ++s->cancelled;
        } else if (!r.ok()) {
            s->failed += r.status == RequestStatus::Abandoned ? 0 : 1;
        } else {
            ++s->completed;
            s->good += good ? 1 : 0;
            if (const auto ttft = r.ttftMs())
                s->ttftMs.push_back(float(*ttft));
            if (const auto e2e = r.e2eMs())
                s->e2eMs.push_back(float(*e2e));
            s->stale = true;
        }
    }
}

ContextSweepSummary RunAggregator::contextSweep(const RunSummary &summary) const
{
    ContextSweepSummary sweep;
    std::vector<double> x, y;
    QStringList leftOut;
    for (std::size_t i = 0; i < m_context.size(); ++i) {
        const ContextStage &c = m_context[i];
        // A stage Stop cut measured its first requests only: a fit through them is not the stage's.
        if (summary.stages.at(i).stopped) {
            if (c.requests > 0)
                leftOut
                    << QStringLiteral("%1 left out: %2").arg(summary.stages[i].name, summary.stages[i].partialNote());
            continue;
        }
        for (const ContextSweepSummary::Point &p : c.points) {
            sweep.points.push_back(p);
            x.push_back(p.promptTokens);
            y.push_back(p.ttftMs);
        }
        sweep.excluded.insert(sweep.excluded.end(), c.excluded.begin(), c.excluded.end());
        if (c.requests == 0)
            continue;
        ContextSweepSummary::Stage stage;
        stage.stage = int(i);
        stage.name = m_info.stages.at(qsizetype(i)).name;
        stage.requests = c.requests;
        stage.requestedTokens = m_truncation[i].requested;
        stage.truncated = m_truncation[i].requests;
        stage.promptTokens = LatencyStats::fromHistogram(c.promptTokens).p50;
        stage.ttftP50Ms = summary.stages.at(i).stat(Metric::Ttft).p50;
        stage.prefillTokensPerS = stage.ttftP50Ms > 0 ? stage.promptTokens / (stage.ttftP50Ms / 1000) : 0;
        sweep.stages.push_back(stage);
    }
    sweep.fit = fitPowerLaw(x, y);
    sweep.leftOut = leftOut.join(QStringLiteral("; "));
    // The marginal prefill rate: one more prompt token costs the fit's slope in TTFT.
    for (ContextSweepSummary::Stage &stage : sweep.stages) {
        const double slope = sweep.fit.ok ? sweep.fit.slopeAt(stage.promptTokens) : 0;
        if (slope > 0 && std::isfinite(slope))
            stage.fitPrefillTokensPerS = 1000 / slope;
    }
    return sweep;
}

QString RunAggregator::slowConnectWarning(const SummaryBlock &total)
{
    const ConnectionSummary &c = total.connections;
    if (c.slow == 0)
        return {};
    const double s = c.slowMeanMs / 1000;
    // Most of them at a retry's time (a loaded listener drops some SYNs twice: 1 s and 3 s mixed,
    // a mean of 1.43 s), or their mean there (summaries from before the count).
    const bool synRetry = 2 * c.slowAtSynRetry >= c.slow || ConnectionSummary::isSynRetryMs(c.slowMeanMs);
    return QStringLiteral("%1 of %2 connects took ≈%3 s%4: %5. Users waited for it: it is in the requests' "
                          "blocked + connect phases and TTFT from schedule, not in TTFT (sent → first token)")
        .arg(c.slow)
        .arg(c.opened)
        .arg(formatNumber(s, 3))
        .arg(total.stat(Metric::Connect).count > 0
                 ? QStringLiteral(" (all connects p50 %1 ms)").arg(formatNumber(total.stat(Metric::Connect).p50, 3))
                 : QString())
        .arg(synRetry ? QStringLiteral("the server's accept queue overflowed and the kernel retried the SYN (a listen "
                                       "backlog smaller than the users connecting at once: llama.cpp's is 5)")
                      : QStringLiteral("connects this slow are the network's or an overloaded server's"));
}

QStringList RunAggregator::promptWarnings(const SummaryBlock &total) const
{
    QStringList warnings;
    const double cachedPerRequest = total.requests.ok > 0 ? double(total.tokens.cached) / double(total.requests.ok) : 0;
    const QString hits = QStringLiteral("%1% of prompt tokens were cached")
                             .arg(100.0 * total.tokens.cacheHitRatio.value_or(0), 0, 'f', 1);
    if (m_info.saltReplayed) {
        warnings << QStringLiteral("this run replays prompt salt %1 (--prompt-salt): its prompts are an earlier "
                                   "run's, which the server's prefix cache may still hold (%2), so its TTFT is not a "
                                   "cold run's")
                        .arg(m_info.config.prompt.salt, hits);
    } else if (m_info.sharedPromptTokens && m_info.config.load.turns <= 1) {
        // Each request's own part is unique to it and to the run (the salt): only the shared part
        // may come from the cache — counted by the client's tokenizer, which the server's may
        // exceed by a fifth — with the chat template's first tokens and a cache block's rounding
        // (blocks of 16 or so).
        const std::int64_t shared = *m_info.sharedPromptTokens;
        if (cachedPerRequest > 1.25 * double(shared) + 32) {
            const QString shares =
                shared > 0 ? QStringLiteral("this run's prompts share at most their first %1 tokens (system prompt and "
                                            "shared prefix), %2 per request were cached")
                                 .arg(shared)
                                 .arg(cachedPerRequest, 0, 'f', 0)
                           : QStringLiteral("every prompt of this run is unique to it (no shared prefix or system "
                                            "prompt)");
            warnings << QStringLiteral("unexpected cache hits: %1, though %2: the server's prefix cache was warmed by "
                                       "another client or by a run with the same prompt salt")
                            .arg(hits, shares);
        }
    }
    QStringList stages;
    std::int64_t truncated = 0;
    for (std::size_t i = 0; i < m_truncation.size(); ++i) {
        const Truncation &t = m_truncation[i];
        if (t.requests == 0)
            continue;
        truncated += t.requests;
        const QString measured = t.measuredMin == t.measuredMax
                                     ? QString::number(t.measuredMin)
                                     : QStringLiteral("%1–%2").arg(t.measuredMin).arg(t.measuredMax);
        stages << QStringLiteral("%1%2 requests measured %3 of %4 tokens")
                      .arg(m_truncation.size() > 1 ? m_info.stages.at(qsizetype(i)).name + QStringLiteral(": ")
                                                   : QString())
                      .arg(t.requests)
                      .arg(measured)
                      .arg(t.requested);
    }
    if (truncated > 0)
        warnings << QStringLiteral("the server truncated prompts: check its context size (%1 of %2 requests came back "
                                   "with under %3% of the prompt tokens asked for; %4)")
                        .arg(truncated)
                        .arg(total.requests.ok)
                        .arg(int(ContextSweepSummary::kTruncatedBelow * 100))
                        .arg(stages.join(QStringLiteral("; ")));
    return warnings;
}

QStringList RunAggregator::distributionWarnings(RunSummary &summary)
{
    QStringList warnings;
    const SummaryBlock &total = summary.total;
    for (const auto &[metric, key, samples] :
         {std::tuple{Metric::Ttft, "ttft", "requests"}, std::tuple{Metric::Itl, "itl", "gaps"}}) {
        if (const auto b = Bimodality::of(total.histogram(metric))) {
            summary.bimodal[QLatin1String(key)] = *b;
            // A low minor ITL mode is tokens that came bunched after a late one (the sender's or the
            // network's catch-up), the other side of ordinary jitter: recorded, not warned of.
            if (metric == Metric::Itl && !b->minorHigh)
                continue;
            warnings << QStringLiteral("%1 is bimodal: %2%3")
                            .arg(metricLabel(metric), b->describe(QLatin1String(samples)),
                                 metric == Metric::Itl ? QStringLiteral(" — periodic stalls?") : QString());
        }
    }
    const LatencyStats &perChunk = total.stat(Metric::TokensPerChunk);
    if (perChunk.count > 0 && perChunk.mean > kTokensPerChunkWarning)
        warnings << QStringLiteral("the server sent %1 tokens per chunk: ITL is per token (gap ÷ tokens), ICL per "
                                   "chunk; tools that count ITL per chunk report ~%1× higher")
                        .arg(perChunk.mean, 0, 'f', 1);
    return warnings;
}

RunSummary RunAggregator::summary() const
{
    RunSummary s;
    s.toolName = QLatin1String(kToolName);
    s.toolVersion = m_info.toolVersion.isEmpty() ? version() : m_info.toolVersion;
    s.targetName = m_info.config.target.displayName();
    s.targetUrl = m_info.config.target.url;
    s.api = apiKindName(m_info.config.target.api);
    s.model = m_info.config.target.model;
    s.connection = m_info.connection;
    s.io = m_info.io;
    s.connection.streamsPerConnection = m_streamsPerConnection;
    s.startedAt = m_info.startedAtText();
    s.promptSizing = m_promptSizing;
    std::array<LogHistogram, kMetricCount> whole = m_blocks[0].histograms;
    Block::Samples wholeSamples = m_blocks[0].samples;
    for (std::size_t i = 1; i < m_blocks.size(); ++i) {
        const Block &stage = m_blocks[i];
        s.stages.push_back(stage.summary(stage.histograms, stage.samples));
        for (std::size_t m = 0; m < kMetricCount; ++m)
            whole[m].merge(stage.histograms[m]);
        wholeSamples.ttftMs.insert(wholeSamples.ttftMs.end(), stage.samples.ttftMs.begin(), stage.samples.ttftMs.end());
        wholeSamples.e2eMs.insert(wholeSamples.e2eMs.end(), stage.samples.e2eMs.begin(), stage.samples.e2eMs.end());
    }
    const std::int64_t stopNs = stoppedNs();
    s.total = m_blocks[0].summary(whole, wholeSamples, stopNs);
    if (stopNs >= 0)
        markPartial(s, stopNs);
    // In ALPN's words over TLS (what was offered says it was TLS), in clear h2c.
    for (const auto &[version, count] : s.total.requests.byHttpVersion)
        s.connection.negotiated << (version == QLatin1String("2")
                                        ? (s.connection.alpn.isEmpty() ? QStringLiteral("h2c") : QStringLiteral("h2"))
                                        : QStringLiteral("http/1.1"));
    const Pricing &prices = m_info.config.target.pricing;
    const QString redundancyUnit =
        m_info.config.target.tokenizer.isEmpty() ? QStringLiteral("words") : QStringLiteral("tokens");
    const auto finishBlock = [&](SummaryBlock &b) {
        b.cost = CostSummary::of(prices, b.tokens, b.requests.ok, b.throughput.good);
        if (b.redundancy) {
            b.redundancy->threshold = m_info.config.quality.redundancyThreshold;
            b.redundancy->unit = redundancyUnit;
        }
    };
    finishBlock(s.total);
    for (SummaryBlock &b : s.stages)
        finishBlock(b);
    s.workload = m_info.workload;
    s.warnings << m_info.preRunWarnings;
    s.warnings << promptWarnings(s.total);
    if (const QString slow = slowConnectWarning(s.total); !slow.isEmpty())
        s.warnings << slow;
    s.warnings << distributionWarnings(s);
    if (m_slices) {
        s.sliceS = double(m_slices->sliceNs()) / 1e9;
        s.slices = m_slices->summary(std::max(m_blocks[0].lastDoneNs, stopNs));
        if (m_slices->beyond() > 0)
            s.warnings << QStringLiteral("the slices cover the run's first %1 s (%2 slices): %3 events after that "
                                         "(requests done, chunks) are in no slice")
                              .arg(formatNumber(s.sliceS * double(SliceAggregator::kMaxSlices), 6, 3))
                              .arg(SliceAggregator::kMaxSlices)
                              .arg(m_slices->beyond());
    }
    if (m_pastSeries > 0)
        s.warnings << QStringLiteral("the time series covers the run's first %1 days: %2 events after that (requests "
                                     "sent or done) count in every figure but the per-second ones")
                          .arg(kMaxTimeSeriesSeconds / (24 * 3600))
                          .arg(m_pastSeries);
    if (const std::int64_t unended = s.total.connections.unendedBodies; unended > 0)
        s.warnings << QStringLiteral("%1 of %2 responses did not end their HTTP body after the stream's end ([DONE], "
                                     "the API's finish event, a whole JSON body): connection closed, and each "
                                     "response counted as complete at its end. The server (or a proxy) left a chunked "
                                     "body without its last chunk, sent a Content-Length larger than the body, or kept "
                                     "the connection open")
                          .arg(unended)
                          .arg(s.total.requests.attempted);
    for (std::size_t i = 0; i < m_turns.size(); ++i) {
        const Turn &t = m_turns[i];
        TurnSummary turn;
        turn.turn = int(i) + 1;
        turn.requests = t.requests;
        turn.ttftMs = LatencyStats::fromHistogram(t.ttftMs);
        turn.promptTokens = LatencyStats::fromHistogram(t.promptTokens);
        turn.cachedTokens = LatencyStats::fromHistogram(t.cachedTokens);
        turn.completionTokens = LatencyStats::fromHistogram(t.completionTokens);
        turn.toolResults = t.toolResults;
        turn.promptTokensTotal = t.promptTotal;
        turn.completionTokensTotal = t.completionTotal;
        s.turns.push_back(turn);
    }
    if (!m_context.empty())
        s.contextSweep = contextSweep(s);
    if (m_cancellation)
        s.cancellation = m_cancellation->summary();
    // A staged run changes its load on purpose: no one window of it is steady.
    if (m_info.stages.size() == 1 && m_sentFromNs < 0)
        s.steady = SteadySummary{SteadyWindow::find(timeSeries()), SteadyWindow::method(), std::nullopt};
    if (!m_instances.empty()) {
        s.targetReplicas = m_info.config.target.replicas;
        s.balance = balanceName(m_info.config.target.balance);
        for (const Block &b : m_instances) {
            s.instances.push_back(b.summary(b.histograms, b.samples, stopNs));
            finishBlock(s.instances.back());
        }
    }
    for (const Block &b : m_models) {
        s.models.push_back(b.summary(b.histograms, b.samples, stopNs));
        finishBlock(s.models.back());
    }
    return s;
}

SummaryBlock RunAggregator::blockSentIn(const RunInfo &info, const std::vector<RequestRecord> &records,
                                        std::int64_t fromNs, std::int64_t toNs)
{
    RunAggregator part(info);
    part.m_sentFromNs = fromNs;
    part.m_sentToNs = toNs;
    for (const RequestRecord &r : records)
        part.add(r);
    return part.summary().total;
}

void RunAggregator::addSteadyBlock(RunSummary &summary, const RunInfo &info, const std::vector<RequestRecord> &records)
{
    if (!summary.steady || !summary.steady->window.found)
        return;
    SummaryBlock block = blockSentIn(info, records, std::int64_t(summary.steady->window.startS) * kNsPerSecond,
                                     std::int64_t(summary.steady->window.endS) * kNsPerSecond);
    block.name = QStringLiteral("steady");
    // Its window lies inside the run's plan, whether or not Stop ended the run after it.
    block.stopped.reset();
    block.reached = true;
    summary.steady->block = std::move(block);
}

void RunAggregator::applyHeadlineWindow(RunSummary &summary, const RunInfo &info,
                                        const std::vector<RequestRecord> &records)
{
    const auto window = parseHeadlineWindow(info.config.load.window);
    if (!window || window->kind == HeadlineWindow::Kind::All)
        return;
    const QString flag = QStringLiteral("--window ") + info.config.load.window;
    HeadlineWindowSummary headline;
    SummaryBlock block;
    if (window->kind == HeadlineWindow::Kind::Steady) {
        if (!summary.steady || !summary.steady->block) {
            summary.warnings << flag +
                                    (summary.steady
                                         ? QStringLiteral(": no steady state (%1)").arg(summary.steady->window.reason)
                                         : QStringLiteral(": a staged run has no one steady state")) +
                                    QStringLiteral("; the headline figures cover the whole run");
            return;
        }
        headline.mode = QStringLiteral("steady");
        headline.startS = double(summary.steady->window.startS);
        headline.endS = double(summary.steady->window.endS);
        block = *summary.steady->block;
    } else {
        // fromMs is at most limits::kMaxDurationMs (parseHeadlineWindow): no overflow in ns.
        const std::int64_t fromNs = std::int64_t(window->fromMs) * 1'000'000;
        block = blockSentIn(info, records, fromNs, std::numeric_limits<std::int64_t>::max());
        if (block.requests.attempted == 0) {
            summary.warnings << flag + QStringLiteral(": no request was sent that late; the headline figures cover "
                                                      "the whole run");
            return;
        }
        std::int64_t endNs = fromNs;
        for (const RequestRecord &r : records)
            endNs = std::max(endNs, r.doneNs);
        headline.mode = QStringLiteral("from");
        headline.startS = double(fromNs) / double(kNsPerSecond);
        headline.endS = double(endNs) / double(kNsPerSecond);
        // The tail of the run: cut where the run was cut.
        block.stopped = summary.total.stopped;
        block.reached = summary.total.reached;
    }
    block.name = summary.total.name;
    headline.whole = std::move(summary.total);
    summary.total = std::move(block);
    summary.window = std::move(headline);
}

std::vector<TimeSeriesRow> RunAggregator::timeSeries(int fromSecond, std::int64_t nowNs) const
{
    const Block &total = m_blocks[0];
    const std::vector<int> &inFlight = total.inFlight.peakPerSecond();
    std::size_t end = std::max({m_seconds.size(), total.outputTokensPerSecond.size(), inFlight.size()});
    if (nowNs >= 0)
        end = std::min(end, secondOf(nowNs));
    std::vector<TimeSeriesRow> rows;
    if (fromSecond < 0 || std::size_t(fromSecond) >= end)
        return rows;
    rows.reserve(end - std::size_t(fromSecond));

    std::vector<float> scratch;
    // The stage carried into idle seconds is the last one seen before them, so look back once.
    int stage = -1;
    for (std::size_t i = std::min(std::size_t(fromSecond), m_seconds.size()); i-- > 0 && stage < 0;)
        stage = m_seconds[i].stage;

    for (std::size_t i = std::size_t(fromSecond); i < end; ++i) {
        TimeSeriesRow row;
        row.second = int(i);
        row.inFlight = i < inFlight.size() ? inFlight[i] : 0;
        row.outputTokens = i < total.outputTokensPerSecond.size() ? total.outputTokensPerSecond[i] : 0;
        if (i < m_seconds.size()) {
            const Second &s = m_seconds[i];
            row.sent = s.sent;
            row.completed = s.completed;
            row.failed = s.failed;
            row.cancelled = s.cancelled;
            row.good = s.good;
            row.inputTokens = s.inputTokens;
            if (s.stale) {
                std::tie(s.percentiles[0], s.percentiles[1]) = medianAndP99(s.ttftMs, scratch);
                std::tie(s.percentiles[2], s.percentiles[3]) = medianAndP99(s.e2eMs, scratch);
                s.stale = false;
            }
            row.ttftP50Ms = s.percentiles[0];
            row.ttftP99Ms = s.percentiles[1];
            row.e2eP50Ms = s.percentiles[2];
            row.e2eP99Ms = s.percentiles[3];
            stage = std::max(stage, s.stage);
        }
        row.stage = stage;
        rows.push_back(row);
    }
    return rows;
}

std::size_t RunAggregator::heapBytes() const
{
    std::size_t bytes = m_seconds.capacity() * sizeof(Second) +
                        (m_blocks.capacity() + m_instances.capacity() + m_models.capacity()) * sizeof(Block);
    for (const Second &s : m_seconds)
        bytes += (s.ttftMs.capacity() + s.e2eMs.capacity()) * sizeof(float);
    for (const auto *blocks : {&m_blocks, &m_instances, &m_models}) {
        for (const Block &b : *blocks) {
            bytes += b.inFlight.heapBytes() + b.tokensInFlight.heapBytes() +
                     (b.samples.ttftMs.capacity() + b.samples.e2eMs.capacity()) * sizeof(float) +
                     b.outputTokensPerSecond.capacity() * sizeof(std::int64_t);
            for (const LogHistogram &h : b.histograms)
                bytes += h.heapBytes();
        }
    }
    return bytes;
}

} // namespace tb
