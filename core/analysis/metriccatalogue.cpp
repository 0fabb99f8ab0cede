#include "analysis/metriccatalogue.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {

using Better = MetricCatalogue::Better;
using Entry = MetricCatalogue::Entry;
using BlockValue = std::function<std::optional<double>(const SummaryBlock &)>;
using WholeValue = std::function<std::optional<double>(const RunSummary &)>;

const QString kCount = QStringLiteral("count");

std::optional<double> percent(const std::optional<double> &fraction)
{
    return fraction ? std::optional<double>(*fraction * 100) : std::nullopt;
}

/// A count shown only where there is any.
std::optional<double> ifAny(std::int64_t count)
{
    return count > 0 ? std::optional<double>(double(count)) : std::nullopt;
}

std::optional<double> perOk(const SummaryBlock &b, std::int64_t total)
{
    return b.requests.ok > 0 ? std::optional<double>(double(total) / double(b.requests.ok)) : std::nullopt;
}

BlockValue stat(Metric m, double LatencyStats::*field)
{
    return [m, field](const SummaryBlock &b) {
        return b.stat(m).count > 0 ? finiteOrNone(b.stat(m).*field) : std::nullopt;
    };
}

BlockValue count(std::int64_t RequestCounts::*field)
{
    return [field](const SummaryBlock &b) { return std::optional<double>(double(b.requests.*field)); };
}

/// A figure of a block's output redundancy, when its requests had text to judge.
template<typename Fn> BlockValue redundancy(Fn fn)
{
    return [fn](const SummaryBlock &b) { return b.redundancy ? finiteOrNone(fn(*b.redundancy)) : std::nullopt; };
}

/// A figure of a block's structured output, when its replies were checked (--response-format).
template<typename Fn> BlockValue structuredOutput(Fn fn)
{
    return [fn](const SummaryBlock &b) {
        return b.structuredOutput ? finiteOrNone(fn(*b.structuredOutput)) : std::nullopt;
    };
}

/// A figure of a block's images, when its requests carried any (--images, a dataset's images).
template<typename Fn> BlockValue images(Fn fn)
{
    return [fn](const SummaryBlock &b) { return b.images ? fn(*b.images) : std::nullopt; };
}

/// A figure of a block's tool calls, when its requests were offered tools (--tools).
template<typename Fn> BlockValue toolCalls(Fn fn)
{
    return [fn](const SummaryBlock &b) { return b.toolCalls ? finiteOrNone(fn(*b.toolCalls)) : std::nullopt; };
}

/// A run-wide metric: the server block, the cost or the context sweep, never a summary row.
Entry wholeRun(const char *key, const char *label, const char *unit, Better better, WholeValue value)
{
    return {QLatin1String(key), QString::fromUtf8(label), QString::fromUtf8(unit), better, {}, std::move(value), false};
}

/// A figure of the server block, when the run scraped the server's metrics.
template<typename Fn> WholeValue serverValue(Fn fn)
{
    return [fn](const RunSummary &s) { return s.server ? std::optional<double>(fn(*s.server)) : std::nullopt; };
}

/// A figure of the gpu block, when the run scraped a DCGM exporter (--gpu-metrics).
template<typename Fn> WholeValue gpuValue(Fn fn)
{
    return [fn](const RunSummary &s) { return s.gpu ? fn(*s.gpu) : std::nullopt; };
}

/// The share of a metric's second mode, in percent, when the whole run's was bimodal.
WholeValue bimodalShare(const char *key)
{
    return [key](const RunSummary &s) -> std::optional<double> {
        const auto it = s.bimodal.find(QLatin1String(key));
        return it == s.bimodal.end() ? std::nullopt : std::optional<double>(it->second.share * 100);
    };
}

/// A figure of the run's cost, when the target had prices.
template<typename Fn> WholeValue costValue(Fn fn)
{
    return [fn](const RunSummary &s) { return s.total.cost ? fn(*s.total.cost) : std::nullopt; };
}

/// A figure of the run's context-sweep fit, when the run was a context sweep with a fit.
template<typename Fn> WholeValue contextFitValue(Fn fn)
{
    return [fn](const RunSummary &s) {
        return s.contextSweep && s.contextSweep->fit.ok ? std::optional<double>(fn(*s.contextSweep)) : std::nullopt;
    };
}

/// A figure of a context sweep's largest prompt stage (where prefill dominates TTFT).
template<typename Fn> WholeValue contextLargestValue(Fn fn)
{
    return [fn](const RunSummary &s) -> std::optional<double> {
        if (!s.contextSweep || s.contextSweep->stages.empty())
            return std::nullopt;
        const auto &stages = s.contextSweep->stages;
        return fn(*std::max_element(stages.begin(), stages.end(),
                                    [](const auto &x, const auto &y) { return x.promptTokens < y.promptTokens; }));
    };
}

std::vector<Entry> build()
{
    const QString ms = QStringLiteral("ms");
    const QString reqPerS = QStringLiteral("req/s");
    const QString tokPerS = QStringLiteral("tok/s");
    const QString pct = QStringLiteral("%");
    const QString tokens = QStringLiteral("tokens");
    const QString requests = QStringLiteral("requests");
    std::vector<Entry> all = {
        {QStringLiteral("requests_ok"), QStringLiteral("Successful requests"), kCount, Better::Higher,
         count(&RequestCounts::ok)},
        {QStringLiteral("requests_failed"), QStringLiteral("Failed requests"), kCount, Better::Lower,
         count(&RequestCounts::failed)},
        {QStringLiteral("requests_cancelled"), QStringLiteral("Cancelled by Stop"), kCount, Better::Neither,
         count(&RequestCounts::cancelled)},
        // The one error rate (the dashboard's tile and the baseline change read it here):
        // cancelled requests are neither ok nor failed.
        {QStringLiteral("error_pct"), QStringLiteral("Errors"), pct, Better::Lower,
         [](const SummaryBlock &b) {
             return b.requests.attempted > 0
                        ? std::optional<double>(100.0 * double(b.requests.failed) / double(b.requests.attempted))
                        : std::nullopt;
         }},
        {QStringLiteral("window_s"), QStringLiteral("Measurement window"), QStringLiteral("s"), Better::Neither,
         [](const SummaryBlock &b) { return finiteOrNone(b.windowS); }},
        {QStringLiteral("requests_per_s"), QStringLiteral("Requests/s"), reqPerS, Better::Higher,
         [](const SummaryBlock &b) { return finiteOrNone(b.throughput.requestsPerS); }},
        {QStringLiteral("goodput_requests_per_s"), QStringLiteral("Goodput"), reqPerS, Better::Higher,
         [](const SummaryBlock &b) { return finiteOrNone(b.throughput.goodputRequestsPerS); }},
        {QStringLiteral("good_pct"), QStringLiteral("Good fraction"), pct, Better::Higher,
         [](const SummaryBlock &b) { return percent(b.throughput.goodFraction); }},
        {QStringLiteral("output_tokens_per_s"), QStringLiteral("Output tokens/s"), tokPerS, Better::Higher,
         [](const SummaryBlock &b) { return finiteOrNone(b.throughput.outputTokensPerS); }},
        {QStringLiteral("input_tokens_per_s"), QStringLiteral("Input tokens/s"), tokPerS, Better::Higher,
         [](const SummaryBlock &b) { return finiteOrNone(b.throughput.inputTokensPerS); }},
        {QStringLiteral("peak_output_tokens_per_s"), QStringLiteral("Peak output tokens/s"), tokPerS, Better::Higher,
         [](const SummaryBlock &b) { return finiteOrNone(b.throughput.peakOutputTokensPerS); }},
        // Embeddings: the inputs (texts embedded) per second; none for the generating APIs.
        {QStringLiteral("inputs_per_s"), QStringLiteral("Inputs/s"), QStringLiteral("inputs/s"), Better::Higher,
         [](const SummaryBlock &b) {
             return b.requests.inputs > 0 ? finiteOrNone(b.throughput.inputsPerS) : std::nullopt;
         }},
    };

    struct LatencyRows {
        Metric metric;
        const char *key;
        const char *label;
        std::vector<std::pair<const char *, double LatencyStats::*>> stats;
    };
    using S = LatencyStats;
    const std::vector<std::pair<const char *, double S::*>> full = {
        {"mean", &S::mean}, {"p50", &S::p50}, {"p90", &S::p90}, {"p99", &S::p99}, {"p999", &S::p999}, {"max", &S::max}};
    const std::vector<std::pair<const char *, double S::*>> brief = {
        {"mean", &S::mean}, {"p50", &S::p50}, {"p99", &S::p99}};
    const std::vector<LatencyRows> latencies = {
        {Metric::Ttft, "ttft", "TTFT", full},
        {Metric::Ttfo, "ttfo", "TTFO", brief},
        {Metric::TtftFromSchedule, "ttft_from_schedule", "TTFT from schedule", brief},
        {Metric::Ttfb, "ttfb", "TTFB", brief},
        {Metric::E2e, "e2e", "E2E", full},
        {Metric::E2eFromSchedule, "e2e_from_schedule", "E2E from schedule", brief},
        {Metric::Tpot, "tpot", "TPOT", brief},
        {Metric::Itl, "itl", "ITL", brief},
        {Metric::Icl, "icl", "ICL", brief},
        {Metric::QueueDelay, "queue_delay", "Queue delay", brief},
        {Metric::Blocked, "blocked", "Blocked", brief},
        {Metric::Connect, "connect", "Connect", brief},
        {Metric::Tls, "tls", "TLS", brief},
        {Metric::Sending, "sending", "Sending", brief},
        {Metric::Waiting, "waiting", "Waiting", brief},
        {Metric::Receiving, "receiving", "Receiving", brief},
    };
    for (const LatencyRows &rows : latencies) {
        for (const auto &[name, field] : rows.stats) {
            const QString statName = QString::fromLatin1(name) == QLatin1String("p999") ? QStringLiteral("p99.9")
                                                                                        : QString::fromLatin1(name);
            all.push_back({QStringLiteral("%1_%2").arg(QLatin1String(rows.key), QLatin1String(name)),
                           QStringLiteral("%1 %2").arg(QLatin1String(rows.label), statName), ms, Better::Lower,
                           stat(rows.metric, field)});
        }
    }

    // Error-adjusted: failures as +∞. An infinite percentile (among the failures) has no value here,
    // as every infinity in the catalogue; the CLI's summary and summary.json say "∞"/"inf".
    using Adjusted = ErrorAdjusted SummaryBlock::*;
    using Percentile = double ErrorAdjusted::*;
    const auto adjusted = [](Adjusted field, Percentile q) -> BlockValue {
        return [field, q](const SummaryBlock &b) {
            const ErrorAdjusted &e = b.*field;
            return e.count > 0 ? finiteOrNone(e.*q) : std::nullopt;
        };
    };
    for (const auto &[prefix, label, field] : {std::tuple{"ttft", "TTFT", &SummaryBlock::errorAdjustedTtft},
                                               std::tuple{"e2e", "E2E", &SummaryBlock::errorAdjustedE2e}}) {
        for (const auto &[name, q] : {std::pair{"p50", &ErrorAdjusted::p50}, std::pair{"p90", &ErrorAdjusted::p90},
                                      std::pair{"p99", &ErrorAdjusted::p99}})
            all.push_back({QStringLiteral("%1_error_adjusted_%2").arg(QLatin1String(prefix), QLatin1String(name)),
                           QStringLiteral("%1 %2 error-adjusted").arg(QLatin1String(label), QLatin1String(name)), ms,
                           Better::Lower, adjusted(field, q)});
    }

    const auto connections = [](std::int64_t ConnectionSummary::*field) {
        return [field](const SummaryBlock &b) {
            return b.connections.opened + b.connections.reused > 0 ? std::optional<double>(double(b.connections.*field))
                                                                   : std::nullopt;
        };
    };
    std::vector<Entry> rest = {
        {QStringLiteral("connections_opened"), QStringLiteral("New connections"), kCount, Better::Neither,
         connections(&ConnectionSummary::opened)},
        {QStringLiteral("connections_reused"), QStringLiteral("Kept-alive connections"), kCount, Better::Neither,
         connections(&ConnectionSummary::reused)},
        {QStringLiteral("retries"), QStringLiteral("Retries"), kCount, Better::Lower,
         [](const SummaryBlock &b) { return ifAny(b.requests.retries); }},
        {QStringLiteral("decode_tokens_per_s_p50"), QStringLiteral("Decode speed p50"), tokPerS, Better::Higher,
         stat(Metric::DecodeSpeed, &S::p50)},
        {QStringLiteral("tokens_per_chunk_mean"), QStringLiteral("Tokens per chunk"), tokens, Better::Neither,
         stat(Metric::TokensPerChunk, &S::mean)},
        {QStringLiteral("input_tokens"), QStringLiteral("Prompt tokens"), tokens, Better::Neither,
         [](const SummaryBlock &b) { return std::optional<double>(double(b.tokens.input)); }},
        {QStringLiteral("output_tokens"), QStringLiteral("Output tokens"), tokens, Better::Neither,
         [](const SummaryBlock &b) { return std::optional<double>(double(b.tokens.output)); }},
        {QStringLiteral("reasoning_tokens"), QStringLiteral("Reasoning tokens"), tokens, Better::Neither,
         [](const SummaryBlock &b) { return ifAny(b.tokens.reasoning); }},
        {QStringLiteral("reasoning_hidden_tokens"), QStringLiteral("Hidden reasoning tokens"), tokens, Better::Neither,
         [](const SummaryBlock &b) { return ifAny(b.tokens.reasoningHidden); }},
        {QStringLiteral("stopped_at_cap"), QStringLiteral("Stopped at max_tokens"), requests, Better::Neither,
         [](const SummaryBlock &b) { return ifAny(b.requests.stoppedAtCap()); }},
        {QStringLiteral("input_tokens_per_request"), QStringLiteral("Prompt tokens per request"), tokens,
         Better::Neither, [](const SummaryBlock &b) { return perOk(b, b.tokens.input); }},
        {QStringLiteral("output_tokens_per_request"), QStringLiteral("Output tokens per request"), tokens,
         Better::Neither, [](const SummaryBlock &b) { return perOk(b, b.tokens.output); }},
        {QStringLiteral("out_in_ratio"), QStringLiteral("Out/in tokens"), QStringLiteral("x"), Better::Neither,
         [](const SummaryBlock &b) { return b.tokens.outInRatio; }},
        {QStringLiteral("cache_hit_pct"), QStringLiteral("Cache hits"), pct, Better::Higher,
         [](const SummaryBlock &b) { return percent(b.tokens.cacheHitRatio); }},
        // Where the cached counts came from: a server may report its cache only in llama.cpp's timings.
        {QStringLiteral("cached_from_usage"), QStringLiteral("Cached counts from usage"), requests, Better::Neither,
         [](const SummaryBlock &b) { return ifAny(b.tokens.cachedFromUsage); }},
        {QStringLiteral("cached_from_timings"), QStringLiteral("Cached counts from timings"), requests, Better::Neither,
         [](const SummaryBlock &b) { return ifAny(b.tokens.cachedFromTimings); }},
        {QStringLiteral("concurrency_target"), QStringLiteral("Target concurrency"), requests, Better::Neither,
         [](const SummaryBlock &b) {
             return b.concurrency.target ? std::optional<double>(*b.concurrency.target) : std::nullopt;
         }},
        {QStringLiteral("peak_in_flight"), QStringLiteral("Peak in flight"), requests, Better::Neither,
         [](const SummaryBlock &b) { return std::optional<double>(b.concurrency.peakInFlight); }},
        {QStringLiteral("mean_in_flight"), QStringLiteral("Mean in flight"), requests, Better::Neither,
         [](const SummaryBlock &b) { return finiteOrNone(b.concurrency.meanInFlight); }},
        // Output redundancy (docs/metrics.md): shares of repeated trigrams, shown as percentages.
        {QStringLiteral("redundancy_mean_pct"), QStringLiteral("Redundancy mean"), pct, Better::Lower,
         redundancy([](const RedundancySummary &r) { return r.mean * 100; })},
        {QStringLiteral("redundancy_p50_pct"), QStringLiteral("Redundancy p50"), pct, Better::Lower,
         redundancy([](const RedundancySummary &r) { return r.p50 * 100; })},
        {QStringLiteral("redundancy_p90_pct"), QStringLiteral("Redundancy p90"), pct, Better::Lower,
         redundancy([](const RedundancySummary &r) { return r.p90 * 100; })},
        {QStringLiteral("redundancy_above"), QStringLiteral("Redundant outputs"), requests, Better::Lower,
         redundancy([](const RedundancySummary &r) { return double(r.above); })},
        {QStringLiteral("redundancy_above_pct"), QStringLiteral("Redundant outputs share"), pct, Better::Lower,
         redundancy([](const RedundancySummary &r) { return r.aboveShare() * 100; })},
        // Structured output (docs/metrics.md): shares of the checked replies, and goodput whose
        // replies were valid too.
        {QStringLiteral("valid_json_pct"), QStringLiteral("Valid JSON outputs"), pct, Better::Higher,
         structuredOutput([](const StructuredOutputSummary &s) { return s.validJsonShare() * 100; })},
        {QStringLiteral("schema_valid_pct"), QStringLiteral("Schema-valid outputs"), pct, Better::Higher,
         structuredOutput([](const StructuredOutputSummary &s) { return s.schemaValidShare() * 100; })},
        {QStringLiteral("outputs_not_checked"), QStringLiteral("Outputs not checked"), requests, Better::Neither,
         structuredOutput([](const StructuredOutputSummary &s) { return double(s.notChecked); })},
        {QStringLiteral("qualified_goodput_requests_per_s"), QStringLiteral("Quality-qualified goodput"), reqPerS,
         Better::Higher, structuredOutput([](const StructuredOutputSummary &s) { return s.qualifiedGoodputPerS; })},
        // Images (docs/metrics.md "Images"): what was sent, and the server's tokens for each image
        // (usage less the text), when a successful request reported usage.
        {QStringLiteral("images_sent"), QStringLiteral("Images sent"), QStringLiteral("images"), Better::Neither,
         images([](const ImageSummary &i) { return std::optional<double>(double(i.images)); })},
        {QStringLiteral("image_tokens_median"), QStringLiteral("Prompt tokens per image (median)"), tokens,
         Better::Neither, images([](const ImageSummary &i) {
             return i.measured > 0 ? finiteOrNone(i.tokensPerImageMedian) : std::nullopt;
         })},
        {QStringLiteral("image_tokens_mean"), QStringLiteral("Prompt tokens per image (mean)"), tokens, Better::Neither,
         images([](const ImageSummary &i) {
             return i.measured > 0 ? finiteOrNone(i.tokensPerImageMean()) : std::nullopt;
         })},
        // Tool calls (docs/metrics.md): the share of requests whose calls were all valid, the time
        // to the first tool-call token, and goodput with no invalid call.
        {QStringLiteral("tool_call_valid_pct"), QStringLiteral("Valid tool calls"), pct, Better::Higher,
         toolCalls([](const ToolCallSummary &t) { return t.validShare() * 100; })},
        {QStringLiteral("first_tool_call_p50"), QStringLiteral("Time to first tool call p50"), ms, Better::Lower,
         toolCalls([](const ToolCallSummary &t) {
             return t.firstToolCallMs.count > 0 ? t.firstToolCallMs.p50 : std::numeric_limits<double>::quiet_NaN();
         })},
        {QStringLiteral("tool_qualified_goodput_requests_per_s"), QStringLiteral("Tool-qualified goodput"), reqPerS,
         Better::Higher, toolCalls([](const ToolCallSummary &t) { return t.qualifiedGoodputPerS; })},
        // 0 in summaries from before tokens in flight: none there.
        {QStringLiteral("tokens_in_flight_mean"), QStringLiteral("Tokens in flight (mean)"), tokens, Better::Neither,
         [](const SummaryBlock &b) {
             return b.concurrency.meanTokensInFlight > 0 ? finiteOrNone(b.concurrency.meanTokensInFlight)
                                                         : std::nullopt;
         }},
        {QStringLiteral("tokens_in_flight_peak"), QStringLiteral("Tokens in flight (peak 1 s)"), tokens,
         Better::Neither,
         [](const SummaryBlock &b) {
             return b.concurrency.peakTokensInFlight > 0 ? finiteOrNone(b.concurrency.peakTokensInFlight)
                                                         : std::nullopt;
         }},
        // The comparison's own rows: reasoning per request (shown only when a run reasoned) and
        // the run-wide figures.
        {QStringLiteral("reasoning_per_request"),
         QStringLiteral("Reasoning tokens/req"),
         tokens,
         Better::Neither,
         [](const SummaryBlock &b) { return perOk(b, b.tokens.reasoning); },
         {},
         false},
        wholeRun("ttft_bimodal_pct", "TTFT second mode", "%", Better::Lower, bimodalShare("ttft")),
        wholeRun("itl_bimodal_pct", "ITL second mode", "%", Better::Lower, bimodalShare("itl")),
        wholeRun("server_ttft_p50", "Server TTFT p50", "ms", Better::Lower,
                 serverValue([](const ServerSummary &s) { return s.ttft.p50; })),
        wholeRun("server_ttft_p99", "Server TTFT p99", "ms", Better::Lower,
                 serverValue([](const ServerSummary &s) { return s.ttft.p99; })),
        wholeRun("server_running_mean", "Server running", "req", Better::Neither,
                 serverValue([](const ServerSummary &s) { return s.runningMean; })),
        wholeRun("server_waiting_mean", "Server waiting", "req", Better::Neither,
                 serverValue([](const ServerSummary &s) { return s.waitingMean; })),
        wholeRun("server_kv_cache_peak_pct", "Server KV cache peak", "%", Better::Neither,
                 serverValue([](const ServerSummary &s) { return s.kvCachePctPeak; })),
        // The least energy for the work is best; power and utilisation describe, not judge.
        wholeRun("gpu_joules_per_output_token", "Energy per output token", "J/token", Better::Lower,
                 gpuValue([](const GpuSummary &g) { return g.joulesPerOutputToken; })),
        wholeRun("gpu_joules_per_request", "Energy per request", "J", Better::Lower,
                 gpuValue([](const GpuSummary &g) { return g.joulesPerRequest; })),
        wholeRun("gpu_power_mean", "GPU power mean", "W", Better::Neither,
                 gpuValue([](const GpuSummary &g) { return g.powerWMean; })),
        wholeRun("gpu_util_mean", "GPU utilisation mean", "%", Better::Neither,
                 gpuValue([](const GpuSummary &g) { return g.utilPctMean; })),
        wholeRun("gpu_energy_cost_per_1m_output_tokens", "Energy cost/1M output tokens", "USD", Better::Lower,
                 gpuValue([](const GpuSummary &g) { return g.energyCostPerMOutputTokens; })),
        // Cheapest is best; the run's total depends on how long it ran, so it is not judged.
        wholeRun("cost_per_1m_output_tokens", "Cost/1M output tokens", "USD", Better::Lower,
                 costValue([](const CostSummary &c) { return c.perMOutputTokens; })),
        wholeRun("cost_per_request", "Cost/request", "USD", Better::Lower,
                 costValue([](const CostSummary &c) { return c.perRequest; })),
        wholeRun("cost_per_good_request", "Cost/good request", "USD", Better::Lower,
                 costValue([](const CostSummary &c) { return c.perGoodRequest; })),
        wholeRun("cost_total", "Cost of the run", "USD", Better::Neither,
                 costValue([](const CostSummary &c) { return std::optional<double>(c.total); })),
        wholeRun("context_fit_a", "Context fit a", "ms/tok^b", Better::Neither,
                 contextFitValue([](const ContextSweepSummary &c) { return c.fit.a; })),
        wholeRun("context_fit_b", "Context fit b", "", Better::Lower,
                 contextFitValue([](const ContextSweepSummary &c) { return c.fit.b; })),
        wholeRun("context_fit_c", "Context fit c", "ms", Better::Lower,
                 contextFitValue([](const ContextSweepSummary &c) { return c.fit.c; })),
        wholeRun("context_fit_r2", "Context fit R²", "", Better::Neither,
                 contextFitValue([](const ContextSweepSummary &c) { return c.fit.r2; })),
        wholeRun(
            "context_prefill_tokens_per_s", "Prefill tok/s (longest)", "tok/s", Better::Higher,
            contextLargestValue([](const ContextSweepSummary::Stage &s) { return finiteOrNone(s.prefillTokensPerS); })),
        wholeRun("context_fit_prefill_tokens_per_s", "Fit prefill tok/s", "tok/s", Better::Higher,
                 contextLargestValue([](const ContextSweepSummary::Stage &s) { return s.fitPrefillTokensPerS; })),
        // --cancel-rate: what was abandoned, and the others' TTFT before and during abandonments.
        wholeRun("requests_abandoned", "Abandoned requests", "", Better::Neither,
                 [](const RunSummary &s) {
                     return s.cancellation ? std::optional<double>(double(s.cancellation->abandoned)) : std::nullopt;
                 }),
        wholeRun("cancel_ttft_p50_before", "TTFT p50 before abandons", "ms", Better::Lower,
                 [](const RunSummary &s) { return s.cancellation ? s.cancellation->before.ttftP50Ms : std::nullopt; }),
        wholeRun("cancel_ttft_p50_during", "TTFT p50 during abandons", "ms", Better::Lower,
                 [](const RunSummary &s) { return s.cancellation ? s.cancellation->during.ttftP50Ms : std::nullopt; }),
    };
    all.insert(all.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
    return all;
}

QList<MetricCatalogue::GlossaryEntry> loadGlossary()
{
    QFile file(QStringLiteral(":/tokenbench/metric-glossary.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<MetricCatalogue::GlossaryEntry> entries;
    for (const auto &value : QJsonDocument::fromJson(file.readAll()).object().value(u"entries").toArray()) {
        const QJsonObject o = value.toObject();
        MetricCatalogue::GlossaryEntry entry{o.value(u"term").toString(), {}, o.value(u"definition").toString()};
        for (const auto &key : o.value(u"keys").toArray())
            entry.keys << key.toString();
        if (!entry.term.isEmpty() && !entry.definition.isEmpty())
            entries << entry;
    }
    return entries;
}

} // namespace

const std::vector<MetricCatalogue::Entry> &MetricCatalogue::all()
{
    static const std::vector<Entry> entries = build();
    return entries;
}

bool MetricCatalogue::isWholeCount(double value, const QString &unit)
{
    static const QStringList counted = {kCount, QStringLiteral("requests"), QStringLiteral("tokens"),
                                        QStringLiteral("req")};
    return std::isfinite(value) && value == std::floor(value) && std::abs(value) < 1e15 && counted.contains(unit);
}

const MetricCatalogue::Entry *MetricCatalogue::find(const QString &key)
{
    const auto it = std::find_if(all().begin(), all().end(), [&](const Entry &e) { return e.key == key; });
    return it == all().end() ? nullptr : &*it;
}

const QList<MetricCatalogue::GlossaryEntry> &MetricCatalogue::glossary()
{
    static const QList<GlossaryEntry> entries = loadGlossary();
    return entries;
}

const MetricCatalogue::GlossaryEntry *MetricCatalogue::glossaryEntry(const QString &key)
{
    for (QString prefix = key; !prefix.isEmpty(); prefix.truncate(std::max<qsizetype>(0, prefix.lastIndexOf(u'_')))) {
        for (const GlossaryEntry &entry : glossary()) {
            if (entry.keys.contains(prefix))
                return &entry;
        }
    }
    return nullptr;
}

QString MetricCatalogue::definition(const QString &key)
{
    const GlossaryEntry *entry = glossaryEntry(key);
    return entry ? entry->definition : QString();
}

} // namespace tb
