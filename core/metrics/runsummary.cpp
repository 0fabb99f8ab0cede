#include "metrics/runsummary.h"

#include "config/jsonreader.h"
#include "config/saturating.h"
#include "formats/formatversion.h"
#include "formats/numberformat.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tb {

namespace {

using json = nlohmann::json;

struct MetricName {
    const char *key;
    const char *section; ///< the block object whose statistics include it
    const char *label;   ///< what people call it
};
constexpr std::array<MetricName, kMetricCount> kMetricNames{{
    {"ttft", "latency_ms", "TTFT"},
    {"ttfo", "latency_ms", "TTFO"},
    {"ttft_from_schedule", "latency_ms", "TTFT from schedule"},
    {"ttfb", "latency_ms", "TTFB"},
    {"e2e", "latency_ms", "E2E"},
    {"e2e_from_schedule", "latency_ms", "E2E from schedule"},
    {"tpot", "latency_ms", "TPOT"},
    {"itl", "latency_ms", "ITL"},
    {"icl", "latency_ms", "ICL"},
    {"queue_delay", "latency_ms", "Queue delay"},
    {"decode_tokens_per_s", "throughput", "Decode speed"},
    {"tokens_per_chunk", "tokens", "Tokens per chunk"},
    {"retry_after_s", "requests", "Retry-After"},
    {"blocked", "phases_ms", "Blocked"},
    {"connect", "phases_ms", "Connect"},
    {"tls", "phases_ms", "TLS"},
    {"sending", "phases_ms", "Sending"},
    {"waiting", "phases_ms", "Waiting"},
    {"receiving", "phases_ms", "Receiving"},
}};

json optional(const std::optional<double> &v)
{
    return v ? json(*v) : json();
}

json loadToJson(const LoadSummary &l, bool wholeRun)
{
    json j{
        {"mode", toStd(loadModeName(l.mode))},
        {"concurrency", l.concurrency ? json(*l.concurrency) : json()},
        {"rate", optional(l.rate)},
        {"arrival", l.arrival ? json(toStd(arrivalName(*l.arrival))) : json()},
        {"max_in_flight", l.maxInFlight},
    };
    if (wholeRun)
        j["stages"] = toStd(l.stages);
    return j;
}

LoadSummary loadFromJson(const JsonReader &n)
{
    LoadSummary l;
    const QString mode = n.string("mode");
    if (const auto m = loadModeFromName(mode))
        l.mode = *m;
    else if (!mode.isNull())
        n.fail(n.field("mode"), QStringLiteral("unknown mode '%1'").arg(mode));
    if (const auto c = n.optionalNumber("concurrency"))
        l.concurrency = int(*c);
    l.rate = n.optionalNumber("rate");
    if (n.hasValue("arrival")) {
        const QString arrival = n.string("arrival");
        l.arrival = arrivalFromName(arrival);
        if (!l.arrival)
            n.fail(n.field("arrival"), QStringLiteral("unknown arrival '%1'").arg(arrival));
    }
    l.maxInFlight = int(n.integer("max_in_flight"));
    if (n.has("stages"))
        l.stages = n.string("stages");
    return l;
}

json costToJson(const CostSummary &c)
{
    return {{"currency", "USD"},
            {"input", c.input},
            {"cached_input", c.cachedInput},
            {"output", c.output},
            {"total", c.total},
            {"per_request", optional(c.perRequest)},
            {"per_1m_output_tokens", optional(c.perMOutputTokens)},
            {"per_good_request", optional(c.perGoodRequest)},
            {"prices_per_1m",
             {{"input", optional(c.prices.inputPerM)},
              {"cached_input", optional(c.prices.cachedInputPerM)},
              {"output", optional(c.prices.outputPerM)},
              {"source", toStd(c.prices.source)}}}};
}

CostSummary costFromJson(const JsonReader &n)
{
    CostSummary c;
    c.input = n.number("input");
    c.cachedInput = n.number("cached_input");
    c.output = n.number("output");
    c.total = n.number("total");
    c.perRequest = n.optionalNumber("per_request");
    c.perMOutputTokens = n.optionalNumber("per_1m_output_tokens");
    c.perGoodRequest = n.optionalNumber("per_good_request");
    const JsonReader prices = n.object("prices_per_1m");
    c.prices.inputPerM = prices.optionalNumber("input");
    c.prices.cachedInputPerM = prices.optionalNumber("cached_input");
    c.prices.outputPerM = prices.optionalNumber("output");
    c.prices.source = prices.string("source");
    return c;
}

/// A `by_…` object: counts by status, error class, finish reason or HTTP version.
template<typename Key> json countsToJson(const std::map<Key, std::int64_t> &counts)
{
    json j = json::object();
    for (const auto &[key, count] : counts) {
        if constexpr (std::is_same_v<Key, int>)
            j[std::to_string(key)] = count;
        else
            j[toStd(key)] = count;
    }
    return j;
}

template<typename Key> void countsFromJson(const JsonReader &counts, std::map<Key, std::int64_t> &out)
{
    for (const auto &[key, value] : counts.value().items()) {
        if constexpr (std::is_same_v<Key, int>) {
            bool ok = false;
            const int status = fromStd(key).toInt(&ok);
            if (!ok)
                counts.fail(counts.field(key.c_str()), QStringLiteral("not an HTTP status"));
            out[status] = counts.integer(key.c_str());
        } else {
            out[fromStd(key)] = counts.integer(key.c_str());
        }
    }
}

json blockToJson(const SummaryBlock &b, bool wholeRun)
{
    json block{
        {"load", loadToJson(b.load, wholeRun)},
        {"window_s", b.windowS},
        {"requests",
         {{"attempted", b.requests.attempted},
          {"ok", b.requests.ok},
          {"failed", b.requests.failed},
          {"cancelled", b.requests.cancelled},
          {"abandoned", b.requests.abandoned},
          {"abandoned_in_prefill", b.requests.abandonedInPrefill},
          {"abandoned_in_decode", b.requests.abandoned - b.requests.abandonedInPrefill},
          {"warmup", b.requests.warmup},
          {"redirected", b.requests.redirected},
          {"redirects", b.requests.redirects},
          {"retries", b.requests.retries},
          {"by_status", countsToJson(b.requests.byStatus)},
          {"by_error", countsToJson(b.requests.byError)},
          {"by_finish_reason", countsToJson(b.requests.byFinishReason)},
          {"by_http_version", countsToJson(b.requests.byHttpVersion)}}},
        {"throughput",
         {{"requests_per_s", b.throughput.requestsPerS},
          {"output_tokens_per_s", b.throughput.outputTokensPerS},
          {"input_tokens_per_s", b.throughput.inputTokensPerS},
          {"total_tokens_per_s", b.throughput.totalTokensPerS},
          {"peak_output_tokens_per_s", b.throughput.peakOutputTokensPerS},
          {"goodput_requests_per_s", b.throughput.goodputRequestsPerS},
          {"good", b.throughput.good},
          {"good_fraction", optional(b.throughput.goodFraction)}}},
        {"latency_ms", json::object()},
        {"phases_ms", json::object()},
        {"connections",
         {{"opened", b.connections.opened},
          {"reused", b.connections.reused},
          {"slow", b.connections.slow},
          {"slow_mean_ms", b.connections.slowMeanMs},
          {"slow_at_syn_retry", b.connections.slowAtSynRetry},
          {"unended_bodies", b.connections.unendedBodies}}},
        {"tokens",
         {{"input", b.tokens.input},
          {"output", b.tokens.output},
          {"cached", b.tokens.cached},
          {"reasoning", b.tokens.reasoning},
          {"reasoning_hidden", b.tokens.reasoningHidden},
          {"out_in_ratio", optional(b.tokens.outInRatio)},
          {"cache_hit_ratio", optional(b.tokens.cacheHitRatio)},
          {"sources",
           {{"usage", b.tokens.fromUsage},
            {"tokenizer", b.tokens.fromTokenizer},
            {"chunks", b.tokens.fromChunks},
            {"estimate", b.tokens.fromEstimate}}},
          {"prompt_sources",
           {{"usage", b.tokens.promptFromUsage},
            {"tokenizer", b.tokens.promptFromTokenizer},
            {"estimate", b.tokens.promptEstimated}}},
          {"cached_sources", {{"usage", b.tokens.cachedFromUsage}, {"timings", b.tokens.cachedFromTimings}}},
          {"prompt_min", b.tokens.promptMin},
          {"prompt_max", b.tokens.promptMax}}},
        {"concurrency",
         {{"target", b.concurrency.target ? json(*b.concurrency.target) : json()},
          {"peak_in_flight", b.concurrency.peakInFlight},
          {"mean_in_flight", b.concurrency.meanInFlight},
          {"tokens_in_flight_mean", b.concurrency.meanTokensInFlight},
          {"tokens_in_flight_peak", b.concurrency.peakTokensInFlight}}},
        {"error_adjusted_ms", {{"ttft", b.errorAdjustedTtft.toJson()}, {"e2e", b.errorAdjustedE2e.toJson()}}},
    };
    // Embeddings only: a generating API's summary has neither key.
    if (b.requests.inputs > 0) {
        block["requests"]["inputs"] = b.requests.inputs;
        block["throughput"]["inputs_per_s"] = b.throughput.inputsPerS;
    }
    json histograms = json::object();
    for (std::size_t i = 0; i < kMetricCount; ++i) {
        block[kMetricNames[i].section][kMetricNames[i].key] = b.stats[i].toJson();
        histograms[kMetricNames[i].key] = b.histograms[i].toJson();
    }
    block["histograms"] = std::move(histograms);
    if (b.cost)
        block["cost"] = costToJson(*b.cost);
    if (const auto &r = b.redundancy)
        block["redundancy"] = {{"requests", r->requests},
                               {"mean", r->mean},
                               {"p50", r->p50},
                               {"p90", r->p90},
                               {"threshold", r->threshold},
                               {"above", r->above},
                               {"above_share", r->aboveShare()},
                               {"unit", toStd(r->unit)}};
    if (const auto &s = b.structuredOutput)
        block["structured_output"] = {{"requests", s->requests},
                                      {"checked", s->checked()},
                                      {"not_checked", s->notChecked},
                                      {"valid_json", s->validJson},
                                      {"schema_valid", s->schemaValid},
                                      {"valid_json_share", s->validJsonShare()},
                                      {"schema_valid_share", s->schemaValidShare()},
                                      {"qualified_good", s->qualifiedGood},
                                      {"qualified_goodput_rps", s->qualifiedGoodputPerS},
                                      {"qualified_good_fraction", s->qualifiedGoodFraction}};
    if (const auto &i = b.images)
        block["images"] = {{"requests", i->requests},
                           {"images", i->images},
                           {"image_bytes", i->imageBytes},
                           {"measured_requests", i->measured},
                           {"measured_images", i->measuredImages},
                           {"image_tokens", i->imageTokens},
                           {"tokens_per_image_median", i->tokensPerImageMedian},
                           {"tokens_per_image_mean", i->tokensPerImageMean()}};
    if (const auto &t = b.toolCalls)
        block["tool_calls"] = {{"requests", t->requests},
                               {"with_calls", t->withCalls},
                               {"calls", t->calls},
                               {"checked", t->checked()},
                               {"not_checked", t->notChecked},
                               {"valid", t->valid},
                               {"invalid_json", t->invalidJson},
                               {"schema_mismatch", t->schemaMismatch},
                               {"missing", t->missing},
                               {"valid_share", t->validShare()},
                               {"tokens", t->tokens},
                               {"first_tool_call_ms", t->firstToolCallMs.toJson()},
                               {"qualified_good", t->qualifiedGood},
                               {"qualified_goodput_rps", t->qualifiedGoodputPerS},
                               {"qualified_good_fraction", t->qualifiedGoodFraction}};
    if (!wholeRun)
        block["name"] = toStd(b.name);
    if (b.stopped) {
        json stopped{{"after_s", b.stopped->afterS}};
        if (b.stopped->plannedS > 0)
            stopped["planned_s"] = b.stopped->plannedS;
        if (b.stopped->plannedRequests > 0)
            stopped["planned_requests"] = b.stopped->plannedRequests;
        if (!b.stopped->reason.isEmpty())
            stopped["reason"] = toStd(b.stopped->reason);
        block["stopped"] = std::move(stopped);
    }
    if (!b.reached)
        block["reached"] = false;
    return block;
}

SummaryBlock blockFromJson(const JsonReader &n, bool wholeRun)
{
    SummaryBlock b;
    if (!wholeRun)
        b.name = n.string("name");
    b.load = loadFromJson(n.object("load"));
    b.windowS = n.number("window_s");
    // Summaries from before stopped stages were marked have neither.
    if (n.hasValue("stopped")) {
        const JsonReader stopped = n.object("stopped");
        StopSummary &s = b.stopped.emplace();
        s.afterS = stopped.number("after_s");
        if (stopped.has("planned_s"))
            s.plannedS = stopped.number("planned_s");
        if (stopped.has("planned_requests"))
            s.plannedRequests = stopped.integer("planned_requests");
        if (stopped.has("reason"))
            s.reason = stopped.string("reason");
    }
    if (n.has("reached"))
        b.reached = n.value().at("reached") != false;

    const JsonReader requests = n.object("requests");
    b.requests.attempted = requests.integer("attempted");
    b.requests.ok = requests.integer("ok");
    b.requests.failed = requests.integer("failed");
    b.requests.cancelled = requests.integer("cancelled");
    if (requests.has("abandoned")) { // summaries from before --cancel-rate have none
        b.requests.abandoned = requests.integer("abandoned");
        b.requests.abandonedInPrefill = requests.integer("abandoned_in_prefill");
    }
    b.requests.warmup = requests.integer("warmup");
    // Summaries from before redirects could be followed have none.
    if (requests.has("redirects")) {
        b.requests.redirected = requests.integer("redirected");
        b.requests.redirects = requests.integer("redirects");
    }
    if (requests.has("retries")) // summaries from before retries have none
        b.requests.retries = requests.integer("retries");
    countsFromJson(requests.object("by_status"), b.requests.byStatus);
    countsFromJson(requests.object("by_error"), b.requests.byError);
    // Summaries from before finish reasons were counted have none.
    if (requests.has("by_finish_reason"))
        countsFromJson(requests.object("by_finish_reason"), b.requests.byFinishReason);
    if (requests.has("by_http_version")) // summaries from before transports were chosen have none
        countsFromJson(requests.object("by_http_version"), b.requests.byHttpVersion);

    const JsonReader throughput = n.object("throughput");
    b.throughput.requestsPerS = throughput.number("requests_per_s");
    b.throughput.outputTokensPerS = throughput.number("output_tokens_per_s");
    b.throughput.inputTokensPerS = throughput.number("input_tokens_per_s");
    b.throughput.totalTokensPerS = throughput.number("total_tokens_per_s");
    b.throughput.peakOutputTokensPerS = throughput.number("peak_output_tokens_per_s");
    b.throughput.goodputRequestsPerS = throughput.number("goodput_requests_per_s");
    b.throughput.good = throughput.integer("good");
    if (requests.has("inputs")) { // embeddings runs only
        b.requests.inputs = requests.integer("inputs");
        b.throughput.inputsPerS = throughput.number("inputs_per_s");
    }
    b.throughput.goodFraction = throughput.optionalNumber("good_fraction");

    const JsonReader tokens = n.object("tokens");
    b.tokens.input = tokens.integer("input");
    b.tokens.output = tokens.integer("output");
    b.tokens.cached = tokens.integer("cached");
    b.tokens.reasoning = tokens.integer("reasoning");
    if (tokens.has("reasoning_hidden"))
        b.tokens.reasoningHidden = tokens.integer("reasoning_hidden");
    b.tokens.outInRatio = tokens.optionalNumber("out_in_ratio");
    b.tokens.cacheHitRatio = tokens.optionalNumber("cache_hit_ratio");
    const JsonReader sources = tokens.object("sources");
    b.tokens.fromUsage = sources.integer("usage");
    b.tokens.fromTokenizer = sources.integer("tokenizer");
    b.tokens.fromChunks = sources.integer("chunks");
    if (sources.has("estimate"))
        b.tokens.fromEstimate = sources.integer("estimate");
    // Runs from before prompt sources were recorded have none.
    if (tokens.has("prompt_sources")) {
        const JsonReader prompt = tokens.object("prompt_sources");
        b.tokens.promptFromUsage = prompt.integer("usage");
        b.tokens.promptFromTokenizer = prompt.integer("tokenizer");
        b.tokens.promptEstimated = prompt.integer("estimate");
        b.tokens.promptMin = tokens.integer("prompt_min");
        b.tokens.promptMax = tokens.integer("prompt_max");
    }
    if (tokens.has("cached_sources")) { // runs from before cached counts had sources have none
        const JsonReader cached = tokens.object("cached_sources");
        b.tokens.cachedFromUsage = cached.integer("usage");
        b.tokens.cachedFromTimings = cached.integer("timings");
    }

    const JsonReader concurrency = n.object("concurrency");
    if (const auto target = concurrency.optionalNumber("target"))
        b.concurrency.target = int(*target);
    b.concurrency.peakInFlight = int(concurrency.integer("peak_in_flight"));
    b.concurrency.meanInFlight = concurrency.number("mean_in_flight");
    if (concurrency.has("tokens_in_flight_mean")) { // summaries from before tokens in flight have none
        b.concurrency.meanTokensInFlight = concurrency.number("tokens_in_flight_mean");
        b.concurrency.peakTokensInFlight = concurrency.number("tokens_in_flight_peak");
    }
    if (n.has("error_adjusted_ms")) { // likewise
        const JsonReader adjusted = n.object("error_adjusted_ms");
        if (const auto ttft = adjusted.nested<ErrorAdjusted>("ttft"))
            b.errorAdjustedTtft = *ttft;
        if (const auto e2e = adjusted.nested<ErrorAdjusted>("e2e"))
            b.errorAdjustedE2e = *e2e;
    }

    if (n.hasValue("cost"))
        b.cost = costFromJson(n.object("cost"));
    if (n.hasValue("redundancy")) { // summaries from before it, or without text, have none
        const JsonReader redundancy = n.object("redundancy");
        RedundancySummary &r = b.redundancy.emplace();
        r.requests = redundancy.integer("requests");
        r.mean = redundancy.number("mean");
        r.p50 = redundancy.number("p50");
        r.p90 = redundancy.number("p90");
        r.threshold = redundancy.number("threshold");
        r.above = redundancy.integer("above");
        r.unit = redundancy.string("unit");
    }
    if (n.hasValue("structured_output")) { // only runs with --response-format have it
        const JsonReader structured = n.object("structured_output");
        StructuredOutputSummary &s = b.structuredOutput.emplace();
        s.requests = structured.integer("requests");
        s.notChecked = structured.integer("not_checked");
        s.validJson = structured.integer("valid_json");
        s.schemaValid = structured.integer("schema_valid");
        s.qualifiedGood = structured.integer("qualified_good");
        s.qualifiedGoodputPerS = structured.number("qualified_goodput_rps");
        s.qualifiedGoodFraction = structured.number("qualified_good_fraction");
    }
    if (n.hasValue("images")) { // only runs with images have it
        const JsonReader images = n.object("images");
        ImageSummary &i = b.images.emplace();
        i.requests = images.integer("requests");
        i.images = images.integer("images");
        i.imageBytes = images.integer("image_bytes");
        i.measured = images.integer("measured_requests");
        i.measuredImages = images.integer("measured_images");
        i.imageTokens = images.integer("image_tokens");
        i.tokensPerImageMedian = images.number("tokens_per_image_median");
    }
    if (n.hasValue("tool_calls")) { // only runs with --tools have it
        const JsonReader tools = n.object("tool_calls");
        ToolCallSummary &t = b.toolCalls.emplace();
        t.requests = tools.integer("requests");
        t.withCalls = tools.integer("with_calls");
        t.calls = tools.integer("calls");
        t.notChecked = tools.integer("not_checked");
        t.valid = tools.integer("valid");
        t.invalidJson = tools.integer("invalid_json");
        t.schemaMismatch = tools.integer("schema_mismatch");
        t.missing = tools.has("missing") ? tools.integer("missing") : 0; // summaries before it have none
        t.tokens = tools.integer("tokens");
        if (const auto stats = tools.nested<LatencyStats>("first_tool_call_ms"))
            t.firstToolCallMs = *stats;
        t.qualifiedGood = tools.integer("qualified_good");
        t.qualifiedGoodputPerS = tools.number("qualified_goodput_rps");
        t.qualifiedGoodFraction = tools.number("qualified_good_fraction");
    }
    if (n.has("connections")) { // summaries from before request phases have none
        const JsonReader connections = n.object("connections");
        b.connections.opened = connections.integer("opened");
        b.connections.reused = connections.integer("reused");
        b.connections.slow = connections.integer("slow");
        b.connections.slowMeanMs = connections.number("slow_mean_ms");
        if (connections.has("slow_at_syn_retry")) // summaries from before it have none
            b.connections.slowAtSynRetry = connections.integer("slow_at_syn_retry");
        if (connections.has("unended_bodies")) // summaries from before it have none
            b.connections.unendedBodies = connections.integer("unended_bodies");
    }

    // Histograms are optional: without them a summary still has its statistics.
    const bool hasHistograms = n.has("histograms");
    const JsonReader histograms(n, hasHistograms ? n.value()["histograms"] : n.value(), n.field("histograms"));
    for (std::size_t i = 0; i < kMetricCount; ++i) {
        if (isPhaseMetric(Metric(i)) && !n.has(kMetricNames[i].section))
            continue; // summaries from before request phases have none
        const JsonReader section = n.object(kMetricNames[i].section);
        // (e2e_from_schedule and ttfo came later: older summaries lack them.)
        if (section.has(kMetricNames[i].key) ||
            (isLatencyMetric(Metric(i)) && Metric(i) != Metric::E2eFromSchedule && Metric(i) != Metric::Ttfo)) {
            if (const auto s = section.nested<LatencyStats>(kMetricNames[i].key))
                b.stats[i] = *s;
        }
        if (hasHistograms && histograms.has(kMetricNames[i].key)) {
            if (const auto h = histograms.nested<LogHistogram>(kMetricNames[i].key))
                b.histograms[i] = *h;
        }
    }
    return b;
}

/// The stages or instances.
json blocksToJson(const std::vector<SummaryBlock> &blocks)
{
    json array = json::array();
    for (const SummaryBlock &b : blocks)
        array.push_back(blockToJson(b, false));
    return array;
}

void blocksFromJson(const JsonReader &top, const char *key, std::vector<SummaryBlock> &out)
{
    if (const json *blocks = top.array(key)) {
        for (std::size_t i = 0; i < blocks->size(); ++i)
            out.push_back(blockFromJson(
                JsonReader(top, (*blocks)[i], QStringLiteral("%1[%2]").arg(QLatin1String(key)).arg(i)), false));
    }
}

json steadyToJson(const SteadySummary &steady)
{
    const SteadyWindow &w = steady.window;
    json j{{"found", w.found},
           {"start_s", w.startS},
           {"end_s", w.endS},
           {"run_s", w.runS},
           {"latency", w.e2e ? "e2e" : "ttft"},
           {"method", toStd(steady.method)}};
    if (!w.found)
        j["reason"] = toStd(w.reason);
    if (steady.block)
        j["block"] = blockToJson(*steady.block, false);
    return j;
}

SteadySummary steadyFromJson(JsonReader n)
{
    SteadySummary steady;
    SteadyWindow &w = steady.window;
    n.boolean("found", w.found);
    const int most = int(kMaxTimeSeriesSeconds);
    n.integer("start_s", w.startS, 0, most);
    n.integer("end_s", w.endS, 0, most);
    n.integer("run_s", w.runS, 0, most);
    w.e2e = n.string("latency") == QLatin1String("e2e");
    steady.method = n.string("method");
    if (!w.found)
        w.reason = n.string("reason");
    if (n.hasValue("block"))
        steady.block = blockFromJson(n.object("block"), false);
    return steady;
}

json windowToJson(const HeadlineWindowSummary &window)
{
    return {{"mode", toStd(window.mode)},
            {"start_s", window.startS},
            {"end_s", window.endS},
            {"whole", blockToJson(window.whole, true)}};
}

HeadlineWindowSummary windowFromJson(JsonReader n)
{
    HeadlineWindowSummary window;
    window.mode = n.string("mode");
    // Times on a run's clock: clamped to the longest run, so a hostile file cannot make them absurd.
    const double most = double(kMaxTimeSeriesSeconds);
    n.real("start_s", window.startS);
    n.real("end_s", window.endS);
    window.startS = std::clamp(window.startS, 0.0, most);
    window.endS = std::clamp(window.endS, window.startS, most);
    window.whole = blockFromJson(n.object("whole"), true);
    return window;
}

} // namespace

bool ConnectionSummary::isSynRetryMs(double ms)
{
    const double s = ms / 1000;
    return std::abs(s - 1) < 0.35 || std::abs(s - 3) < 0.5 || std::abs(s - 7) < 0.8;
}

QString ImageSummary::line() const
{
    const QString sent =
        QStringLiteral("%1 sent (%2 MiB)").arg(images).arg(formatNumber(double(imageBytes) / (1 << 20)));
    if (measured == 0)
        return sent + QStringLiteral("; no usage: their prompt tokens unknown");
    return sent + QStringLiteral("; prompt tokens per image %1 median, %2 mean (%3 requests' usage)")
                      .arg(formatNumber(tokensPerImageMedian), formatNumber(tokensPerImageMean()))
                      .arg(measured);
}

QString HeadlineWindowSummary::line() const
{
    const QString what = mode == QLatin1String("steady") ? QStringLiteral("the steady state %1–%2 s")
                                                         : QStringLiteral("requests sent %1–%2 s");
    return QStringLiteral("headline figures cover %1 (--window); the whole run's are kept beside them")
        .arg(what.arg(formatNumber(startS)).arg(formatNumber(endS)));
}

QString SteadySummary::line(const SummaryBlock &whole) const
{
    if (!window.found)
        return QStringLiteral("steady state: none (%1)").arg(window.reason);
    QString text = QStringLiteral("steady state %1–%2 s of %3 s").arg(window.startS).arg(window.endS).arg(window.runS);
    const Metric metric = window.e2e ? Metric::E2e : Metric::Ttft;
    if (block && block->stat(metric).count > 0)
        text += QStringLiteral(": %1 p99 %2 (whole run %3)")
                    .arg(metricLabel(metric), formatMs(block->stat(metric).p99), formatMs(whole.stat(metric).p99));
    return text;
}

std::optional<CostSummary> CostSummary::of(const Pricing &prices, const TokenSummary &tokens, std::int64_t ok,
                                           std::int64_t good)
{
    if (!prices.isSet())
        return std::nullopt;
    const auto perToken = [](const std::optional<double> &perM) { return perM.value_or(0) / 1e6; };
    CostSummary c;
    c.prices = prices;
    c.input = double(std::max<std::int64_t>(0, tokens.input - tokens.cached)) * perToken(prices.inputPerM);
    c.cachedInput =
        double(tokens.cached) * perToken(prices.cachedInputPerM ? prices.cachedInputPerM : prices.inputPerM);
    c.output = double(tokens.output) * perToken(prices.outputPerM);
    c.total = c.input + c.cachedInput + c.output;
    if (ok > 0)
        c.perRequest = c.total / double(ok);
    if (tokens.output > 0)
        c.perMOutputTokens = c.total / double(tokens.output) * 1e6;
    if (good > 0)
        c.perGoodRequest = c.total / double(good);
    return c;
}

std::int64_t RequestCounts::stoppedAtCap() const
{
    std::int64_t n = 0;
    for (const char *reason : {"length", "max_tokens"}) {
        const auto it = byFinishReason.find(QLatin1String(reason));
        n += it == byFinishReason.end() ? 0 : it->second;
    }
    return n;
}

QString metricLabel(Metric metric)
{
    return QLatin1String(kMetricNames[std::size_t(metric)].label);
}

bool isLatencyMetric(Metric metric)
{
    return std::string_view(kMetricNames[std::size_t(metric)].section) == "latency_ms";
}

bool isPhaseMetric(Metric metric)
{
    return std::string_view(kMetricNames[std::size_t(metric)].section) == "phases_ms";
}

QString SummaryBlock::partialNote() const
{
    if (!reached)
        return QStringLiteral("not reached: stopped before");
    if (!stopped)
        return {};
    const QString after = formatNumber(stopped->afterS, 3, 1);
    QString note;
    if (stopped->plannedS > 0)
        note = QStringLiteral("stopped after %1 s of %2 s").arg(after, QString::number(stopped->plannedS, 'g', 6));
    else if (stopped->plannedRequests > 0)
        note = QStringLiteral("stopped after %1 s, %2 of %3 requests")
                   .arg(after)
                   .arg(requests.attempted + requests.cancelled)
                   .arg(stopped->plannedRequests);
    else
        note = QStringLiteral("stopped after %1 s").arg(after);
    return stopped->reason.isEmpty() ? note : note + QStringLiteral(": ") + stopped->reason;
}

QString SummaryBlock::label() const
{
    const QString note = partialNote();
    return note.isEmpty() ? name : QStringLiteral("%1 (%2)").arg(name, note);
}

QString RunSummary::partialNote() const
{
    if (!partial())
        return {};
    QStringList parts{QStringLiteral("partial run: ") + total.partialNote()};
    if (stages.size() > 1) {
        for (const SummaryBlock &stage : stages) {
            if (stage.partial())
                parts << QStringLiteral("%1 %2").arg(stage.name, stage.partialNote());
        }
    }
    return parts.join(QStringLiteral("; "));
}

ConversationTokens ConversationTokens::of(const std::vector<TurnSummary> &turns)
{
    ConversationTokens c;
    for (const TurnSummary &t : turns) {
        if (t.requests <= 0)
            continue;
        c.prompt += double(t.promptTokensTotal) / double(t.requests);
        c.completion += double(t.completionTokensTotal) / double(t.requests);
        if (t.toolResults > 0)
            ++c.turnsWithToolResults;
    }
    return c;
}

QString RunSummary::transportText() const
{
    const QString &transport = connection.transport;
    if (transport.isEmpty())
        return {};
    const auto &versions = total.requests.byHttpVersion;
    QStringList parts;
    for (const auto &[version, count] : versions)
        parts << (versions.size() == 1 ? QStringLiteral("HTTP/%1").arg(version)
                                       : QStringLiteral("HTTP/%1 × %2").arg(version).arg(count));
    QString text = parts.isEmpty() ? transport : transport + QStringLiteral(" · ") + parts.join(QStringLiteral(", "));
    if (!parts.isEmpty() && !connection.alpn.isEmpty())
        text += QStringLiteral(" by ALPN (offered %1)").arg(connection.alpn.join(QStringLiteral(", ")));
    if (connection.streamsPerConnection > 1)
        text += QStringLiteral(" · up to %1 streams per connection").arg(connection.streamsPerConnection);
    if (!connection.proxy.isEmpty())
        text += QStringLiteral(" · proxy ") + connection.proxyText();
    return text;
}

QString RunSummary::apiAndTransport() const
{
    const QString transport = transportText();
    return transport.isEmpty() ? api : api + QStringLiteral(", ") + transport;
}

QString ImportedFrom::text() const
{
    QString text = tool;
    if (!version.isEmpty())
        text += QLatin1Char(' ') + version;
    if (!source.isEmpty())
        text += QStringLiteral(" (%1)").arg(source);
    return text;
}

json ImportedFrom::toJson() const
{
    return {{"tool", toStd(tool)},
            {"version", toStd(version)},
            {"source", toStd(source)},
            {"per_request", perRequest},
            {"point_values", tb::toJson(pointValues)},
            {"definitions", tb::toJson(definitions)}};
}

std::optional<ImportedFrom> ImportedFrom::fromJson(const json &j, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<ImportedFrom> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!j.is_object())
        return fail(QStringLiteral("not an object"));
    ImportedFrom in;
    const auto text = [&j](const char *key, QString &out) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string())
            return false;
        out = QString::fromStdString(it->get<std::string>());
        return true;
    };
    const auto list = [&j](const char *key, QStringList &out) {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_array())
            return false;
        for (const json &item : *it) {
            if (!item.is_string())
                return false;
            out << QString::fromStdString(item.get<std::string>());
        }
        return true;
    };
    if (!text("tool", in.tool) || !text("version", in.version) || !text("source", in.source))
        return fail(QStringLiteral("tool, version or source missing"));
    const auto perRequest = j.find("per_request");
    if (perRequest == j.end() || !perRequest->is_boolean())
        return fail(QStringLiteral("per_request missing"));
    in.perRequest = perRequest->get<bool>();
    if (!list("point_values", in.pointValues) || !list("definitions", in.definitions))
        return fail(QStringLiteral("point_values or definitions missing"));
    return in;
}

json RunSummary::toJson() const
{
    json j{
        {"format_version", formatVersion},
        {"tool", {{"name", toStd(toolName)}, {"version", toStd(toolVersion)}}},
        {"target",
         {{"name", toStd(targetName)}, {"url", toStd(targetUrl)}, {"api", toStd(api)}, {"model", toStd(model)}}},
        {"started_at", toStd(startedAt)},
        {"connection", connection.toJson()},
    };
    if (io.recorded())
        j["io"] = io.toJson();
    if (!targetReplicas.isEmpty()) {
        j["target"]["replicas"] = tb::toJson(targetReplicas);
        j["target"]["balance"] = toStd(balance);
    }
    j.update(blockToJson(total, true));
    j["warnings"] = tb::toJson(warnings);
    j["bimodal"] = json::object();
    for (const auto &[key, b] : bimodal)
        j["bimodal"][toStd(key)] = b.toJson();
    if (sliceS > 0) {
        j["slice_s"] = sliceS;
        j["slices"] = json::array();
        for (const SliceSummary &slice : slices)
            j["slices"].push_back(slice.toJson());
    }
    j["stages"] = blocksToJson(stages);
    if (!instances.empty())
        j["instances"] = blocksToJson(instances);
    if (!models.empty())
        j["models"] = blocksToJson(models);
    if (!turns.empty()) {
        json turnArray = json::array();
        for (const TurnSummary &t : turns)
            turnArray.push_back({{"turn", t.turn},
                                 {"requests", t.requests},
                                 {"ttft_ms", t.ttftMs.toJson()},
                                 {"prompt_tokens", t.promptTokens.toJson()},
                                 {"cached_tokens", t.cachedTokens.toJson()},
                                 {"completion_tokens", t.completionTokens.toJson()},
                                 {"tool_results", t.toolResults},
                                 {"prompt_tokens_total", t.promptTokensTotal},
                                 {"completion_tokens_total", t.completionTokensTotal}});
        j["turns"] = std::move(turnArray);
        const ConversationTokens cost = ConversationTokens::of(turns);
        j["conversation_tokens"] = {{"prompt", cost.prompt},
                                    {"completion", cost.completion},
                                    {"total", cost.total()},
                                    {"turns_with_tool_results", cost.turnsWithToolResults}};
    }
    if (contextSweep)
        j["context_sweep"] = contextSweep->toJson();
    if (steady)
        j["steady"] = steadyToJson(*steady);
    if (window)
        j["window"] = windowToJson(*window);
    const PromptSizing &p = promptSizing;
    json calibration;
    if (!p.calibration.isEmpty()) {
        calibration = {{"method", toStd(p.calibration)},
                       {"dialect", p.calibrationDialect.isEmpty() ? json() : json(toStd(p.calibrationDialect))},
                       {"scale", p.scale},
                       {"overhead", p.overhead},
                       {"trim", p.trim},
                       {"pad", p.pad},
                       {"probes", p.probes},
                       {"probed", p.probed ? json(*p.probed) : json()}};
    } else if (!p.calibrationError.isEmpty()) {
        calibration = {{"error", toStd(p.calibrationError)}};
    }
    if (!calibration.is_null())
        calibration["seconds"] = p.calibrationS;
    j["prompt_size"] = {{"requested", p.requested ? json(*p.requested) : json()},
                        {"measured_mean",
                         total.requests.ok > 0 ? json(double(total.tokens.input) / double(total.requests.ok)) : json()},
                        {"measured_min", total.tokens.promptMin},
                        {"measured_max", total.tokens.promptMax},
                        {"tokenizer", toStd(p.tokenizer)},
                        {"local_tokens", p.localTokens},
                        {"calibration", calibration}};
    if (server)
        j["server"] = server->toJson();
    if (gpu)
        j["gpu"] = gpu->toJson();
    if (cancellation)
        j["cancellation"] = cancellation->toJson();
    if (client)
        j["client"] = client->toJson();
    if (imported)
        j["imported"] = imported->toJson();
    if (workload.is_object())
        j["workload"] = workload;
    return j;
}

std::optional<RunSummary> RunSummary::fromJson(const json &j, QString *error)
{
    QString problem;
    JsonReader top(j, QString(), &problem, QStringLiteral("summary"));
    RunSummary s;
    s.formatVersion = int(top.integer("format_version"));
    if (problem.isEmpty() && s.formatVersion > kRunFormatVersion) {
        if (error)
            *error = newerFormatVersion(s.formatVersion, kRunFormatVersion);
        return std::nullopt;
    }
    const JsonReader tool = top.object("tool");
    s.toolName = tool.string("name");
    s.toolVersion = tool.string("version");
    JsonReader target = top.object("target");
    s.targetName = target.has("name") ? target.string("name") : QString();
    s.targetUrl = target.string("url");
    s.api = target.string("api");
    s.model = target.string("model");
    if (target.has("replicas")) {
        target.stringList("replicas", s.targetReplicas);
        s.balance = target.string("balance");
    }
    if (top.has("started_at"))
        s.startedAt = top.string("started_at");
    if (top.has("connection"))
        s.connection = ConnectionInfo::fromJson(j["connection"]);
    if (const auto io = j.find("io"); io != j.end()) // runs from before it have none
        s.io = IoInfo::fromJson(*io);
    s.total = blockFromJson(top, true);
    if (const auto w = j.find("workload"); w != j.end() && w->is_object())
        s.workload = *w;
    if (top.has("prompt_size")) {
        const JsonReader p = top.object("prompt_size");
        if (const auto requested = p.optionalNumber("requested"))
            s.promptSizing.requested = saturatingRound(*requested);
        s.promptSizing.tokenizer = p.string("tokenizer");
        s.promptSizing.localTokens = p.integer("local_tokens");
        if (p.hasValue("calibration")) {
            if (const JsonReader c = p.object("calibration"); c.has("seconds")) // none in runs from before
                s.promptSizing.calibrationS = c.number("seconds");
        }
        if (p.has("calibration") && p.value()["calibration"].contains("error")) {
            s.promptSizing.calibrationError = p.object("calibration").string("error");
        } else if (p.has("calibration") && !p.value()["calibration"].is_null()) {
            const JsonReader c = p.object("calibration");
            s.promptSizing.calibration = c.string("method");
            if (c.hasValue("dialect")) // none in older runs
                s.promptSizing.calibrationDialect = c.string("dialect");
            s.promptSizing.scale = c.number("scale");
            s.promptSizing.overhead = c.integer("overhead");
            if (c.has("pad")) { // since the fine correction
                s.promptSizing.trim = c.integer("trim");
                s.promptSizing.pad = c.integer("pad");
            }
            s.promptSizing.probes = int(c.integer("probes"));
            if (const auto probed = c.optionalNumber("probed"))
                s.promptSizing.probed = saturatingRound(*probed);
        }
    }
    top.stringList("warnings", s.warnings);
    if (top.has("bimodal")) { // summaries from before the check have none
        const JsonReader bimodal = top.object("bimodal");
        for (const auto &item : bimodal.value().items()) {
            if (const auto b = bimodal.nested<Bimodality>(item.key().c_str()))
                s.bimodal[fromStd(item.key())] = *b;
        }
    }
    if (top.has("slice_s")) { // runs without --slice have none
        s.sliceS = top.number("slice_s");
        if (const json *slices = top.array("slices")) {
            for (std::size_t i = 0; i < slices->size() && i < std::size_t(SliceAggregator::kMaxSlices); ++i) {
                QString why;
                if (const auto slice = SliceSummary::fromJson((*slices)[i], &why)) {
                    s.slices.push_back(*slice);
                } else {
                    top.fail(QStringLiteral("slices[%1]").arg(i), why);
                    break;
                }
            }
        }
    }
    blocksFromJson(top, "stages", s.stages);
    if (top.has("instances"))
        blocksFromJson(top, "instances", s.instances);
    if (top.has("models")) // summaries from before model mixes have none
        blocksFromJson(top, "models", s.models);
    if (top.has("turns")) {
        if (const json *turns = top.array("turns")) {
            for (std::size_t i = 0; i < turns->size() && i < std::size_t(limits::kMaxTurns); ++i) {
                const json &t = (*turns)[i];
                const QString where = QStringLiteral("turns[%1]").arg(i);
                if (!t.is_object() || !t.value("turn", json()).is_number_integer() ||
                    !t.value("requests", json()).is_number_integer()) {
                    top.fail(where, QStringLiteral("must be an object with integers 'turn' and 'requests'"));
                    break;
                }
                const JsonReader reader(top, t, where);
                TurnSummary turn;
                const auto stats = [&](const char *key, LatencyStats &out) {
                    if (const auto parsed = reader.nested<LatencyStats>(key))
                        out = *parsed;
                };
                turn.turn = t["turn"].get<int>();
                turn.requests = t["requests"].get<std::int64_t>();
                stats("ttft_ms", turn.ttftMs);
                stats("prompt_tokens", turn.promptTokens);
                stats("cached_tokens", turn.cachedTokens);
                stats("completion_tokens", turn.completionTokens); // summaries from before agent loops: none
                const auto total = [&](const char *key) {
                    const json value = t.value(key, json());
                    return value.is_number_integer() ? std::max<std::int64_t>(value.get<std::int64_t>(), 0)
                                                     : std::int64_t(0);
                };
                turn.toolResults = total("tool_results");
                turn.promptTokensTotal = total("prompt_tokens_total");
                turn.completionTokensTotal = total("completion_tokens_total");
                s.turns.push_back(turn);
            }
        }
    }
    if (top.has("context_sweep"))
        s.contextSweep = top.nested<ContextSweepSummary>("context_sweep");
    if (top.hasValue("steady"))
        s.steady = steadyFromJson(top.object("steady"));
    if (top.hasValue("window"))
        s.window = windowFromJson(top.object("window"));
    if (top.hasValue("server"))
        s.server = top.nested<ServerSummary>("server");
    if (top.hasValue("gpu"))
        s.gpu = top.nested<GpuSummary>("gpu");
    if (top.hasValue("cancellation"))
        s.cancellation = top.nested<CancellationSummary>("cancellation");
    if (top.hasValue("client"))
        s.client = top.nested<ClientHealthSummary>("client");
    if (top.hasValue("imported"))
        s.imported = top.nested<ImportedFrom>("imported");
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    return s;
}

} // namespace tb
