#pragma once

// What the readers of other tools' files (foreignruns.cpp and one file a tool) share.

#include "metrics/requestrecord.h"
#include "metrics/runsummary.h"
#include "results/rundirectory.h"

#include <QByteArray>
#include <QDateTime>
#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb::foreign {

/// Reads the values of an untrusted file and keeps the first problem, with the value's path.
class Fields
{
public:
    /// A count read is saturated here: no real run has more, and a larger claim allocates nothing.
    static constexpr std::int64_t kMaxCount = std::int64_t(1) << 40;
    static constexpr int kMaxTextChars = 200;

    /// Absent or null (a NaN or Infinity the file held): none. Not a number, negative or too large
    /// to be a double: none, and problem() names it.
    std::optional<double> real(const nlohmann::json &object, const char *key, const QString &path);
    std::optional<double> value(const nlohmann::json &value, const QString &path);
    /// A whole count, saturated at kMaxCount.
    std::optional<std::int64_t> count(const nlohmann::json &object, const char *key, const QString &path);
    /// object[key] when `object` is an object that has it, else null (never throws, unlike json::value()).
    static const nlohmann::json &member(const nlohmann::json &object, const char *key);
    /// A string value, at most kMaxTextChars; empty when absent or not a string.
    static QString text(const nlohmann::json &object, const char *key);
    /// Takes `n` token chunks from the file's budget (ForeignRuns::kMaxChunks); false and a problem when spent.
    bool takeChunks(std::size_t n, const QString &path);

    void fail(const QString &path, const QString &why);
    bool ok() const { return m_problem.isEmpty(); }
    const QString &problem() const { return m_problem; }

private:
    QString m_problem;
    std::size_t m_chunks = 0;
};

/// What a file says of a run besides its figures.
struct Head {
    ImportedFrom from;
    QString model;
    QDateTime startedAt; ///< invalid: unknown
    std::optional<int> concurrency;
    std::optional<double> rate;
    // What a file may say of its workload, so a comparison with the run it came from finds no false
    // difference (an llm-d report's; the other readers leave them unset: our defaults).
    std::optional<std::int64_t> requests; ///< requests a stage sent
    std::optional<int> maxTokens;
    std::optional<int> promptTokens; ///< synthetic prompts of this size
    QString name;                    ///< the run's label
};

/// Seconds as nanoseconds, saturated to what a run's clock holds.
std::int64_t toNs(double seconds);
/// A statistics block of point values: those not given are NaN (none, in summary.json).
struct Points {
    std::optional<double> mean, stddev, min, p50, p90, p95, p99, p999, max;
    std::uint64_t count = 0;
    LatencyStats stats() const;
};

/// Every figure computed by TokenBench from the records (times in ns from the run's start).
RunData runFromRecords(const Head &head, std::vector<RequestRecord> records);
/// The tool's point values in `block` (its load filled in here).
RunData runFromPoints(const Head &head, SummaryBlock block);

/// Parses JSON as Python's json module writes it: NaN, Infinity and -Infinity outside strings
/// read as null. None when it is not JSON.
std::optional<nlohmann::json> parseJson(const QByteArray &bytes);
/// Parses one YAML document (yamlreader.cpp) as the value its JSON form gives parseJson(): plain
/// scalars typed as YAML 1.2's core schema, .inf and .nan as null, aliases expanded. Refused, with
/// "line L, column C: why" in *problem ("without a document", "an empty document"): bytes that are not UTF-8, no
/// document or more than one, a tag,
/// a duplicate key, a key that is not text, nesting deeper than 64, more than 10^6 values (aliases
/// expanded), a value over 1 MiB, a number past a double.
std::optional<nlohmann::json> parseYaml(const QByteArray &bytes, QString *problem);

bool isVllmResult(const nlohmann::json &json);
bool isGuidellmReport(const nlohmann::json &json);
bool isAiperfSummary(const nlohmann::json &json);
bool isAiperfRecord(const nlohmann::json &json);
bool isLlmdReport(const nlohmann::json &json);

/// Each returns the runs, or none with *error (a path into the file and the problem).
std::optional<std::vector<RunData>> readVllm(const std::vector<nlohmann::json> &results, const QString &source,
                                             QString *error);
std::optional<std::vector<RunData>> readGuidellm(const nlohmann::json &report, const QString &source, QString *error);
/// `lines`: profile_export.jsonl's; `summary`: profile_export_aiperf.json beside it, if any (for
/// the configuration it names).
std::optional<std::vector<RunData>> readAiperfRecords(const QList<QByteArray> &lines, const nlohmann::json &summary,
                                                      const QString &source, QString *error);
std::optional<std::vector<RunData>> readAiperfSummary(const nlohmann::json &summary, const QString &source,
                                                      QString *error);
std::optional<std::vector<RunData>> readLlmdReport(const nlohmann::json &report, const QString &source, QString *error);

} // namespace tb::foreign
