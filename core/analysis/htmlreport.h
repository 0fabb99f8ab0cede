#pragma once

#include "analysis/comparison.h"
#include "analysis/runspread.h"
#include "analysis/svgchart.h"
#include "results/rundirectory.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

namespace tb {

/// A comparison of saved runs as one self-contained HTML file that opens offline in any browser
/// and prints on A4: the runs and their colours, workload warnings, the comparison table (best
/// marked, deltas against the baseline with the noise verdict), paired per-request deltas for an
/// interleaved session, charts as inline SVG (CDFs of TTFT, E2E and ITL, throughput over time, and
/// for staged runs the throughput–latency curves) and each run's configuration from run.json, with
/// credential-like header values hidden. Inline CSS, no scripts, no external resources; the file
/// is well-formed XML as well as HTML5.
///
/// Numbers print as ComparisonTable::formatValue() does, and every value cell also carries the
/// summary's number at full precision in a data-value attribute (for scripts that read reports).
class HtmlReport
{
public:
    struct Options {
        QString title;         ///< empty: "TokenBench comparison"
        int baseline = 0;      ///< index into the runs
        QDateTime generatedAt; ///< invalid: now
        /// Repeated-run directories among the runs (run --repeat), by name: a table of each one's
        /// spread (RunSpread) follows the comparison.
        std::vector<std::pair<QString, RunSpread>> spreads;
    };

    /// The runs need their records (RunReader::Records) for noise tests and paired deltas.
    HtmlReport(const std::vector<RunData> &runs, const Options &options);

    const ComparisonTable &table() const { return m_table; }
    /// Present when the runs are one interleaved session.
    const std::optional<PairedComparison> &paired() const { return m_paired; }
    /// The charts in the order the report shows them.
    const QList<SvgChart> &charts() const { return m_charts; }

    QString toHtml() const;
    /// Writes the file atomically; false with *error naming the path.
    bool write(const QString &path, QString *error) const;

    /// Whether a header's value must not be shown (Authorization, X-Api-Key, cookies, tokens, …).
    static bool isSecretHeader(const QString &name);

private:
    void buildCharts();
    QString runsSection() const;
    QString warningsSection() const;
    QString spreadSection() const;
    QString tableSection() const;
    QString pairedSection() const;
    QString chartsSection() const;
    QString configurationSection() const;

    const std::vector<RunData> &m_runs;
    Options m_options;
    ComparisonTable m_table;
    std::optional<PairedComparison> m_paired;
    QList<SvgChart> m_charts;
    QStringList m_captions;
};

} // namespace tb
