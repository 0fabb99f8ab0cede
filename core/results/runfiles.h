#pragma once

// The files of a run directory (docs/SPEC.md §4) and their formats, shared by RunWriter and RunReader so
// that what is written is exactly what is read:
//   run.json        RunInfo: the configuration as run (no secrets), tool, host, start, stages
//   requests.csv    one row per request (docs/SPEC.md columns, then extras), RFC 4180, CRLF
//   chunks.jsonl    one line per streamed request: its token-bearing chunks
//   summary.json    RunSummary
//   timeseries.csv  one row per second
// Times in requests.csv are milliseconds with 3 decimals (1 µs); chunk times are whole µs.

#include "metrics/requestrecord.h"
#include "metrics/runinfo.h"
#include "metrics/timeseriesrow.h"

#include <QByteArrayView>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::runfiles {

inline constexpr char kRunJson[] = "run.json";
inline constexpr char kSummaryJson[] = "summary.json";
inline constexpr char kRequestsCsv[] = "requests.csv";
inline constexpr char kChunksJsonl[] = "chunks.jsonl";
inline constexpr char kTimeSeriesCsv[] = "timeseries.csv";
inline constexpr char kServerMetricsCsv[] = "server_metrics.csv";
inline constexpr char kGpuMetricsCsv[] = "gpu_metrics.csv"; ///< only with --gpu-metrics
inline constexpr char kOutputsJsonl[] = "outputs.jsonl";    ///< only with --save-outputs

/// The most RunReader reads of each file (docs/user-guide.md "Limits"), so that a damaged or hostile directory
/// cannot take memory or time without end. Each is far above what long runs write: requests.csv
/// holds about 260 bytes a request (8 million in 2 GiB), summary.json about 120 KiB a stage (1000
/// stages in 256 MiB), timeseries.csv about 100 bytes a second (a quarter of a year in 1 GiB).
inline constexpr qint64 kMaxRunJsonBytes = qint64(64) << 20;
inline constexpr qint64 kMaxSummaryJsonBytes = qint64(256) << 20;
inline constexpr qint64 kMaxRequestsCsvBytes = qint64(2) << 30;
inline constexpr qint64 kMaxChunksJsonlBytes = qint64(4) << 30;
inline constexpr qint64 kMaxTimeSeriesCsvBytes = qint64(1) << 30;
inline constexpr qint64 kMaxServerMetricsCsvBytes = qint64(1) << 30;
inline constexpr qint64 kMaxGpuMetricsCsvBytes = qint64(1) << 30;

/// {"format": "tokenbench-run", "format_version", "tool", "host", "started_at", "stages",
///  "config": toJson(RunConfig), "clock": {"monotonic_origin_ns", "wall_origin", "wall_origin_ns"}}
/// and, for a shard, "shard": {"index", "count", "arrival_seed", "load": the whole run's load}; for a
/// merged run, "merged_from": [shard directories].
nlohmann::json runInfoToJson(const RunInfo &info);
/// Refuses a newer format_version with "written by a newer format version N".
std::optional<RunInfo> runInfoFromJson(const nlohmann::json &json, QString *error);
/// The run configuration under `key` of a results file's `object` (run.json's "config",
/// session.json's "workload"); nullopt with *error naming it from `key` on ("key: missing",
/// "key.field: problem").
std::optional<RunConfig> runConfigAt(const nlohmann::json &object, const char *key, QString *error);

/// The header row: docs/SPEC.md §4's columns in order, then
/// stage_index,target,finish_reason,retry_after_s,decode_tps,ttft_from_schedule_ms,
/// e2e_from_schedule_ms,first_content_ms,done_at_ms,instance,hidden_reasoning_tokens,http_version,
/// redirects,turn,conversation,prompt_token_source,blocked_ms,connect_ms,tls_ms,sending_ms,
/// waiting_ms,receiving_ms,retries,unended_body,redundancy,output_check,inputs,images,image_bytes,image_tokens,model,tool_calls,first_tool_call_ms,tool_call_check,
/// tool_results,connection
/// (done_at_ms is an offset from run start, like sent_ms; with the durations it lets a row be read back into the same
/// record), and for a merged run (info.mergedFrom) a last column, shard.
std::string requestsCsvHeader(const RunInfo &info);
void appendRequestRow(std::string &out, const RequestRecord &record, const RunInfo &info);

/// Reads requests.csv rows back into records, by column name (so added columns do not matter).
class RequestRowParser
{
public:
    /// Checks the header; false with *error naming a missing column.
    bool setHeader(const std::vector<std::string> &header, QString *error);
    /// *itlMeanMs: the row's itl_mean_ms (NaN when empty). False with *error on a bad value.
    bool parse(const std::vector<std::string> &row, const RunInfo &info, RequestRecord *record, double *itlMeanMs,
               QString *error) const;

private:
    std::vector<int> m_columns; ///< index in the row of each known column, -1 when absent
};

/// {"id": N, "t_us": [first chunk µs after run start, then µs since the previous chunk…],
///  "chars": [characters of each chunk…]}; nothing for a record without chunks.
void appendChunksLine(std::string &out, const RequestRecord &record);
bool parseChunksLine(std::string_view line, std::uint64_t *id, std::vector<ChunkStamp> *chunks, QString *error);

/// {"id": N, "text": "…"}: a successful request's generated content as kept (RequestRecord::output,
/// at most OutputRedundancy::kMaxExaminedBytes; invalid UTF-8 replaced by U+FFFD); nothing for a
/// failed request.
void appendOutputLine(std::string &out, const RequestRecord &record);

/// docs/SPEC.md §4's columns, then stage (name), good, cancelled.
std::string timeSeriesCsv(const std::vector<TimeSeriesRow> &rows, const QList<StageConfig> &stages);
std::optional<std::vector<TimeSeriesRow>> parseTimeSeriesCsv(QByteArrayView text, const QList<StageConfig> &stages,
                                                             QString *error);

} // namespace tb::runfiles
