#pragma once

#include "metrics/runsummary.h"

#include <QString>

#include <optional>

namespace tb {

/// The run a user marked as the baseline: comparisons open against it, and the run history shows
/// each later run's change against it. Kept in the application's QSettings (the GUI's; the CLI
/// names its baseline with --baseline instead).
class Baseline
{
public:
    /// The QSettings key holding the baseline run directory.
    static constexpr char kSettingsKey[] = "comparison/baseline";

    /// The marked run directory (absolute, clean); empty when none is marked.
    static QString directory();
    /// Marks `directory` as the baseline; an empty one clears the mark.
    static void setDirectory(const QString &directory);
    /// Whether `directory` is the marked baseline (compared as clean absolute paths).
    static bool isBaseline(const QString &directory);

    /// A run's headline figures against the baseline's.
    struct Change {
        std::optional<double> ttftP50Pct; ///< (run − baseline) / baseline × 100
        std::optional<double> e2eP99Pct;
        std::optional<double> requestsPerSPct;
        std::optional<double> outputTokensPerSPct;
        std::optional<double> errorPoints; ///< run's error % − baseline's, percentage points

        /// Whether any figure could be compared.
        bool isEmpty() const;
        /// "TTFT p50 −12.0% · req/s +8.1% · tok/s +7.9% · errors +0.5 pp" (what compares).
        QString text() const;
        /// +1 when every compared figure moved the better way, −1 when every one moved the worse
        /// way, 0 otherwise (for colouring a history row).
        int direction() const;
    };
    static Change change(const RunSummary &run, const RunSummary &baseline);
};

} // namespace tb
