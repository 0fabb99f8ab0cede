#include "results/foreignruns.h"

#include "results/foreignruns_p.h"

#include "config/runconfig.h"
#include "metrics/requestmetrics.h"
#include "metrics/runaggregator.h"
#include "results/runwriter.h"
#include "tokenbench/version.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cmath>
#include <cstring>
#include <limits>

namespace tb {

namespace foreign {

std::optional<double> Fields::value(const nlohmann::json &value, const QString &path)
{
    if (value.is_null())
        return std::nullopt;
    if (!value.is_number()) {
        fail(path, QStringLiteral("not a number"));
        return std::nullopt;
    }
    const double d = value.get<double>();
    if (!std::isfinite(d)) {
        fail(path, QStringLiteral("not a finite number"));
        return std::nullopt;
    }
    if (d < 0) {
        fail(path, QStringLiteral("negative (%1)").arg(d));
        return std::nullopt;
    }
    return d;
}

std::optional<double> Fields::real(const nlohmann::json &object, const char *key, const QString &path)
{
    if (!object.is_object())
        return std::nullopt;
    const auto it = object.find(key);
    if (it == object.end())
        return std::nullopt;
    // A path ending in ": " ("line 2: ") is a prefix, not an object's path.
    const QString where = path.isEmpty() || path.endsWith(QLatin1Char(' '))
                              ? path + QLatin1String(key)
                              : path + QLatin1Char('.') + QLatin1String(key);
    return value(*it, where);
}

std::optional<std::int64_t> Fields::count(const nlohmann::json &object, const char *key, const QString &path)
{
    const auto d = real(object, key, path);
    if (!d)
        return std::nullopt;
    return *d >= double(kMaxCount) ? kMaxCount : std::int64_t(*d);
}

const nlohmann::json &Fields::member(const nlohmann::json &object, const char *key)
{
    static const nlohmann::json none;
    if (!object.is_object())
        return none;
    const auto it = object.find(key);
    return it == object.end() ? none : *it;
}

QString Fields::text(const nlohmann::json &object, const char *key)
{
    if (!object.is_object())
        return {};
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return {};
    const std::string &s = it->get_ref<const std::string &>();
    return QString::fromUtf8(s.data(), qsizetype(std::min<std::size_t>(s.size(), 4 * kMaxTextChars)))
        .left(kMaxTextChars);
}

bool Fields::takeChunks(std::size_t n, const QString &path)
{
    m_chunks += n;
    if (m_chunks <= ForeignRuns::kMaxChunks)
        return true;
    fail(path, QStringLiteral("more than %1 token chunks in the file").arg(ForeignRuns::kMaxChunks));
    return false;
}

void Fields::fail(const QString &path, const QString &why)
{
    if (m_problem.isEmpty())
        m_problem = QStringLiteral("%1: %2").arg(path, why);
}

std::int64_t toNs(double seconds)
{
    // A run's clock holds about 292 years of nanoseconds; a later time is a damaged file's.
    constexpr double kMaxNs = 9e18;
    const double ns = seconds * 1e9;
    if (!(ns > 0))
        return 0;
    return ns >= kMaxNs ? std::int64_t(kMaxNs) : std::int64_t(std::llround(ns));
}

LatencyStats Points::stats() const
{
    constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    LatencyStats s;
    s.count = mean || p50 || p99 ? count : 0;
    s.mean = mean.value_or(kNone);
    s.stddev = stddev.value_or(kNone);
    s.min = min.value_or(kNone);
    s.p50 = p50.value_or(kNone);
    s.p90 = p90.value_or(kNone);
    s.p95 = p95.value_or(kNone);
    s.p99 = p99.value_or(kNone);
    s.p999 = p999.value_or(kNone);
    s.max = max.value_or(kNone);
    return s;
}

namespace {

RunInfo importedInfo(const Head &head)
{
    RunInfo info;
    info.config.target.name = head.from.tool;
    info.config.target.model = head.model;
    LoadConfig &load = info.config.load;
    if (head.rate) {
        load.mode = LoadMode::Rate;
        load.rate = *head.rate;
        load.maxInFlight = head.concurrency.value_or(0);
    } else {
        load.mode = LoadMode::Concurrency;
        load.concurrency = std::max(1, head.concurrency.value_or(1));
    }
    if (head.requests)
        load.requests = *head.requests;
    if (head.maxTokens)
        info.config.request.maxTokens = *head.maxTokens;
    if (head.promptTokens)
        info.config.prompt.promptTokens = *head.promptTokens;
    info.stages = effectiveStages(load);
    info.startedAt = head.startedAt;
    // The run's wall clock counts ns in an int64: a start it cannot hold (after 2262, before 1678:
    // a file's, not a run's) leaves it unknown rather than overflow (fuzz_llmdreport found one).
    std::int64_t wallNs = 0;
    if (head.startedAt.isValid() &&
        !__builtin_mul_overflow(head.startedAt.toMSecsSinceEpoch(), std::int64_t(1'000'000), &wallNs))
        info.wallOriginNs = wallNs;
    info.toolVersion = version();
    info.models = {head.model};
    return info;
}

void stampImported(RunSummary &summary, const Head &head)
{
    summary.toolName = head.from.tool;
    summary.toolVersion = head.from.version;
    summary.targetName = head.from.tool;
    summary.targetUrl.clear();
    summary.api.clear();
    summary.model = head.model;
    summary.startedAt = head.startedAt.isValid() ? head.startedAt.toString(Qt::ISODateWithMs) : QString();
    summary.imported = head.from;
}

} // namespace

RunData runFromRecords(const Head &head, std::vector<RequestRecord> records)
{
    RunData run;
    run.info = importedInfo(head);
    run.hasInfo = true;
    RunAggregator aggregator(run.info);
    for (const RequestRecord &record : records)
        aggregator.add(record);
    run.summary = aggregator.summary();
    RunAggregator::addSteadyBlock(run.summary, run.info, records);
    stampImported(run.summary, head);
    run.timeSeries = aggregator.timeSeries();
    run.itlMeanMs.reserve(records.size());
    for (const RequestRecord &record : records)
        run.itlMeanMs.push_back(TokenTimeline(record).itlMeanMs().value_or(std::numeric_limits<double>::quiet_NaN()));
    run.records = std::move(records);
    run.name = head.name;
    return run;
}

RunData runFromPoints(const Head &head, SummaryBlock block)
{
    RunData run;
    run.info = importedInfo(head);
    run.hasInfo = true;
    const LoadConfig &load = run.info.config.load;
    block.load.mode = load.mode;
    if (load.mode == LoadMode::Rate) {
        block.load.rate = load.rate;
        block.load.maxInFlight = load.maxInFlight;
    } else {
        block.load.concurrency = load.concurrency;
        block.concurrency.target = load.concurrency;
    }
    run.summary.total = std::move(block);
    stampImported(run.summary, head);
    run.name = head.name;
    return run;
}

std::optional<nlohmann::json> parseJson(const QByteArray &bytes)
{
    // Python's json.dump writes NaN, Infinity and -Infinity, which JSON has not: outside strings
    // they become null, which the readers take as "no value".
    std::string text;
    text.reserve(std::size_t(bytes.size()));
    bool inString = false;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (inString) {
            text += c;
            if (c == '\\' && i + 1 < bytes.size())
                text += bytes[++i];
            else if (c == '"')
                inString = false;
            continue;
        }
        const auto startsWith = [&](const char *word) {
            const qsizetype n = qsizetype(std::strlen(word));
            return bytes.size() - i >= n && std::memcmp(bytes.constData() + i, word, std::size_t(n)) == 0;
        };
        if (c == '"') {
            inString = true;
            text += c;
        } else if (startsWith("NaN")) {
            text += "null";
            i += 2;
        } else if (startsWith("Infinity")) {
            text += "null";
            i += 7;
        } else if (startsWith("-Infinity")) {
            text += "null";
            i += 8;
        } else {
            text += c;
        }
    }
    nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded())
        return std::nullopt;
    return json;
}

bool isVllmResult(const nlohmann::json &json)
{
    // serve.py's result_json: "date", "backend" (and since 0.10 "endpoint_type"), then the metrics.
    return json.is_object() && json.contains("backend") && json.contains("completed") && json.contains("duration");
}

bool isGuidellmReport(const nlohmann::json &json)
{
    return json.is_object() && json.contains("benchmarks") && json["benchmarks"].is_array();
}

bool isAiperfSummary(const nlohmann::json &json)
{
    // JsonExportData: each metric an object with its unit.
    if (!json.is_object())
        return false;
    const auto it = json.find("request_latency");
    return it != json.end() && it->is_object() && it->contains("unit");
}

bool isAiperfRecord(const nlohmann::json &json)
{
    return json.is_object() && json.contains("metadata") && json.contains("metrics") && json["metadata"].is_object();
}

} // namespace foreign

namespace {

using namespace foreign;

std::optional<QByteArray> readBounded(const QString &path, QString *error)
{
    // A device or a FIFO in place of a file would be read without end.
    if (!QFileInfo(path).isFile()) {
        *error = QStringLiteral("%1: not a regular file").arg(path);
        return std::nullopt;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot read: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > ForeignRuns::kMaxFileBytes) {
        *error = QStringLiteral("%1: %2 bytes, more than an import reads (%3 MiB)")
                     .arg(path)
                     .arg(file.size())
                     .arg(ForeignRuns::kMaxFileBytes >> 20);
        return std::nullopt;
    }
    return file.read(ForeignRuns::kMaxFileBytes);
}

/// The non-empty lines of a JSON Lines file, at most ForeignRuns::kMaxRequests.
std::optional<QList<QByteArray>> jsonLines(const QByteArray &bytes, QString *problem)
{
    QList<QByteArray> lines;
    for (QByteArray &line : bytes.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        if (std::size_t(lines.size()) >= ForeignRuns::kMaxRequests) {
            *problem = QStringLiteral("more than %1 lines").arg(ForeignRuns::kMaxRequests);
            return std::nullopt;
        }
        lines << std::move(line);
    }
    return lines;
}

} // namespace

std::optional<std::vector<RunData>> ForeignRuns::read(const QString &path, QString *error)
{
    QString scratch;
    QString &why = error ? *error : scratch;
    const auto bytes = readBounded(path, &why);
    if (!bytes)
        return std::nullopt;
    const QFileInfo info(path);
    const QString source = info.fileName();
    const auto failed = [&](const QString &problem) -> std::optional<std::vector<RunData>> {
        why = QStringLiteral("%1: %2").arg(path, problem);
        return std::nullopt;
    };
    const QString notRecognised = QStringLiteral("not a vLLM, GuideLLM, AIPerf or llm-d Benchmark Report file");

    std::optional<std::vector<RunData>> runs;
    QString problem;
    // One document, in JSON or (an llm-d Benchmark Report as llm-d's tools write it) YAML.
    const auto readDocument = [&](const nlohmann::json &json) -> bool {
        if (isLlmdReport(json)) {
            runs = readLlmdReport(json, source, &problem);
        } else if (isGuidellmReport(json)) {
            runs = readGuidellm(json, source, &problem);
        } else if (isVllmResult(json)) {
            runs = readVllm({json}, source, &problem);
        } else if (isAiperfSummary(json)) {
            // The per-request records beside it, when there: real distributions, not point values.
            const QString records = info.dir().filePath(QStringLiteral("profile_export.jsonl"));
            if (QFileInfo(records).isFile()) {
                const auto recordBytes = readBounded(records, &why);
                if (!recordBytes)
                    return false;
                const auto lines = jsonLines(*recordBytes, &problem);
                if (!lines) {
                    failed(QStringLiteral("profile_export.jsonl: ") + problem);
                    return false;
                }
                runs = readAiperfRecords(*lines, json, QFileInfo(records).fileName(), &problem);
            } else {
                runs = readAiperfSummary(json, source, &problem);
            }
        } else {
            failed(notRecognised);
            return false;
        }
        return true;
    };
    // A one-line AIPerf profile_export.jsonl is one JSON object too: it goes the JSON Lines way.
    const auto json = parseJson(*bytes);
    if (json && !isAiperfRecord(*json)) {
        if (!readDocument(*json))
            return std::nullopt;
    } else {
        // JSON Lines: AIPerf's records, or vLLM results appended one a line (--append-result).
        const auto lines = jsonLines(*bytes, &problem);
        if (!lines)
            return failed(problem);
        if (lines->isEmpty())
            return failed(QStringLiteral("empty"));
        const auto first = parseJson(lines->first());
        if (!first) {
            // Not JSON: YAML, unless it starts as JSON does (then it is JSON, damaged) and is not
            // named as YAML.
            const QByteArray start = lines->first().trimmed();
            const QString suffix = info.suffix().toLower();
            const bool namedYaml = suffix == QLatin1String("yaml") || suffix == QLatin1String("yml");
            if (!namedYaml && (start.startsWith('{') || start.startsWith('[')))
                return failed(QStringLiteral("not JSON (line 1)"));
            const auto yaml = parseYaml(*bytes, &problem);
            if (!yaml)
                return failed(QStringLiteral("YAML ") + problem);
            if (!readDocument(*yaml))
                return std::nullopt;
        } else if (isAiperfRecord(*first)) {
            nlohmann::json summary;
            const QString summaryPath = info.dir().filePath(QStringLiteral("profile_export_aiperf.json"));
            if (QFileInfo(summaryPath).isFile()) {
                QString ignored;
                if (const auto summaryBytes = readBounded(summaryPath, &ignored))
                    summary = parseJson(*summaryBytes).value_or(nlohmann::json());
            }
            runs = readAiperfRecords(*lines, summary, source, &problem);
        } else if (isVllmResult(*first)) {
            if (std::size_t(lines->size()) > kMaxRuns)
                return failed(QStringLiteral("more than %1 results").arg(kMaxRuns));
            std::vector<nlohmann::json> results;
            for (qsizetype i = 0; i < lines->size(); ++i) {
                auto result = parseJson(lines->at(i));
                if (!result || !isVllmResult(*result))
                    return failed(QStringLiteral("line %1: not a vLLM result").arg(i + 1));
                results.push_back(std::move(*result));
            }
            runs = readVllm(results, source, &problem);
        } else {
            return failed(notRecognised);
        }
    }
    if (!runs)
        return failed(problem);
    if (runs->empty())
        return failed(QStringLiteral("no benchmark in it"));
    const QString stem = info.completeBaseName();
    for (std::size_t i = 0; i < runs->size(); ++i) {
        RunData &run = (*runs)[i];
        run.name = runs->size() == 1 ? stem : QStringLiteral("%1-%2").arg(stem).arg(i + 1);
    }
    return runs;
}

std::optional<std::vector<ForeignRuns::Imported>>
ForeignRuns::importInto(const QStringList &files, const QString &folder, QString *error, bool *readFailed)
{
    if (readFailed)
        *readFailed = false;
    std::vector<std::vector<RunData>> read;
    for (const QString &file : files) {
        auto runs = ForeignRuns::read(file, error);
        if (!runs) {
            if (readFailed)
                *readFailed = true;
            return std::nullopt;
        }
        read.push_back(std::move(*runs));
    }
    std::vector<Imported> written;
    for (std::vector<RunData> &runs : read) {
        for (RunData &run : runs) {
            const QString directory = RunWriter::unusedPath(folder, RunWriter::fileSafeName(run.name));
            if (!write(run, directory, error))
                return std::nullopt;
            run.records.clear();
            run.records.shrink_to_fit();
            written.push_back({directory, std::move(run)});
        }
    }
    return written;
}

bool ForeignRuns::write(const RunData &run, const QString &directory, QString *error)
{
    RunWriter writer;
    bool ok = writer.open(directory, run.info);
    for (std::size_t i = 0; ok && i < run.records.size(); ++i)
        ok = writer.append(run.records[i]);
    ok = ok && writer.finish(run.summary, run.timeSeries);
    if (!ok && error)
        *error = writer.errorString();
    return ok;
}

} // namespace tb
