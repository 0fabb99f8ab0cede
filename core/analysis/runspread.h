#pragma once

#include "analysis/metriccatalogue.h"
#include "metrics/runsummary.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace tb {

/// The q-quantile of Student's t distribution with `df` degrees of freedom (df > 0, not
/// necessarily whole: Welch's test gives fractional ones), for 0 < q < 1. Computed from the
/// regularized incomplete beta function, P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2), inverted by
/// bisection to double precision: quantile(0.975, 4) = 2.776.
double studentTQuantile(double q, double df);

/// The spread of one metric over repeated runs: the sample mean, the sample standard deviation
/// (n − 1 in the denominator), the coefficient of variation sd / |mean|, and the 95% confidence
/// interval of the mean by Student's t with n − 1 degrees of freedom: mean ± t(0.975, n−1)·sd/√n.
struct SpreadStats {
    static constexpr double kConfidence = 0.95;
    int n = 0;
    double mean = 0;
    double sd = 0;
    std::optional<double> cv; ///< none when the mean is 0
    double t = 0;             ///< t(0.975, n − 1)
    double halfWidth = 0;     ///< t · sd / √n
    double min = 0;
    double max = 0;

    double low() const { return mean - halfWidth; }
    double high() const { return mean + halfWidth; }
    /// Of at least two finite values; none with fewer.
    static std::optional<SpreadStats> of(const std::vector<double> &values);
};

/// Welch's t-test of two groups' means (their variances not assumed equal): t = (mean_b − mean_a)
/// / se with se = √(sd_a²/n_a + sd_b²/n_b), degrees of freedom by Welch–Satterthwaite; the
/// difference is significant at 95% when |t| > t(0.975, df), i.e. when the interval diff ±
/// t(0.975, df)·se excludes 0.
///
/// `resolution` is how far each value may lie from the exact figure it stands for, relative to the
/// value (a percentile read from a LogHistogram: LogHistogram::kRepresentativeError; 0 for an exact
/// figure). The interval is widened by resolution·(|mean_a| + |mean_b|), the most both means can be
/// off together: runs whose percentile lands in the same bucket have no spread, and two such sets
/// one bucket apart are no evidence of a difference. Without spread and resolution (se = 0) two
/// groups differ exactly when their means do.
struct WelchTest {
    double diff = 0; ///< mean_b − mean_a
    double se = 0;
    double df = 0;        ///< 0 when se = 0
    double halfWidth = 0; ///< of the difference's 95% interval, the resolution's widening included
    bool significant = false;
    /// Of two groups of at least two values each; none otherwise.
    static std::optional<WelchTest> of(const SpreadStats &a, const SpreadStats &b, double resolution = 0);
};

/// The headline metrics of repeated runs of one configuration (`--repeat N`), each with its
/// per-run values and their spread: what repeats.json holds, the table `run` prints after the
/// last run and what `compare` and `report` show for a repeated-run directory.
class RunSpread
{
public:
    struct Row {
        QString key; ///< the catalogue's key: "ttft_p50"
        QString label;
        QString unit;
        MetricCatalogue::Better better = MetricCatalogue::Better::Neither;
        std::vector<std::optional<double>> values; ///< per run; none where a run has no such figure
        std::optional<SpreadStats> stats;          ///< over the runs that have a value
        double resolution = 0;                     ///< WelchTest's: a percentile's bucket error, 0 for the exact rates
    };

    /// requests/s, output tokens/s, goodput req/s and good fraction, TTFT p50/p90/p99, TPOT
    /// p50/p99, ITL p50/p99, E2E p50/p99: the catalogue's keys, in this order.
    static const QStringList &headlineKeys();

    explicit RunSpread(const std::vector<RunSummary> &runs);
    /// The spread of a repeated-run directory's finished runs (repeatfile::runDirectories), read
    /// from their summary.json; none with *why naming what could not be read.
    static std::optional<RunSpread> load(const QString &directory, QString *why);

    int runs() const { return m_runs; }
    const std::vector<Row> &rows() const { return m_rows; }
    /// {"<key>": {label, unit, values, n, mean, sd, cv, ci95_low, ci95_high, ci95_half_width, t,
    /// min, max}} (keys sorted, as JSON objects are written); a statistic without a value is null.
    nlohmann::json toJson() const;
    /// metric, mean ± the interval's half-width, sd, CV, min–max: one line a metric.
    QString toText() const;

private:
    int m_runs = 0;
    std::vector<Row> m_rows;
};

/// Two repeated-run sets compared metric by metric by their runs' spread: Welch's t-test of the
/// per-run values (WelchTest), `b` against the baseline `a`, read as better, worse or no
/// significant difference at 95% by the metric's direction.
class RepeatComparison
{
public:
    enum class Verdict { NotTested, Better, Worse, NoDifference };
    struct Row {
        const RunSpread::Row *a = nullptr;
        const RunSpread::Row *b = nullptr;
        std::optional<WelchTest> test;
        Verdict verdict = Verdict::NotTested;
    };

    /// Both spreads must outlive the comparison.
    RepeatComparison(const RunSpread &a, const RunSpread &b, QStringList labels);

    const std::vector<Row> &rows() const { return m_rows; }
    /// The row of a metric key; null when there is none.
    const Row *find(const QString &key) const;
    static QString verdictName(Verdict verdict); ///< "", "better", "worse", "no significant difference"
    /// metric, each side's mean ± half-width, the difference with its interval, the verdict; a legend.
    QString toText() const;

private:
    std::vector<Row> m_rows;
    QStringList m_labels;
};

/// repeats.json, what `run --repeat N` writes into its directory beside run-01 … run-NN.
namespace repeatfile {
inline constexpr char kName[] = "repeats.json";
inline constexpr int kMaxRuns = 100;
/// The directory holds a repeats.json.
bool isRepeatDirectory(const QString &directory);
/// The directories of the runs that finished (repeats.json's "runs": names of subdirectories),
/// as paths; none with *why naming the file and the problem.
std::optional<QStringList> runDirectories(const QString &directory, QString *why);
} // namespace repeatfile

} // namespace tb
