#pragma once

#include "analysis/metriccatalogue.h"
#include "metrics/bootstrap.h"
#include "results/rundirectory.h"
#include "threads/canceltoken.h"

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

namespace tb {

/// Saved runs side by side (issue 6): one row per metric, one column per run, the best value of
/// each row marked, deltas against a baseline run, a noise test for each run against the baseline,
/// and warnings where the runs' workloads differ (then the numbers compare different things).
///
/// Values are the summaries' (so the table says what summary.json says). The noise test is a
/// bootstrap 95% confidence interval (tb::Bootstrap, fixed seeds: the same runs always give the same
/// verdicts) of the difference of the row's statistic — mean, median or p99 — computed from the
/// per-request values in requests.csv: "significant" when the interval excludes 0, "within noise"
/// when it does not. ITL's test uses each request's mean ITL (tokens of one request are not
/// independent samples). Rates, ratios and fractions have one value per run, so no test.
class ComparisonTable
{
public:
    using Better = MetricCatalogue::Better;
    enum class Noise { NotTested, WithinNoise, Significant };

    struct Row {
        QString key;   ///< "ttft_mean", "requests_per_s", … (CSV)
        QString label; ///< "TTFT mean"
        QString unit;  ///< "ms", "req/s", "%", …
        Better better = Better::Neither;
        std::vector<std::optional<double>> values;   ///< per run
        std::vector<bool> best;                      ///< per run: holds the best value (ties: all)
        std::vector<std::optional<double>> deltaPct; ///< per run vs the baseline; none for the baseline itself
        std::vector<Noise> noise;                    ///< per run vs the baseline
        /// per run: the bootstrap 95% interval of (run − baseline) of the row's statistic, in the
        /// row's unit; none where not tested
        std::vector<std::optional<Bootstrap::Interval>> intervals;
        bool headline = false; ///< one of the figures a comparison leads with (isHeadline)
    };

    /// `baseline` indexes `runs`. The runs need their records (RunReader::Records) for the noise
    /// tests; without them the tests say "not tested". Once `cancel` is cancelled the table stops
    /// between rows (its bootstrap tests are the long part), incomplete: for a result no one wants.
    explicit ComparisonTable(const std::vector<RunData> &runs, int baseline = 0,
                             const CancelToken &cancel = CancelToken());

    int baseline() const { return m_baseline; }
    const QStringList &labels() const { return m_labels; }
    const std::vector<Row> &rows() const { return m_rows; }
    /// "#2 run-b: max_tokens 512, baseline 256"
    const QStringList &warnings() const { return m_warnings; }
    /// What qualifies a run's own figures: "#1 run-a: 97 of 100 requests stopped at max_tokens
    /// (finish_reason length): out/in reflects the max_tokens cap", and its summary's warnings
    /// (cache hits the workload did not ask for); runs whose chunk times were taken differently
    /// (I/O backends, kernel receive stamps or not).
    const QStringList &notes() const { return m_notes; }

    /// A fixed-width table for a terminal, then the warnings, the notes and a legend.
    QString toText() const;
    /// metric,unit,better,<label>… (values), then per non-baseline run "<label> delta %" and
    /// "<label> noise"; numbers with full precision.
    QByteArray toCsv() const;

    /// How the text table, the GUI comparison and the HTML report print a value: formatNumber() with
    /// 4 significant digits, up to 6 decimals for small values ("12346", "1.235", "0.01235"); a
    /// whole count in the row's `unit` without decimals (MetricCatalogue::isWholeCount: "50").
    static QString formatValue(double value, const QString &unit = {});
    /// A change with its sign and one decimal, a real minus sign for print: "+12.3%", "−0.5 pp".
    static QString formatChange(double value, const QString &suffix = QStringLiteral("%"));
    static QString noiseName(Noise noise);    ///< "", "within noise", "significant"
    static QString betterName(Better better); ///< "lower", "higher", ""
    /// The rows a comparison leads with (the GUI's headline strip): TTFT p50, output tokens/s,
    /// requests/s, out/in, errors, and the cost of a run's output where the runs have prices.
    static bool isHeadline(const QString &key);
    /// The labels the table gives `runs`: directory names, "(#n)" added to repeats.
    static QStringList runLabels(const std::vector<RunData> &runs);

private:
    /// The note on runs whose chunk times were taken differently (ioBackend()), when they were.
    void addIoNote(const std::vector<RunData> &runs);

    std::vector<Row> m_rows;
    QStringList m_labels;
    QStringList m_runLines;
    QStringList m_warnings;
    QStringList m_notes;
    int m_baseline = 0;
};

/// A load-balanced run (a target with replicas) as one RunData per instance — its summary block,
/// records and configuration with that instance's URL — named "host:port/path", in
/// url-then-replicas order, so a ComparisonTable of them shows how the balance policy shared the
/// load. Empty for a run of one instance.
std::vector<RunData> splitByInstance(const RunData &run);
/// A run of several models (a --model mix, a dataset's "model") as one RunData per model — its
/// summary block, records and configuration with that model's name — named after the model, in
/// RunInfo::models order, so a ComparisonTable of them shows what each model's requests got. Empty
/// for a run of one model.
std::vector<RunData> splitByModel(const RunData &run);
/// A staged run (a sweep) as one RunData per stage — its summary block, records and time series —
/// named after the stage ("c=64"), in stage order, so a ComparisonTable of them shows what each
/// step of load cost. Empty for a run of fewer than two stages.
std::vector<RunData> splitByStage(const RunData &run);
/// What `compare`, `report` and the comparison view do with what they were given: a single
/// load-balanced run is replaced by its instances (splitByInstance), since how they fared is
/// what there is to compare; anything else stays as it is. True when it split.
bool expandSingleRunInstances(std::vector<RunData> &runs);
/// The same for a single run of several models (splitByModel), when it has no instances to split.
bool expandSingleRunModels(std::vector<RunData> &runs);
/// What tables call an instance: "host:port/path" of its base URL (the URL itself if unparsable).
QString instanceName(const QString &url);

/// One stage of a staged run on a throughput–latency curve: the rate it achieved and the latency
/// it cost.
struct CurvePoint {
    QString stage;
    double requestsPerS = 0;
    double p50 = 0;
    double p99 = 0;
};
/// The throughput–latency curve of a staged run for `metric`, one point per stage with successful
/// requests, in stage order (a curve that bends back shows a target past saturation). Empty for a
/// run of fewer than two stages. A stage Stop cut is left out: its rate is of its first seconds.
std::vector<CurvePoint> throughputLatencyCurve(const RunSummary &summary, Metric metric);
/// The stages throughputLatencyCurve() leaves out and why: "c=100 left out: stopped after 2.1 s
/// of 10 s"; empty when none.
QString leftOutOfCurve(const RunSummary &summary);

/// Where a staged run (a sweep) saturates on its throughput–latency curve: the stage of the
/// highest throughput that still beat every earlier stage by at least kKneeGain. A later stage
/// gaining less (or losing) shows the target saturated there: more load buys latency, not
/// throughput. Below two points there is nothing to find.
struct Knee {
    static constexpr double kKneeGain = 0.05;
    std::size_t point = 0;  ///< index into the curve
    bool saturated = false; ///< a later stage gained less than kKneeGain: the knee lies inside the range tested
    /// One line: "knee at c=64: 41.2 req/s, TTFT p99 812 ms; c=128 adds +2.1% req/s for +140% p99",
    /// or "no knee up to c=128: …; sweep higher".
    QString text;
};
std::optional<Knee> findKnee(const std::vector<CurvePoint> &curve, const QString &metricLabel);
/// The latency a run's knee is judged by: TTFT when it streamed tokens, else E2E.
Metric kneeMetric(const RunSummary &summary);
/// A run's knee on its kneeMetric() curve, its text saying which stages it leaves out.
std::optional<Knee> findKnee(const RunSummary &summary);

/// Runs of an interleaved session (each request id went to every target at the same moment, see
/// BenchmarkRunner::startInterleaved) compared request by request: for each latency metric the
/// median of the per-request differences (run − baseline, joined on request id, both successful
/// and not warm-up) with a bootstrap 95% confidence interval. Pairing removes what the requests
/// share — the prompt, the moment, the network — so it sees smaller differences than the
/// unpaired test of ComparisonTable. Only meaningful for runs whose ids name the same requests.
class PairedComparison
{
public:
    struct Cell {
        std::size_t pairs = 0;                       ///< requests successful in both runs
        std::optional<double> median;                ///< median of (run − baseline), in the row's unit
        std::optional<double> medianPct;             ///< that median against the baseline's median, in %
        std::optional<Bootstrap::Interval> interval; ///< of the median
        ComparisonTable::Noise noise = ComparisonTable::Noise::NotTested;
    };
    struct Row {
        QString key;             ///< "ttft", "tpot", "itl", "e2e"
        QString label;           ///< "TTFT"
        QString unit;            ///< "ms"
        std::vector<Cell> cells; ///< per run; the baseline's is empty
    };

    explicit PairedComparison(const std::vector<RunData> &runs, int baseline = 0);

    int baseline() const { return m_baseline; }
    const QStringList &labels() const { return m_labels; }
    const std::vector<Row> &rows() const { return m_rows; }
    /// Whether any run shares a request with the baseline.
    bool hasPairs() const;
    /// A fixed-width table like ComparisonTable::toText()'s, with a legend.
    QString toText() const;

private:
    std::vector<Row> m_rows;
    QStringList m_labels;
    int m_baseline = 0;
};

} // namespace tb
