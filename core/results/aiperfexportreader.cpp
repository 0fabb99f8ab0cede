// AIPerf's exports (aiperf/exporters/json_exporter.py JsonExportData → profile_export_aiperf.json;
// aiperf/common/models/record_models.py MetricRecordInfo → profile_export.jsonl, one a request:
// metadata with request_start_ns/request_end_ns, metrics {name: {value, unit}}, error).

#include "results/foreignruns.h"
#include "results/foreignruns_p.h"

namespace tb::foreign {

namespace {

QStringList aiperfDefinitions(bool perRequest)
{
    QStringList d{
        QStringLiteral("AIPerf's TTFT runs from the request's start (taken before it is sent) to the first "
                       "response; TokenBench's from the request's bytes sent to the first token chunk"),
        QStringLiteral("AIPerf's ITL is (request latency − TTFT) / (output tokens − 1) per request: TokenBench's "
                       "TPOT, and it is imported as TPOT; its inter-chunk latency is TokenBench's ICL"),
    };
    if (perRequest)
        d << QStringLiteral("AIPerf's records keep no text of chunks: each request's tokens are spread evenly over "
                            "its chunks for ITL");
    return d;
}

/// Milliseconds per unit of an AIPerf value ("ms" in its exports; its metrics are kept in ns).
std::optional<double> msPerUnit(const QString &unit)
{
    if (unit == QLatin1String("ms"))
        return 1.0;
    if (unit == QLatin1String("ns"))
        return 1e-6;
    if (unit == QLatin1String("us"))
        return 1e-3;
    if (unit == QLatin1String("sec") || unit == QLatin1String("s"))
        return 1e3;
    return std::nullopt;
}

/// The configuration a summary names (UserConfig: endpoint.model_names, loadgen.concurrency and
/// request_rate), what the records lack.
void readConfig(const nlohmann::json &summary, Head &head, Fields &f)
{
    const nlohmann::json &config = Fields::member(summary, "input_config");
    const nlohmann::json &names = Fields::member(Fields::member(config, "endpoint"), "model_names");
    if (names.is_array() && !names.empty() && names[0].is_string())
        head.model = QString::fromStdString(names[0].get<std::string>()).left(Fields::kMaxTextChars);
    const nlohmann::json &loadgen = Fields::member(config, "loadgen");
    const QString at = QStringLiteral("input_config.loadgen");
    if (const auto rate = f.real(loadgen, "request_rate", at); rate && *rate > 0)
        head.rate = rate;
    if (const auto c = f.count(loadgen, "concurrency", at); c && *c > 0)
        head.concurrency = int(std::min<std::int64_t>(*c, 1'000'000));
}

/// A whole nanosecond stamp (AIPerf's are epoch ns, beyond a double's exact integers).
std::optional<std::int64_t> stampNs(const nlohmann::json &object, const char *key, const QString &at, Fields &f)
{
    const nlohmann::json &v = Fields::member(object, key);
    if (v.is_null())
        return std::nullopt;
    if (v.is_number_unsigned())
        return std::int64_t(std::min<std::uint64_t>(v.get<std::uint64_t>(), std::uint64_t(INT64_MAX)));
    if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
        return v.get<std::int64_t>();
    f.fail(at + QLatin1Char('.') + QLatin1String(key), QStringLiteral("not a time in ns"));
    return std::nullopt;
}

} // namespace

std::optional<std::vector<RunData>> readAiperfRecords(const QList<QByteArray> &lines, const nlohmann::json &summary,
                                                      const QString &source, QString *error)
{
    Fields f;
    Head head;
    head.from.tool = QStringLiteral("AIPerf");
    head.from.source = source;
    head.from.perRequest = true;
    head.from.definitions = aiperfDefinitions(true);
    readConfig(summary, head, f);

    std::vector<nlohmann::json> parsed;
    parsed.reserve(std::size_t(lines.size()));
    std::int64_t origin = INT64_MAX;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        auto json = parseJson(lines[i]);
        const QString at = QStringLiteral("line %1").arg(i + 1);
        if (!json || !isAiperfRecord(*json)) {
            *error = at + QStringLiteral(": not an AIPerf record");
            return std::nullopt;
        }
        if (const auto start = stampNs((*json)["metadata"], "request_start_ns", at + QStringLiteral(".metadata"), f))
            origin = std::min(origin, *start);
        parsed.push_back(std::move(*json));
    }
    if (!f.ok()) {
        *error = f.problem();
        return std::nullopt;
    }
    if (origin != INT64_MAX)
        head.startedAt = QDateTime::fromMSecsSinceEpoch(origin / 1'000'000);

    std::vector<RequestRecord> records;
    records.reserve(parsed.size());
    for (std::size_t i = 0; i < parsed.size() && f.ok(); ++i) {
        const nlohmann::json &line = parsed[i];
        const QString at = QStringLiteral("line %1").arg(i + 1);
        const nlohmann::json &meta = line["metadata"];
        const nlohmann::json &metrics = Fields::member(line, "metrics");
        const QString metaAt = at + QStringLiteral(".metadata");
        RequestRecord rec;
        rec.id = i + 1;
        // Only the profiling phase is measured; warm-up records are kept as ours are.
        rec.warmup = Fields::text(meta, "benchmark_phase") == QLatin1String("warmup");
        const auto start = stampNs(meta, "request_start_ns", metaAt, f);
        rec.sentNs = rec.scheduledNs = start ? *start - origin : 0;
        const auto endNs = stampNs(meta, "request_end_ns", metaAt, f);
        rec.doneNs = endNs && *endNs >= origin ? std::max(*endNs - origin, rec.sentNs) : rec.sentNs;
        const auto metric = [&](const char *name) -> std::optional<double> {
            const nlohmann::json &m = Fields::member(metrics, name);
            if (m.is_null())
                return std::nullopt;
            const QString mAt = QStringLiteral("%1.metrics.%2").arg(at, QLatin1String(name));
            const QString unit = Fields::text(m, "unit");
            const auto scale = msPerUnit(unit);
            const auto v = f.real(m, "value", mAt);
            if (!v)
                return std::nullopt;
            // Counts ("tokens") are taken as they are; times in ms.
            if (unit == QLatin1String("tokens"))
                return v;
            if (!scale) {
                f.fail(mAt + QStringLiteral(".unit"), QStringLiteral("unknown unit \"%1\"").arg(unit));
                return std::nullopt;
            }
            return *v * *scale;
        };
        rec.tokenSource = rec.promptTokenSource = TokenSource::Usage;
        const nlohmann::json &err = Fields::member(line, "error");
        if (err.is_object()) {
            const bool cancelled =
                Fields::member(meta, "was_cancelled").is_boolean() && meta["was_cancelled"].get<bool>();
            const auto code = f.count(err, "code", at + QStringLiteral(".error")).value_or(0);
            // --request-cancellation-rate cancels on purpose: the workload's, as our --cancel-rate.
            rec.status = cancelled                    ? RequestStatus::Abandoned
                         : code >= 400 && code <= 599 ? RequestStatus::Http
                                                      : RequestStatus::ServerError;
            rec.httpStatus = rec.status == RequestStatus::Http ? int(code) : 0;
            rec.errorMessage = Fields::text(err, "message");
            records.push_back(std::move(rec));
            continue;
        }
        rec.promptTokens = std::int64_t(std::min(metric("input_sequence_length").value_or(0), 1e12));
        rec.completionTokens = std::int64_t(
            std::min(metric("output_sequence_length").value_or(metric("output_token_count").value_or(0)), 1e12));
        if (const auto ttft = metric("time_to_first_token")) {
            rec.firstTokenNs = rec.firstContentNs = rec.sentNs + toNs(*ttft / 1e3);
            std::int64_t t = rec.firstTokenNs;
            rec.tokenChunks.push_back({t, 1});
            const nlohmann::json &icl = Fields::member(Fields::member(metrics, "inter_chunk_latency"), "value");
            const double scale =
                msPerUnit(Fields::text(Fields::member(metrics, "inter_chunk_latency"), "unit")).value_or(1.0);
            if (icl.is_array()) {
                if (!f.takeChunks(icl.size() + 1, at))
                    break;
                for (std::size_t k = 0; k < icl.size(); ++k) {
                    t += toNs(f.value(icl[k], QStringLiteral("%1.metrics.inter_chunk_latency.value[%2]").arg(at).arg(k))
                                  .value_or(0) *
                              scale / 1e3);
                    rec.tokenChunks.push_back({t, 1});
                }
            }
            rec.lastTokenNs = t;
            rec.chunks = int(std::min<std::size_t>(rec.tokenChunks.size(), std::size_t(INT32_MAX)));
        }
        if (const auto latency = metric("request_latency"))
            rec.doneNs = std::max(rec.doneNs, rec.sentNs + toNs(*latency / 1e3));
        rec.doneNs = std::max(rec.doneNs, rec.lastTokenNs);
        rec.finishReason = QStringLiteral("stop");
        records.push_back(std::move(rec));
    }
    if (!f.ok()) {
        *error = f.problem();
        return std::nullopt;
    }
    std::vector<RunData> runs;
    runs.push_back(runFromRecords(head, std::move(records)));
    return runs;
}

std::optional<std::vector<RunData>> readAiperfSummary(const nlohmann::json &summary, const QString &source,
                                                      QString *error)
{
    Fields f;
    Head head;
    head.from.tool = QStringLiteral("AIPerf");
    head.from.source = source;
    head.from.definitions = aiperfDefinitions(false);
    readConfig(summary, head, f);
    const QString start = Fields::text(summary, "start_time");
    head.startedAt = QDateTime::fromString(start, Qt::ISODateWithMs);

    SummaryBlock block;
    for (LatencyStats &s : block.stats)
        s = Points{}.stats();
    // JsonMetricResult: unit, avg, p1 … p99, min, max, std.
    const auto result = [&](const char *name, const char *stat) -> std::optional<double> {
        const nlohmann::json &m = Fields::member(summary, name);
        if (!m.is_object())
            return std::nullopt;
        const QString at = QLatin1String(name);
        const QString unit = Fields::text(m, "unit");
        const auto v = f.real(m, stat, at);
        if (!v)
            return std::nullopt;
        if (const auto scale = msPerUnit(unit))
            return *v * *scale;
        return v; // counts and rates: as they are
    };
    const auto requests = result("request_count", "avg").value_or(0);
    const auto errors = result("error_request_count", "avg").value_or(0);
    block.requests.ok = std::int64_t(std::min(requests, 1e15));
    block.requests.failed = std::int64_t(std::min(errors, 1e15));
    block.requests.attempted = block.requests.ok + block.requests.failed;
    const std::tuple<const char *, Metric, const char *> mapped[] = {
        {"time_to_first_token", Metric::Ttft, "ttft"},
        {"inter_token_latency", Metric::Tpot, "tpot"},
        {"request_latency", Metric::E2e, "e2e"},
    };
    for (const auto &[name, metric, key] : mapped) {
        Points p;
        p.mean = result(name, "avg");
        p.p50 = result(name, "p50");
        p.p90 = result(name, "p90");
        p.p95 = result(name, "p95");
        p.p99 = result(name, "p99");
        p.min = result(name, "min");
        p.max = result(name, "max");
        p.stddev = result(name, "std");
        p.count = std::uint64_t(block.requests.ok);
        if (p.mean || p.p50) {
            block.stats[std::size_t(metric)] = p.stats();
            head.from.pointValues << QLatin1String(key);
        }
    }
    // benchmark_duration is in seconds ("sec"), which msPerUnit made ms.
    block.windowS = result("benchmark_duration", "avg").value_or(0) / 1e3;
    block.throughput.requestsPerS = result("request_throughput", "avg").value_or(0);
    block.throughput.outputTokensPerS = result("output_token_throughput", "avg").value_or(0);
    block.tokens.output = std::int64_t(std::min(result("total_output_tokens", "avg").value_or(0), 1e15));
    block.tokens.input = std::int64_t(std::min(result("total_isl", "avg").value_or(0), 1e15));
    if (block.windowS > 0) {
        block.throughput.inputTokensPerS = double(block.tokens.input) / block.windowS;
        block.throughput.totalTokensPerS = double(block.tokens.input + block.tokens.output) / block.windowS;
    }
    if (block.tokens.input > 0)
        block.tokens.outInRatio = double(block.tokens.output) / double(block.tokens.input);
    if (!f.ok()) {
        *error = f.problem();
        return std::nullopt;
    }
    std::vector<RunData> runs;
    runs.push_back(runFromPoints(head, std::move(block)));
    return runs;
}

} // namespace tb::foreign
