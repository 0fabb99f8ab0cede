#include "results/llmdreport.h"

#include "config/runconfig.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QLocale>
#include <QUrl>

#include <cmath>

namespace tb {

namespace {

using nlohmann::json;

/// A Statistics block (schema_v0_2.py Statistics: units and mean required) of one of ours, or
/// null when it has no values. p999 is the schema's "p99p9".
json statistics(const LatencyStats &s, const char *units)
{
    if (s.count == 0 || !std::isfinite(s.mean))
        return nullptr;
    json out = {{"units", units}, {"mean", s.mean}};
    const std::pair<const char *, double> points[] = {{"stddev", s.stddev}, {"min", s.min}, {"p50", s.p50},
                                                      {"p90", s.p90},       {"p95", s.p95}, {"p99", s.p99},
                                                      {"p99p9", s.p999},    {"max", s.max}};
    for (const auto &[key, value] : points) {
        if (std::isfinite(value))
            out[key] = value;
    }
    return out;
}

/// A rate as a Statistics block of its mean alone: the run has one figure, not a distribution.
json rate(double value, const char *units)
{
    return std::isfinite(value) ? json{{"units", units}, {"mean", value}} : json(nullptr);
}

void setIfPresent(json &object, const char *key, json value)
{
    if (!value.is_null())
        object[key] = std::move(value);
}

/// The target's address without anything that may carry a secret: no user, password, query or fragment.
QString address(const QString &url)
{
    const QUrl parsed(url);
    if (!parsed.isValid() || parsed.host().isEmpty())
        return {};
    return parsed.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment).toString();
}

json load(const RunData &run)
{
    const RunConfig &config = run.info.config;
    const SummaryBlock &total = run.summary.total;
    json standardized = {{"tool", "tokenbench"}, {"tool_version", run.summary.toolVersion.toStdString()}};
    const bool fromFile =
        !config.prompt.promptFile.isEmpty() || !config.prompt.dataset.isEmpty() || !config.load.trace.isEmpty();
    // LoadSource: "random" tokens (our synthetic prompts), "sampled" from data, or "unknown".
    standardized["source"] = fromFile ? "sampled" : config.prompt.promptTokens > 0 ? "random" : "unknown";
    const std::int64_t ok = total.requests.ok;
    if (!fromFile && config.prompt.promptTokens > 0) {
        standardized["input_seq_len"] = {{"distribution", "fixed"}, {"value", config.prompt.promptTokens}};
    } else {
        // SequenceLength needs a value: the mean prompt the server counted, its range beside it.
        json length = {{"distribution", "other"}, {"value", ok > 0 ? double(total.tokens.input) / double(ok) : 0.0}};
        if (ok > 0 && total.tokens.promptMax > 0) {
            length["min"] = total.tokens.promptMin;
            length["max"] = total.tokens.promptMax;
        }
        standardized["input_seq_len"] = std::move(length);
    }
    if (total.load.mode == LoadMode::Rate && total.load.rate && *total.load.rate > 0)
        standardized["rate_qps"] = *total.load.rate;
    if (total.load.mode == LoadMode::Concurrency && total.load.concurrency && *total.load.concurrency >= 1)
        standardized["concurrency"] = *total.load.concurrency;

    json native = {{"model", run.summary.model.toStdString()},
                   {"api", apiKindName(config.target.api).toStdString()},
                   {"max_tokens", config.request.maxTokens}};
    if (const QString url = address(config.target.url); !url.isEmpty())
        native["url"] = url.toStdString();
    if (!total.load.stages.isEmpty())
        native["stages"] = total.load.stages.toStdString();
    return {{"metadata", {{"schema_version", "0.0.1"}, {"description", "TokenBench run"}}},
            {"standardized", std::move(standardized)},
            {"native", {{"config", std::move(native)}}}};
}

json aggregate(const SummaryBlock &total)
{
    const RequestCounts &r = total.requests;
    // "total: requests sent": those that ended and those Stop or --cancel-rate cut off ("incomplete").
    const std::int64_t incomplete = r.cancelled + r.abandoned;
    json requests = {{"total", r.attempted + incomplete}, {"failures", r.failed}, {"incomplete", incomplete}};
    if (r.ok > 0) {
        json input = {{"units", "count"}, {"mean", double(total.tokens.input) / double(r.ok)}};
        if (total.tokens.promptMax > 0) {
            input["min"] = total.tokens.promptMin;
            input["max"] = total.tokens.promptMax;
        }
        requests["input_length"] = std::move(input);
        requests["output_length"] = {{"units", "count"}, {"mean", double(total.tokens.output) / double(r.ok)}};
    }
    json latency = json::object();
    setIfPresent(latency, "time_to_first_token", statistics(total.stat(Metric::Ttft), "ms"));
    setIfPresent(latency, "time_per_output_token", statistics(total.stat(Metric::Tpot), "ms/token"));
    setIfPresent(latency, "inter_token_latency", statistics(total.stat(Metric::Itl), "ms/token"));
    setIfPresent(latency, "request_latency", statistics(total.stat(Metric::E2e), "ms"));
    const ThroughputSummary &t = total.throughput;
    json throughput = json::object();
    setIfPresent(throughput, "input_token_rate", rate(t.inputTokensPerS, "tokens/s"));
    setIfPresent(throughput, "output_token_rate", rate(t.outputTokensPerS, "tokens/s"));
    setIfPresent(throughput, "total_token_rate", rate(t.totalTokensPerS, "tokens/s"));
    setIfPresent(throughput, "request_rate", rate(t.requestsPerS, "queries/s"));
    json out = {{"requests", std::move(requests)}, {"throughput", std::move(throughput)}};
    if (!latency.empty())
        out["latency"] = std::move(latency);
    return out;
}

} // namespace

json LlmdReport::fromRun(const RunData &run)
{
    const QDateTime start = run.info.startedAt.isValid()
                                ? run.info.startedAt
                                : QDateTime::fromString(run.summary.startedAt, Qt::ISODateWithMs);
    // Run.uid: unique to this report; the same run exported twice gets the same one.
    QCryptographicHash hash(QCryptographicHash::Md5);
    hash.addData(run.info.host.toUtf8());
    hash.addData(start.toString(Qt::ISODateWithMs).toUtf8());
    hash.addData(QFileInfo(run.directory).fileName().toUtf8());
    json runBlock = {{"uid", hash.result().toHex().toStdString()},
                     {"description", QStringLiteral("TokenBench run %1").arg(run.label()).toStdString()}};
    const double windowS = run.summary.total.windowS;
    if (start.isValid()) {
        json time = {{"start", start.toUTC().toString(Qt::ISODateWithMs).toStdString()}};
        if (windowS > 0 && std::isfinite(windowS)) {
            time["end"] =
                start.addMSecs(qint64(std::llround(windowS * 1e3))).toUTC().toString(Qt::ISODateWithMs).toStdString();
            // ISO-8601 duration in seconds, as the schema's example writes it ("PT49.97206788184121S"):
            // fixed notation (a duration has no exponent), the shortest digits that read back the same.
            time["duration"] = QStringLiteral("PT%1S")
                                   .arg(QString::number(windowS, 'f', QLocale::FloatingPointShortest))
                                   .toStdString();
        }
        runBlock["time"] = std::move(time);
    }
    return {{"version", kVersion},
            {"run", std::move(runBlock)},
            {"scenario", {{"load", load(run)}}},
            {"results", {{"request_performance", {{"aggregate", aggregate(run.summary.total)}}}}}};
}

} // namespace tb
