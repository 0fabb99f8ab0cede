// llm-d Benchmark Reports (llm-d/llm-d-benchmark llmdbenchmark/analysis/benchmark_report/schema_v0_2.py,
// and schema_v0_2_1.py, its additive superset): a summary of one run, read as point values.
// YAML is how the tool writes them by default, JSON its BenchmarkReport.export_json and
// `tokenbench-cli export-report`: both reach this reader as the same value (yamlreader.cpp turns
// YAML into it).

#include "results/foreignruns.h"
#include "results/foreignruns_p.h"

#include "config/runconfig.h"

#include <QRegularExpression>

#include <cmath>

namespace tb::foreign {

namespace {

constexpr const char *kAggregate = "results.request_performance.aggregate";

/// What one of the schema's units is in ours (ms, ms per token, counts and rates as they are);
/// none for a unit the schema does not allow there.
std::optional<double> scaleOf(const QString &unit, const QStringList &allowed)
{
    if (!allowed.contains(unit))
        return std::nullopt;
    if (unit == QLatin1String("s") || unit == QLatin1String("s/token"))
        return 1e3;
    return 1.0;
}

/// A Statistics block (units and mean required) as Points in our units; none when absent.
std::optional<Points> statistics(const nlohmann::json &block, const QString &at, const QStringList &units, Fields &f)
{
    if (block.is_null())
        return std::nullopt;
    if (!block.is_object()) {
        f.fail(at, QStringLiteral("not an object"));
        return std::nullopt;
    }
    const QString unit = Fields::text(block, "units");
    const auto scale = scaleOf(unit, units);
    if (!scale) {
        f.fail(at + QStringLiteral(".units"),
               QStringLiteral("\"%1\" is not one of %2").arg(unit, units.join(QStringLiteral(", "))));
        return std::nullopt;
    }
    const auto scaled = [&](const char *key) -> std::optional<double> {
        const auto v = f.real(block, key, at);
        return v ? std::optional<double>(*v * *scale) : std::nullopt;
    };
    Points p;
    p.mean = scaled("mean");
    if (!p.mean) {
        if (f.ok())
            f.fail(at + QStringLiteral(".mean"), QStringLiteral("missing"));
        return std::nullopt;
    }
    p.stddev = scaled("stddev");
    p.min = scaled("min");
    p.p50 = scaled("p50");
    p.p90 = scaled("p90");
    p.p95 = scaled("p95");
    p.p99 = scaled("p99");
    p.p999 = scaled("p99p9");
    p.max = scaled("max");
    return p;
}

/// "PT1H2M3.5S", the ISO-8601 durations the schema's Run.time.duration holds, in seconds.
std::optional<double> durationS(const QString &text)
{
    static const QRegularExpression form(
        QStringLiteral(R"(^PT(?:(\d{1,9})H)?(?:(\d{1,9})M)?(?:(\d{1,12}(?:\.\d{1,20})?)S)?$)"));
    const QRegularExpressionMatch m = form.match(text);
    if (!m.hasMatch() || text == QLatin1String("PT"))
        return std::nullopt;
    return m.captured(1).toDouble() * 3600 + m.captured(2).toDouble() * 60 + m.captured(3).toDouble();
}

QString modelOf(const nlohmann::json &report)
{
    const nlohmann::json &scenario = Fields::member(report, "scenario");
    // Ours: the load's native config names it. Others: the stack's inference engines do.
    QString own =
        Fields::text(Fields::member(Fields::member(Fields::member(scenario, "load"), "native"), "config"), "model");
    if (!own.isEmpty())
        return own;
    const nlohmann::json &stack = Fields::member(scenario, "stack");
    if (!stack.is_array())
        return {};
    for (std::size_t i = 0; i < std::min<std::size_t>(stack.size(), 1000); ++i) {
        const nlohmann::json &standardized = Fields::member(stack[i], "standardized");
        if (Fields::text(standardized, "kind") == QLatin1String("inference_engine"))
            return Fields::text(Fields::member(standardized, "model"), "name");
    }
    return {};
}

std::int64_t saturated(double v)
{
    return std::int64_t(std::llround(std::min(v, 1e15)));
}

} // namespace

bool isLlmdReport(const nlohmann::json &json)
{
    // BenchmarkReport: "version", and "run" and "results" (both required since v0.1).
    return json.is_object() && json.contains("version") && json.contains("run") && json.contains("results");
}

std::optional<std::vector<RunData>> readLlmdReport(const nlohmann::json &report, const QString &source, QString *error)
{
    const QString version = Fields::text(report, "version");
    if (version != QLatin1String("0.2") && version != QLatin1String("0.2.1")) {
        *error = QStringLiteral("version: llm-d Benchmark Report \"%1\" (this build reads 0.2 and 0.2.1)").arg(version);
        return std::nullopt;
    }
    Fields f;
    Head head;
    head.from.tool = QStringLiteral("llm-d Benchmark Report");
    head.from.version = version;
    head.from.source = source;
    const nlohmann::json &standardized =
        Fields::member(Fields::member(Fields::member(report, "scenario"), "load"), "standardized");
    const QString tool = Fields::text(standardized, "tool");
    head.from.definitions = {
        QStringLiteral("the report's TPOT and ITL are as its load generator (%1) defines them; the schema "
                       "notes that tools differ")
            .arg(tool.isEmpty() ? QStringLiteral("not named") : tool),
        QStringLiteral("a report holds one figure per throughput, and request counts without a verdict per "
                       "request: TokenBench's successful requests are total − failures − incomplete"),
    };
    head.model = modelOf(report);
    head.startedAt = QDateTime::fromString(Fields::text(Fields::member(Fields::member(report, "run"), "time"), "start"),
                                           Qt::ISODateWithMs);
    const QString load = QStringLiteral("scenario.load.standardized");
    if (const auto rate = f.real(standardized, "rate_qps", load); rate && *rate > 0)
        head.rate = rate;
    if (const auto c = f.count(standardized, "concurrency", load); c && *c > 0)
        head.concurrency = int(std::min<std::int64_t>(*c, 1'000'000));
    const nlohmann::json &isl = Fields::member(standardized, "input_seq_len");
    if (Fields::text(isl, "distribution") == QLatin1String("fixed")) {
        if (const auto n = f.count(isl, "value", load + QStringLiteral(".input_seq_len")); n && *n > 0)
            head.promptTokens = int(std::min<std::int64_t>(*n, limits::kMaxPromptTokens));
    }
    // max_tokens is ours (export-report's native config); other tools name it their own way.
    if (tool == QLatin1String("tokenbench")) {
        const nlohmann::json &config = Fields::member(
            Fields::member(Fields::member(Fields::member(report, "scenario"), "load"), "native"), "config");
        if (const auto n = f.count(config, "max_tokens", QStringLiteral("scenario.load.native.config")); n && *n > 0)
            head.maxTokens = int(std::min<std::int64_t>(*n, limits::kMaxTokens));
    }

    const nlohmann::json &aggregate =
        Fields::member(Fields::member(Fields::member(report, "results"), "request_performance"), "aggregate");
    SummaryBlock block;
    for (LatencyStats &s : block.stats)
        s = Points{}.stats();
    const nlohmann::json &requests = Fields::member(aggregate, "requests");
    const QString at = QLatin1String(kAggregate);
    const QString requestsAt = at + QStringLiteral(".requests");
    const std::int64_t total = f.count(requests, "total", requestsAt).value_or(0);
    const std::int64_t failures = f.count(requests, "failures", requestsAt).value_or(0);
    const std::int64_t incomplete = f.count(requests, "incomplete", requestsAt).value_or(0);
    block.requests.failed = std::min(failures, total);
    block.requests.cancelled = std::min(incomplete, total - block.requests.failed);
    block.requests.ok = total - block.requests.failed - block.requests.cancelled;
    block.requests.attempted = block.requests.ok + block.requests.failed;
    if (total > 0)
        head.requests = total;

    const QStringList time{QStringLiteral("ms"), QStringLiteral("s")};
    const QStringList perToken{QStringLiteral("ms/token"), QStringLiteral("s/token")};
    const std::tuple<const char *, Metric, const char *, const QStringList &> mapped[] = {
        {"time_to_first_token", Metric::Ttft, "ttft", time},
        {"time_per_output_token", Metric::Tpot, "tpot", perToken},
        {"inter_token_latency", Metric::Itl, "itl", perToken},
        {"request_latency", Metric::E2e, "e2e", time},
    };
    const nlohmann::json &latency = Fields::member(aggregate, "latency");
    for (const auto &[name, metric, key, units] : mapped) {
        auto p =
            statistics(Fields::member(latency, name), at + QStringLiteral(".latency.") + QLatin1String(name), units, f);
        if (!p)
            continue;
        p->count = std::uint64_t(block.requests.ok);
        block.stats[std::size_t(metric)] = p->stats();
        head.from.pointValues << QLatin1String(key);
    }

    const QStringList count{QStringLiteral("count"), QStringLiteral("pixels")};
    const QString lengths = requestsAt + QLatin1Char('.');
    const auto input =
        statistics(Fields::member(requests, "input_length"), lengths + QStringLiteral("input_length"), count, f);
    const auto output =
        statistics(Fields::member(requests, "output_length"), lengths + QStringLiteral("output_length"), count, f);
    const double ok = double(block.requests.ok);
    if (input) {
        block.tokens.input = saturated(*input->mean * ok);
        block.tokens.promptMin = saturated(input->min.value_or(0));
        block.tokens.promptMax = saturated(input->max.value_or(0));
    }
    if (output)
        block.tokens.output = saturated(*output->mean * ok);
    if (block.tokens.input > 0)
        block.tokens.outInRatio = double(block.tokens.output) / double(block.tokens.input);

    const nlohmann::json &throughput = Fields::member(aggregate, "throughput");
    const QStringList tokens{QStringLiteral("tokens/s")};
    const QStringList queries{QStringLiteral("queries/s")};
    const auto meanOf = [&](const char *name, const QStringList &units) {
        const auto p = statistics(Fields::member(throughput, name),
                                  at + QStringLiteral(".throughput.") + QLatin1String(name), units, f);
        return p ? *p->mean : 0.0;
    };
    block.throughput.inputTokensPerS = meanOf("input_token_rate", tokens);
    block.throughput.outputTokensPerS = meanOf("output_token_rate", tokens);
    block.throughput.totalTokensPerS = meanOf("total_token_rate", tokens);
    block.throughput.requestsPerS = meanOf("request_rate", queries);
    const QString duration = Fields::text(Fields::member(Fields::member(report, "run"), "time"), "duration");
    block.windowS = durationS(duration).value_or(0);
    if (!f.ok()) {
        *error = f.problem();
        return std::nullopt;
    }
    std::vector<RunData> runs;
    runs.push_back(runFromPoints(head, std::move(block)));
    return runs;
}

} // namespace tb::foreign
