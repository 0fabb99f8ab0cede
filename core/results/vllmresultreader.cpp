// vLLM `bench serve --save-result` files (vllm/benchmarks/serve.py: result_json, and with
// --save-detailed the per-request arrays; times in seconds, summary figures in ms).

#include "results/foreignruns.h"
#include "results/foreignruns_p.h"

#include <array>

namespace tb::foreign {

namespace {

/// vLLM's definitions beside ours (vllm/benchmarks/lib/endpoint_request_func.py, serve.py
/// calculate_metrics; ours in docs/metrics.md).
QStringList vllmDefinitions(bool perRequest)
{
    QStringList d{
        QStringLiteral("vLLM's TTFT starts before the HTTP request is posted (connection set-up and sending "
                       "included) and ends when Python parsed the first chunk; TokenBench's runs from the "
                       "request's bytes sent to the chunk's arrival at the socket"),
        QStringLiteral("vLLM's ITL is the gap between streamed chunks, whatever tokens each carries: TokenBench's ICL "
                       "(its ITL divides each gap by the chunk's tokens)"),
        QStringLiteral("vLLM's TPOT is (latency − TTFT) / (output tokens − 1), as TokenBench's"),
        QStringLiteral("vLLM's throughput divides by the benchmark's duration (start to the last answer); "
                       "TokenBench's by its window (first request sent to the last done)"),
    };
    if (perRequest)
        d << QStringLiteral("vLLM's file keeps no text of chunks: each request's tokens are spread evenly over its "
                            "chunks for ITL");
    return d;
}

std::optional<RunData> readOne(const nlohmann::json &r, const QString &source, const QString &at, QString *error)
{
    Fields f;
    Head head;
    head.from.tool = QStringLiteral("vLLM bench serve");
    head.from.source = source;
    head.model = Fields::text(r, "model_id");
    // "date": datetime.now().strftime("%Y%m%d-%H%M%S"), the machine's local time.
    head.startedAt = QDateTime::fromString(Fields::text(r, "date"), QStringLiteral("yyyyMMdd-HHmmss"));
    if (const auto c = f.count(r, "max_concurrency", at); c && *c > 0)
        head.concurrency = int(std::min<std::int64_t>(*c, 1'000'000));
    // request_rate: a number, or the string "inf" (everything at once).
    if (r.contains("request_rate") && r["request_rate"].is_number())
        head.rate = f.real(r, "request_rate", at);
    if (!head.concurrency && !head.rate) {
        if (const auto n = f.count(r, "num_prompts", at); n && *n > 0)
            head.concurrency = int(std::min<std::int64_t>(*n, 1'000'000));
    }

    const bool perRequest = r.contains("ttfts") && r.contains("itls");
    head.from.perRequest = perRequest;
    head.from.definitions = vllmDefinitions(perRequest);
    const auto path = [&at](const char *key) { return at.isEmpty() ? QLatin1String(key) : at + QLatin1String(key); };

    if (perRequest) {
        // Every array has one value a request, in the order of ttfts.
        const std::array<const char *, 7> arrays{"ttfts",     "itls",        "input_lens", "output_lens",
                                                 "latencies", "start_times", "errors"};
        std::size_t n = 0;
        for (std::size_t k = 0; k < arrays.size(); ++k) {
            const char *key = arrays[k];
            if (!r.contains(key))
                continue;
            if (!r[key].is_array()) {
                *error = path(key) + QStringLiteral(": not an array");
                return std::nullopt;
            }
            if (r[key].size() > ForeignRuns::kMaxRequests) {
                *error = path(key) + QStringLiteral(": more than %1 requests").arg(ForeignRuns::kMaxRequests);
                return std::nullopt;
            }
            if (k == 0) {
                n = r[key].size();
            } else if (r[key].size() != n) {
                *error = path(key) + QStringLiteral(": %1 values, ttfts has %2").arg(r[key].size()).arg(n);
                return std::nullopt;
            }
        }
        const nlohmann::json empty = nlohmann::json::array();
        const auto column = [&](const char *key) -> const nlohmann::json & { return r.contains(key) ? r[key] : empty; };
        const nlohmann::json &ttfts = column("ttfts");
        const nlohmann::json &itls = column("itls");
        const nlohmann::json &inputs = column("input_lens");
        const nlohmann::json &outputs = column("output_lens");
        const nlohmann::json &latencies = column("latencies");
        const nlohmann::json &starts = column("start_times");
        const nlohmann::json &errors = column("errors");
        // start_times are time.perf_counter() readings: only their differences mean anything.
        double origin = -1;
        for (std::size_t i = 0; i < starts.size(); ++i) {
            if (const auto s = f.value(starts[i], QStringLiteral("%1[%2]").arg(path("start_times")).arg(i)))
                origin = origin < 0 ? *s : std::min(origin, *s);
        }
        std::vector<RequestRecord> records;
        records.reserve(n);
        for (std::size_t i = 0; i < n && f.ok(); ++i) {
            const auto at_ = [&](const char *key) { return QStringLiteral("%1[%2]").arg(path(key)).arg(i); };
            RequestRecord rec;
            rec.id = i + 1;
            const double start =
                i < starts.size() ? f.value(starts[i], at_("start_times")).value_or(origin) - origin : 0;
            rec.sentNs = rec.scheduledNs = toNs(std::max(start, 0.0));
            rec.tokenSource = rec.promptTokenSource = TokenSource::Usage;
            if (i < inputs.size())
                rec.promptTokens = std::int64_t(std::min(f.value(inputs[i], at_("input_lens")).value_or(0), 1e12));
            const QString err =
                i < errors.size() && errors[i].is_string()
                    ? QString::fromStdString(errors[i].get<std::string>().substr(0, 4 * Fields::kMaxTextChars))
                          .left(Fields::kMaxTextChars)
                    : QString();
            const auto ttft = f.value(ttfts[i], at_("ttfts"));
            // A failed request keeps ttft 0 and an error (calculate_metrics counts it by success).
            if (!err.isEmpty() || !ttft || *ttft <= 0) {
                rec.status = RequestStatus::ServerError;
                rec.errorMessage = err.isEmpty() ? QStringLiteral("failed (vLLM recorded no error text)") : err;
                rec.doneNs = rec.sentNs;
                records.push_back(std::move(rec));
                continue;
            }
            if (i < outputs.size())
                rec.completionTokens =
                    std::int64_t(std::min(f.value(outputs[i], at_("output_lens")).value_or(0), 1e12));
            rec.firstTokenNs = rec.firstContentNs = rec.sentNs + toNs(*ttft);
            const nlohmann::json &gaps = itls[i];
            if (!gaps.is_array()) {
                f.fail(at_("itls"), QStringLiteral("not an array"));
                break;
            }
            if (!f.takeChunks(gaps.size() + 1, at_("itls")))
                break;
            std::int64_t t = rec.firstTokenNs;
            rec.tokenChunks.reserve(gaps.size() + 1);
            rec.tokenChunks.push_back({t, 1});
            for (std::size_t k = 0; k < gaps.size(); ++k) {
                t += toNs(f.value(gaps[k], QStringLiteral("%1[%2]").arg(at_("itls")).arg(k)).value_or(0));
                rec.tokenChunks.push_back({t, 1});
            }
            rec.chunks = int(std::min<std::size_t>(rec.tokenChunks.size(), std::size_t(INT32_MAX)));
            rec.lastTokenNs = t;
            const double latency = i < latencies.size() ? f.value(latencies[i], at_("latencies")).value_or(0) : 0;
            rec.doneNs = std::max(rec.sentNs + toNs(latency), rec.lastTokenNs);
            rec.finishReason = QStringLiteral("stop");
            records.push_back(std::move(rec));
        }
        if (!f.ok()) {
            *error = f.problem();
            return std::nullopt;
        }
        RunData run = runFromRecords(head, std::move(records));
        if (starts.empty()) {
            // No send times (files from before start_times): the requests' places in time are
            // unknown, so the rates are vLLM's own over its duration.
            SummaryBlock &t = run.summary.total;
            if (const auto d = f.real(r, "duration", at); d && *d > 0) {
                t.windowS = *d;
                t.throughput.requestsPerS = double(t.requests.ok) / *d;
                t.throughput.outputTokensPerS = double(t.tokens.output) / *d;
                t.throughput.inputTokensPerS = double(t.tokens.input) / *d;
                t.throughput.totalTokensPerS = double(t.tokens.input + t.tokens.output) / *d;
            }
            run.summary.imported->definitions
                << QStringLiteral("the file has no start_times: rates are over vLLM's duration, the time series is "
                                  "not meaningful");
        }
        return run;
    }

    SummaryBlock block;
    for (LatencyStats &s : block.stats)
        s = Points{}.stats();
    const auto completed = f.count(r, "completed", at).value_or(0);
    const auto failedCount = f.count(r, "failed", at).value_or(0);
    block.requests.ok = completed;
    block.requests.failed = failedCount;
    block.requests.attempted = completed + failedCount;
    block.windowS = f.real(r, "duration", at).value_or(0);
    block.tokens.input = f.count(r, "total_input_tokens", at).value_or(0);
    block.tokens.output = f.count(r, "total_output_tokens", at).value_or(0);
    block.throughput.requestsPerS = f.real(r, "request_throughput", at).value_or(0);
    block.throughput.outputTokensPerS = f.real(r, "output_throughput", at).value_or(0);
    block.throughput.totalTokensPerS = f.real(r, "total_token_throughput", at).value_or(0);
    block.throughput.inputTokensPerS = block.windowS > 0 ? double(block.tokens.input) / block.windowS : 0;
    block.throughput.peakOutputTokensPerS = f.real(r, "max_output_tokens_per_s", at).value_or(0);
    if (completed > 0)
        block.tokens.outInRatio = block.tokens.input > 0
                                      ? std::optional<double>(double(block.tokens.output) / double(block.tokens.input))
                                      : std::nullopt;
    // process_one_metric: mean_/median_/std_/p<N>_<metric>_ms, the percentiles --metric-percentiles chose.
    const std::pair<const char *, Metric> metrics[] = {
        {"ttft", Metric::Ttft}, {"tpot", Metric::Tpot}, {"itl", Metric::Icl}, {"e2el", Metric::E2e}};
    for (const auto &[name, metric] : metrics) {
        const auto key = [name = name](const char *stat) {
            return QStringLiteral("%1_%2_ms").arg(QLatin1String(stat), QLatin1String(name)).toStdString();
        };
        const auto get = [&](const char *stat) { return f.real(r, key(stat).c_str(), at); };
        Points p;
        p.mean = get("mean");
        p.p50 = get("median");
        p.stddev = get("std");
        p.p90 = get("p90");
        p.p95 = get("p95");
        p.p99 = get("p99");
        p.p999 = get("p99.9");
        p.count = std::uint64_t(completed);
        if (p.mean || p.p50 || p.p99) {
            block.stats[std::size_t(metric)] = p.stats();
            head.from.pointValues << (metric == Metric::E2e   ? QStringLiteral("e2e")
                                      : metric == Metric::Icl ? QStringLiteral("icl")
                                                              : QLatin1String(name));
        }
    }
    if (!f.ok()) {
        *error = f.problem();
        return std::nullopt;
    }
    return runFromPoints(head, std::move(block));
}

} // namespace

std::optional<std::vector<RunData>> readVllm(const std::vector<nlohmann::json> &results, const QString &source,
                                             QString *error)
{
    std::vector<RunData> runs;
    for (std::size_t i = 0; i < results.size(); ++i) {
        const QString at = results.size() > 1 ? QStringLiteral("line %1: ").arg(i + 1) : QString();
        auto run = readOne(results[i], source, at, error);
        if (!run)
            return std::nullopt;
        runs.push_back(std::move(*run));
    }
    return runs;
}

} // namespace tb::foreign
