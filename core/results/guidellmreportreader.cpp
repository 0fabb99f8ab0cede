// GuideLLM's benchmarks.json (src/guidellm/benchmark/schemas/report.py GenerativeBenchmarksReport:
// metadata, config, benchmarks[]; each a GenerativeBenchmark with scheduler_metrics, metrics of
// StatusDistributionSummary and requests.{successful,incomplete,errored} of GenerativeRequestStats,
// whose info.timings are Unix times in seconds).

#include "results/foreignruns.h"
#include "results/foreignruns_p.h"

#include <limits>

namespace tb::foreign {

namespace {

QStringList guidellmDefinitions(bool perRequest)
{
    QStringList d{
        QStringLiteral("GuideLLM's TTFT runs from its request_start (its backend's time before the request is "
                       "sent) to the first token iteration; TokenBench's from the request's bytes sent to the "
                       "first token chunk"),
        QStringLiteral("GuideLLM's ITL is (last token − first token) / (output tokens − 1) per request: TokenBench's "
                       "TPOT, and it is imported as TPOT"),
        QStringLiteral("GuideLLM's TPOT is (last token − request start) / output tokens, TTFT included: TokenBench "
                       "has no such metric and it is not imported"),
    };
    if (perRequest)
        d << QStringLiteral("GuideLLM keeps a request's first and last token times only: TokenBench's ITL is each "
                            "request's mean, ICL and tokens per chunk are not known");
    return d;
}

std::optional<RunData> readBenchmark(const nlohmann::json &report, const nlohmann::json &b, const QString &at,
                                     const QString &source, QString *error)
{
    Fields f;
    Head head;
    head.from.tool = QStringLiteral("GuideLLM");
    head.from.source = source;
    const nlohmann::json &metadata = Fields::member(report, "metadata");
    head.from.version = Fields::text(metadata, "guidellm_version");
    const nlohmann::json &config = Fields::member(b, "config");
    head.model = Fields::text(Fields::member(config, "backend"), "model");
    if (head.model.isEmpty())
        head.model = Fields::text(Fields::member(report, "config"), "model");
    // SchedulingStrategy: "constant"/"poisson" have a rate, "concurrent" streams, "synchronous" one.
    const nlohmann::json &strategy = Fields::member(config, "strategy");
    const QString type = Fields::text(strategy, "type_");
    if (type == QLatin1String("constant") || type == QLatin1String("poisson"))
        head.rate = f.real(strategy, "rate", at + QStringLiteral(".config.strategy"));
    else if (const auto streams = f.count(strategy, "streams", at + QStringLiteral(".config.strategy")))
        head.concurrency = int(std::min<std::int64_t>(*streams, 1'000'000));
    else if (const auto c = f.count(strategy, "max_concurrency", at + QStringLiteral(".config.strategy")))
        head.concurrency = int(std::min<std::int64_t>(*c, 1'000'000));
    const nlohmann::json &scheduler = Fields::member(b, "scheduler_metrics");
    const QString schedulerAt = at + QStringLiteral(".scheduler_metrics");
    const auto start =
        f.real(b, "start_time", at).value_or(f.real(scheduler, "measure_start_time", schedulerAt).value_or(0));
    const auto end = f.real(b, "end_time", at).value_or(f.real(scheduler, "measure_end_time", schedulerAt).value_or(0));
    if (start > 0)
        head.startedAt = QDateTime::fromMSecsSinceEpoch(std::int64_t(std::min(start, 1e13) * 1000));
    const nlohmann::json &made = Fields::member(scheduler, "requests_made");
    const QString madeAt = schedulerAt + QStringLiteral(".requests_made");

    const nlohmann::json &requests = Fields::member(b, "requests");
    const char *statuses[] = {"successful", "errored", "incomplete"};
    std::size_t listed = 0;
    for (const char *status : statuses) {
        if (const nlohmann::json &list = Fields::member(requests, status); list.is_array())
            listed += list.size();
    }
    if (listed > ForeignRuns::kMaxRequests) {
        *error = at + QStringLiteral(".requests: more than %1 requests").arg(ForeignRuns::kMaxRequests);
        return std::nullopt;
    }
    head.from.perRequest = listed > 0;
    head.from.definitions = guidellmDefinitions(listed > 0);

    if (listed > 0) {
        // The run's t = 0: the first request's start.
        double origin = std::numeric_limits<double>::infinity();
        for (const char *status : statuses) {
            const nlohmann::json &list = Fields::member(requests, status);
            if (!list.is_array())
                continue;
            for (const nlohmann::json &q : list) {
                const nlohmann::json &timings = Fields::member(Fields::member(q, "info"), "timings");
                if (const nlohmann::json &t = Fields::member(timings, "request_start"); t.is_number())
                    origin = std::min(origin, t.get<double>());
            }
        }
        if (!std::isfinite(origin))
            origin = start;
        std::vector<RequestRecord> records;
        records.reserve(listed);
        for (const char *status : statuses) {
            const nlohmann::json &list = Fields::member(requests, status);
            if (!list.is_array())
                continue;
            for (std::size_t i = 0; i < list.size() && f.ok(); ++i) {
                const nlohmann::json &q = list[i];
                const QString qAt = QStringLiteral("%1.requests.%2[%3]").arg(at, QLatin1String(status)).arg(i);
                const nlohmann::json &info = Fields::member(q, "info");
                const nlohmann::json &timings = Fields::member(info, "timings");
                const QString tAt = qAt + QStringLiteral(".info.timings");
                const auto offset = [&](const char *key) -> std::int64_t {
                    const auto t = f.real(timings, key, tAt);
                    return t ? toNs(std::max(*t - origin, 0.0)) : -1;
                };
                RequestRecord rec;
                rec.id = records.size() + 1;
                rec.sentNs = offset("request_start");
                if (rec.sentNs < 0)
                    rec.sentNs = std::max<std::int64_t>(offset("resolve_start"), 0);
                rec.scheduledNs = rec.sentNs;
                rec.promptTokens =
                    std::min<std::int64_t>(f.count(q, "prompt_tokens", qAt).value_or(0), 1'000'000'000'000);
                rec.tokenSource = rec.promptTokenSource = TokenSource::Usage;
                const std::int64_t end = offset("request_end");
                rec.doneNs = end >= 0 ? std::max(end, rec.sentNs) : rec.sentNs;
                if (QLatin1String(status) == QLatin1String("successful")) {
                    rec.completionTokens =
                        std::min<std::int64_t>(f.count(q, "output_tokens", qAt).value_or(0), 1'000'000'000'000);
                    const std::int64_t first = offset("first_token_iteration");
                    const std::int64_t last = offset("last_token_iteration");
                    if (first >= 0) {
                        rec.firstTokenNs = rec.firstContentNs = std::max(first, rec.sentNs);
                        rec.lastTokenNs = std::max(last, rec.firstTokenNs);
                        if (!f.takeChunks(2, qAt))
                            break;
                        // The first iteration's token, then the rest at the last: each request's
                        // ITL is GuideLLM's (last − first) / (tokens − 1).
                        // Characters 0 and tokens − 1 apportion exactly 1 and tokens − 1 (metrics.md "ITL and ICL").
                        rec.tokenChunks.push_back({rec.firstTokenNs, 0});
                        if (rec.completionTokens > 1 && rec.lastTokenNs > rec.firstTokenNs)
                            rec.tokenChunks.push_back(
                                {rec.lastTokenNs,
                                 std::int32_t(std::min<std::int64_t>(rec.completionTokens - 1,
                                                                     std::numeric_limits<std::int32_t>::max()))});
                        rec.chunks = int(rec.tokenChunks.size());
                        rec.doneNs = std::max(rec.doneNs, rec.lastTokenNs);
                    }
                    rec.finishReason = QStringLiteral("stop");
                } else if (QLatin1String(status) == QLatin1String("errored")) {
                    rec.status = RequestStatus::ServerError;
                    rec.errorMessage = Fields::text(info, "error");
                    if (rec.errorMessage.isEmpty())
                        rec.errorMessage = QStringLiteral("errored (GuideLLM recorded no error text)");
                } else {
                    // Still running when the benchmark ended: neither ok nor failed, as Stop's.
                    rec.status = RequestStatus::Cancelled;
                }
                records.push_back(std::move(rec));
            }
        }
        if (!f.ok()) {
            *error = f.problem();
            return std::nullopt;
        }
        const nlohmann::json &successful = Fields::member(requests, "successful");
        const auto okListed = std::int64_t(successful.is_array() ? successful.size() : 0);
        const auto okMade = f.count(made, "successful", madeAt);
        RunData run = runFromRecords(head, std::move(records));
        for (Metric m : {Metric::Icl, Metric::TokensPerChunk}) {
            run.summary.total.stats[std::size_t(m)] = Points{}.stats();
            run.summary.total.histograms[std::size_t(m)] = LogHistogram();
        }
        if (okMade && *okMade > okListed)
            run.summary.imported->definitions
                << QStringLiteral("the file keeps %1 of %2 successful requests (GuideLLM's sample): every figure is "
                                  "of the sample")
                       .arg(okListed)
                       .arg(*okMade);
        return run;
    }

    // The summary alone: metrics.<name>.successful is a DistributionSummary.
    SummaryBlock block;
    for (LatencyStats &s : block.stats)
        s = Points{}.stats();
    const nlohmann::json &metrics = Fields::member(b, "metrics");
    const auto points = [&](const char *name, double scale) {
        const QString mAt = QStringLiteral("%1.metrics.%2.successful").arg(at, QLatin1String(name));
        const nlohmann::json &d = Fields::member(Fields::member(metrics, name), "successful");
        const nlohmann::json &pct = Fields::member(d, "percentiles");
        const QString pAt = mAt + QStringLiteral(".percentiles");
        const auto scaled = [scale](std::optional<double> v) { return v ? std::optional<double>(*v * scale) : v; };
        Points p;
        p.mean = scaled(f.real(d, "mean", mAt));
        p.p50 = scaled(f.real(d, "median", mAt));
        p.stddev = scaled(f.real(d, "std_dev", mAt));
        p.min = scaled(f.real(d, "min", mAt));
        p.max = scaled(f.real(d, "max", mAt));
        p.p90 = scaled(f.real(pct, "p90", pAt));
        p.p95 = scaled(f.real(pct, "p95", pAt));
        p.p99 = scaled(f.real(pct, "p99", pAt));
        p.p999 = scaled(f.real(pct, "p999", pAt));
        p.count = std::uint64_t(f.count(d, "count", mAt).value_or(0));
        return p;
    };
    const std::tuple<const char *, double, Metric, const char *> mapped[] = {
        {"time_to_first_token_ms", 1, Metric::Ttft, "ttft"},
        {"inter_token_latency_ms", 1, Metric::Tpot, "tpot"},
        {"request_latency", 1000, Metric::E2e, "e2e"}, // seconds
    };
    for (const auto &[name, scale, metric, key] : mapped) {
        const Points p = points(name, scale);
        if (p.count > 0 && (p.mean || p.p50)) {
            block.stats[std::size_t(metric)] = p.stats();
            head.from.pointValues << QLatin1String(key);
        }
    }
    block.requests.ok = f.count(made, "successful", madeAt).value_or(0);
    block.requests.failed = f.count(made, "errored", madeAt).value_or(0);
    block.requests.cancelled = f.count(made, "incomplete", madeAt).value_or(0);
    block.requests.attempted = block.requests.ok + block.requests.failed;
    block.windowS = end > start ? end - start : 0;
    const auto sum = [&](const char *name) {
        const nlohmann::json &d = Fields::member(Fields::member(metrics, name), "successful");
        return std::int64_t(std::min(
            f.real(d, "total_sum", QStringLiteral("%1.metrics.%2.successful").arg(at, QLatin1String(name))).value_or(0),
            1e15));
    };
    block.tokens.input = sum("prompt_token_count");
    block.tokens.output = sum("output_token_count");
    if (block.windowS > 0) {
        block.throughput.requestsPerS = double(block.requests.ok) / block.windowS;
        block.throughput.outputTokensPerS = double(block.tokens.output) / block.windowS;
        block.throughput.inputTokensPerS = double(block.tokens.input) / block.windowS;
        block.throughput.totalTokensPerS = double(block.tokens.input + block.tokens.output) / block.windowS;
    }
    if (block.tokens.input > 0)
        block.tokens.outInRatio = double(block.tokens.output) / double(block.tokens.input);
    if (!f.ok()) {
        *error = f.problem();
        return std::nullopt;
    }
    return runFromPoints(head, std::move(block));
}

} // namespace

std::optional<std::vector<RunData>> readGuidellm(const nlohmann::json &report, const QString &source, QString *error)
{
    const nlohmann::json &benchmarks = report["benchmarks"];
    if (benchmarks.size() > ForeignRuns::kMaxRuns) {
        *error = QStringLiteral("benchmarks: more than %1").arg(ForeignRuns::kMaxRuns);
        return std::nullopt;
    }
    std::vector<RunData> runs;
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        const QString at = QStringLiteral("benchmarks[%1]").arg(i);
        if (!benchmarks[i].is_object()) {
            *error = at + QStringLiteral(": not an object");
            return std::nullopt;
        }
        auto run = readBenchmark(report, benchmarks[i], at, source, error);
        if (!run)
            return std::nullopt;
        runs.push_back(std::move(*run));
    }
    return runs;
}

} // namespace tb::foreign
