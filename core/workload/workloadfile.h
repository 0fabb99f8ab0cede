#pragma once

#include "api/prompt.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// One request read from a dataset, prompt file or trace.
struct WorkloadEntry {
    std::string system;
    std::string user;
    nlohmann::json messages;            ///< non-null: a chat `messages` array sent as it is
    std::int64_t promptTokens = 0;      ///< ApproxTokenizer count of the text, or a trace's input length
    std::int64_t outputTokens = -1;     ///< recorded reply / asked output length; -1: none
    bool outputIsCap = false;           ///< a line's max_tokens or a trace's output length: always sent
    bool synthetic = false;             ///< a trace entry: text of promptTokens is built when sent
    std::vector<std::uint64_t> hashIds; ///< trace prefix blocks (workloadlimits::kHashBlockTokens each), in order
    std::int64_t timeNs = -1;           ///< arrival time in the trace (absolute, in the trace's own clock)
    std::string model;                  ///< the row's "model" (a dataset's mix); empty: --model's
    int line = 0;                       ///< where it starts in the file (1-based)
    /// Its "images" (or LLaVA's "image"): data URLs, or files beside the workload file read once.
    std::vector<std::shared_ptr<const PromptImage>> images;
};

/// What the file is read as (docs/user-guide.md "Workloads: datasets and traces").
enum class WorkloadRole {
    PromptFile, ///< --prompt-file: {"prompt"} / {"messages"} lines, messages sent whole
    Dataset,    ///< --dataset: also ShareGPT (JSON array or JSONL); the first human turn is the prompt
    Trace,      ///< --trace: Mooncake JSONL, Azure LLM trace CSV, or prompt lines with "timestamp"
};

/// Inclusive token range; 0 at either end means unbounded there.
struct LengthRange {
    std::int64_t min = 0;
    std::int64_t max = 0;
    bool isSet() const { return min > 0 || max > 0; }
    bool contains(std::int64_t v) const { return v >= min && (max <= 0 || v <= max); }
};

struct WorkloadOptions {
    LengthRange promptLen;   ///< keep entries whose prompt tokens fall in the range
    LengthRange outputLen;   ///< keep entries whose output length falls in it (entries without one go)
    std::int64_t sample = 0; ///< keep N entries chosen at random (seeded), in file order; 0: all
    std::uint64_t seed = 1;
    bool skipBadLines = false; ///< skip and count broken lines instead of refusing the file
};

/// What reading kept and dropped, for the summary.
struct WorkloadStats {
    QString format;               ///< "prompts", "sharegpt", "mooncake", "azure-csv"
    std::int64_t read = 0;        ///< entries parsed
    std::int64_t badLines = 0;    ///< skipped with skipBadLines
    QList<int> badLineNumbers;    ///< the first few of them
    std::int64_t noPrompt = 0;    ///< ShareGPT conversations without a human turn (dropped, as vLLM does)
    std::int64_t filteredOut = 0; ///< outside the length ranges
    std::int64_t sampledOut = 0;  ///< not drawn by the sample
    std::int64_t kept = 0;
    nlohmann::json toJson() const;
    /// Read back from summary.json's "workload" block (missing keys: 0).
    static WorkloadStats fromJson(const nlohmann::json &json);
    /// "812 entries (sharegpt; 3 bad lines skipped: 7, 19, 40; …)"
    QString describe() const;
};

/// Reads a workload file fully into memory with the reader of its format (workloadreader.h), then
/// orders a trace by time, filters by length and samples. Bounded: file size, line length, entry
/// count and every number are limited (workloadlimits.h), so a hostile or mistaken file is refused
/// rather than exhausting the machine. Errors name the file and the line.
class WorkloadFile
{
public:
    static std::optional<WorkloadFile> load(const QString &path, WorkloadRole role, const WorkloadOptions &options,
                                            QString *error);

    const std::vector<WorkloadEntry> &entries() const { return m_entries; }
    const WorkloadStats &stats() const { return m_stats; }

private:
    std::vector<WorkloadEntry> m_entries;
    WorkloadStats m_stats;
};

} // namespace tb
