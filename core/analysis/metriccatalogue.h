#pragma once

#include "metrics/runsummary.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <cmath>
#include <functional>
#include <optional>
#include <vector>

namespace tb {

/// A metric's value, or none where it is not a number (a NaN or an infinity stands for "not measured").
inline std::optional<double> finiteOrNone(double v)
{
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

/// Every figure a run is reported by, defined once: its key (summary CSV, comparison CSV, HTML
/// report), the label and unit people read, which way is better, how it is read from a summary, and
/// what it means (the glossary resource, resources/metric-glossary.json, after docs/metrics.md).
/// The summary table, the comparison (and so `compare`, `report`, the HTML report and the GUI's
/// comparison view), the baseline change and Help ▸ Metrics all read it; a new metric is one row
/// here (docs/ARCHITECTURE.md, "Where a new metric goes").
class MetricCatalogue
{
public:
    enum class Better { Lower, Higher, Neither };

    struct Entry {
        QString key;   ///< "ttft_p50", "requests_per_s", …
        QString label; ///< "TTFT p50"
        QString unit;  ///< "ms", "req/s", "%", "count" (a count, shown without a unit), …
        Better better = Better::Neither;
        /// The figure of one summary block (the whole run, a stage, an instance); none where it has
        /// none.
        std::function<std::optional<double>(const SummaryBlock &)> block;
        /// A run-wide figure instead (the server's own metrics, the cost, the context-sweep fit):
        /// there is no such figure per block.
        std::function<std::optional<double>(const RunSummary &)> whole = {};
        /// One of the summary table's rows (the run-wide figures and the reasoning rate are the
        /// comparison's only).
        bool inSummary = true;

        /// The figure of a block; none for a run-wide metric.
        std::optional<double> of(const SummaryBlock &b) const { return block ? block(b) : std::nullopt; }
        /// The figure of a whole run.
        std::optional<double> of(const RunSummary &s) const { return whole ? whole(s) : of(s.total); }
    };

    /// Every metric, in the summary table's order.
    static const std::vector<Entry> &all();
    /// The metric of a key; null when there is none.
    static const Entry *find(const QString &key);
    /// Whether `value` is a whole number of things counted in `unit` ("count", "requests", "tokens",
    /// "req"): people read it without decimals, "50 requests" rather than "50.00 requests". Means
    /// of counts (mean in flight 12.5) keep their decimals.
    static bool isWholeCount(double value, const QString &unit);

    /// A term of the glossary: what one metric (or a family of them, "TTFT") means.
    struct GlossaryEntry {
        QString term;
        QStringList keys; ///< metric keys (or key prefixes) it explains: "ttft", "window_s"
        QString definition;
    };
    /// The glossary, in the resource's order (Help ▸ Metrics).
    static const QList<GlossaryEntry> &glossary();
    /// The entry explaining a metric key: the longest listed key that is the key or its prefix at
    /// an underscore ("ttft_from_schedule_p99" → "ttft_from_schedule"); null when none explains it.
    static const GlossaryEntry *glossaryEntry(const QString &key);
    /// glossaryEntry()'s definition (a row's tooltip), or empty.
    static QString definition(const QString &key);
};

} // namespace tb
