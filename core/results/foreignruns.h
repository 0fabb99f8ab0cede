#pragma once

#include "results/rundirectory.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <optional>
#include <vector>

namespace tb {

/// Other tools' result files read as runs (`tokenbench-cli import`, and `compare`/`report`/the GUI
/// given such a file; docs/user-guide.md "Importing other tools' results"):
///   - vLLM `bench serve --save-result` JSON, with or without --save-detailed's per-request arrays
///     (and --append-result's files: one JSON object a line, one run each);
///   - GuideLLM's benchmarks.json: one run per entry of "benchmarks";
///   - AIPerf's profile_export.jsonl (one record a request) or profile_export_aiperf.json (its
///     summary; a profile_export.jsonl beside it is read instead);
///   - an llm-d Benchmark Report v0.2 or v0.2.1, in JSON (what export-report writes) or in YAML (as
///     llm-d's tools write it; yamlreader.cpp reads it as the value its JSON form gives), llmdreportreader.cpp.
/// Per-request values become RequestRecords, and every figure is TokenBench's own, computed from
/// them by RunAggregator (so distributions, the time series and the noise tests are real); a
/// summary alone gives the tool's point values under our metric names, the others absent. Each
/// run's summary says so in RunSummary::imported, with the tool's definitions that differ from ours.
///
/// Files are untrusted: the file, the requests and the chunks are bounded (below), so are a YAML
/// file's nesting, values (aliases expanded) and scalars (parseYaml in foreignruns_p.h); a number
/// that is not one, negative or not finite is an error naming the field, a NaN or Infinity (Python's
/// json writes them, PyYAML .nan and .inf) reads as missing. Never throws.
class ForeignRuns
{
public:
    static constexpr qint64 kMaxFileBytes = qint64(512) << 20;
    static constexpr std::size_t kMaxRequests = 2'000'000;
    static constexpr std::size_t kMaxChunks = 20'000'000; ///< token chunks of all requests of a file
    static constexpr std::size_t kMaxRuns = 1000;         ///< runs (benchmarks, appended results) in a file

    /// The runs in `path`, in the file's order: each with its summary, info and records (none for a
    /// summary-only file), `name` the file's stem (with the benchmark's index when there are several)
    /// and `directory` empty. Errors: "FILE: not a vLLM, GuideLLM, AIPerf or llm-d Benchmark Report file",
    /// "FILE: benchmarks[0].requests.successful[3].info.timings.request_start: not a number".
    static std::optional<std::vector<RunData>> read(const QString &path, QString *error);
    /// Writes `run` (one of read()'s) as a run directory `directory` (RunWriter: run.json,
    /// requests.csv, chunks.jsonl, summary.json with its "imported" block, timeseries.csv).
    static bool write(const RunData &run, const QString &directory, QString *error);

    /// What importInto() wrote: each run directory, with its run (records dropped).
    struct Imported {
        QString directory;
        RunData run;
    };
    /// Reads every file first (a damaged one leaves no half import: *error names it, *readFailed is
    /// set), then writes each run into `folder` under an unused name after its own. The CLI's
    /// `import` and the GUI's File ▸ Import Results do this; nullopt with *error on failure.
    static std::optional<std::vector<Imported>> importInto(const QStringList &files, const QString &folder,
                                                           QString *error, bool *readFailed = nullptr);
};

} // namespace tb
