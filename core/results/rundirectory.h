#pragma once

#include "metrics/gpumetrics.h"
#include "metrics/requestrecord.h"
#include "metrics/runinfo.h"
#include "metrics/runsummary.h"
#include "metrics/timeseriesrow.h"

#include <QFlags>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace tb {

/// A run directory loaded back: for the history view, comparisons and reports.
struct RunData {
    QString directory;
    RunInfo info;         ///< from run.json
    bool hasInfo = false; ///< run.json was there (a summary-only directory has none)
    RunSummary summary;
    bool summaryRecomputed = false; ///< summary.json was missing: computed from requests.csv
    std::vector<TimeSeriesRow> timeSeries;
    std::vector<RequestRecord> records; ///< with RunReader::Records; tokenChunks with ::Chunks
    std::vector<double> itlMeanMs;      ///< per record, requests.csv's itl_mean_ms (NaN: none)
    std::vector<ServerRow> serverRows;  ///< with RunReader::Records: server_metrics.csv, per scrape
    GpuTrace gpuTrace;                  ///< with RunReader::Records: gpu_metrics.csv (--gpu-metrics)
    QStringList notes;                  ///< what a user should know, e.g. that the summary was recomputed
    QString name;                       ///< a label of its own (an instance of a run, see splitByInstance)

    /// `name` if set, else the directory's name: what tables call the run.
    QString label() const;
    /// Each note as "DIR: note", as compare, report and merge pass them on.
    QStringList directoryNotes() const;
    /// The I/O backend it was measured with: the summary's, else run.json's (not recorded in
    /// runs from before either had it).
    const IoInfo &io() const { return summary.io.recorded() ? summary.io : info.io; }
};

/// Loads run directories written by RunWriter. Errors name the directory and the file:
///   "DIR: not a run directory (no summary.json/requests.csv)"
///   "DIR: damaged summary.json: latency_ms.ttft: missing"
///   "DIR: summary.json was written by a newer format version 3 (this build reads up to 1)"
/// A run stopped or crashed before summary.json existed still loads: its summary and time series
/// are recomputed from requests.csv and chunks.jsonl with RunAggregator, and a note says so; an
/// empty summary.json or timeseries.csv (what a full disk left with earlier builds) counts as
/// missing. So does a requests.csv whose last row a crash cut short (that row is left out, with a
/// note).
class RunReader
{
public:
    enum Part {
        SummaryOnly = 0,
        Records = 0x1, ///< requests.csv into RunData::records
        Chunks = 0x2,  ///< and each record's tokenChunks from chunks.jsonl (implies Records)
    };
    Q_DECLARE_FLAGS(Parts, Part)

    static std::optional<RunData> load(const QString &directory, QString *error, Parts parts = Records);
    /// Has summary.json or requests.csv (what load() accepts at the least).
    static bool isRunDirectory(const QString &directory);
};

Q_DECLARE_OPERATORS_FOR_FLAGS(RunReader::Parts)

} // namespace tb
