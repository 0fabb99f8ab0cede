#pragma once

#include "results/rundirectory.h"

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
    enum class Better { Lower, Higher, Neither };
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
    };

    /// `baseline` indexes `runs`. The runs need their records (RunReader::Records) for the noise
    /// tests; without them the tests say "not tested".
    ComparisonTable(const std::vector<RunData> &runs, int baseline = 0);

    int baseline() const { return m_baseline; }
    const QStringList &labels() const { return m_labels; }
    const std::vector<Row> &rows() const { return m_rows; }
    /// "#2 run-b: max_tokens 512, baseline 256"
    const QStringList &warnings() const { return m_warnings; }

    /// A fixed-width table for a terminal, then the warnings and a legend.
    QString toText() const;
    /// metric,unit,better,<label>… (values), then per non-baseline run "<label> delta %" and
    /// "<label> noise"; numbers with full precision.
    QByteArray toCsv() const;

    /// How the text table prints a value: 4 significant digits at least, thousands unsplit.
    static QString formatValue(double value);
    static QString noiseName(Noise noise);    ///< "", "within noise", "significant"
    static QString betterName(Better better); ///< "lower", "higher", ""

private:
    std::vector<Row> m_rows;
    QStringList m_labels;
    QStringList m_runLines;
    QStringList m_warnings;
    int m_baseline = 0;
};

} // namespace tb
