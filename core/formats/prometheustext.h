#pragma once

// The Prometheus text exposition format (0.0.4) and OpenMetrics 1.0 text, both ways: a bounded
// parser for what a server's /metrics sends (hostile input: every size is capped, every malformed
// line is an error naming its line), and a small writer for the simulator's own /metrics.

#include <QByteArrayView>
#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tb {

enum class PromType : std::uint8_t { Unknown, Counter, Gauge, Histogram, GaugeHistogram, Summary, Info, StateSet };
/// "counter", "gauge", …, "untyped" for Unknown.
const char *promTypeName(PromType type);

using PromLabels = std::vector<std::pair<std::string, std::string>>;

/// One line of samples: `name{labels} value [timestamp]`.
struct PromSample {
    std::string name; ///< as written, suffix included (`x_bucket`, `x_total`, …)
    PromLabels labels;
    double value = 0;
    std::optional<double> timestampS; ///< Prometheus: integer ms, OpenMetrics: seconds; here seconds

    /// The value of label `key`, or nullptr.
    const std::string *label(std::string_view key) const;
};

/// What `# TYPE`, `# HELP` and `# UNIT` said about a metric family.
struct PromFamily {
    std::string name;
    PromType type = PromType::Unknown;
    std::string help;
    std::string unit;
};

struct PromLimits {
    std::size_t maxBytes = 8 * 1024 * 1024;
    std::size_t maxLines = 200'000;
    std::size_t maxSeries = 50'000; ///< samples in one exposition
    std::size_t maxLineBytes = 64 * 1024;
    std::size_t maxLabels = 64; ///< per sample
};

struct PromExposition {
    std::vector<PromSample> samples;
    std::vector<PromFamily> families;
    bool openMetrics = false; ///< ended with `# EOF`

    /// The family a sample belongs to: its name, or the name without a suffix its type allows
    /// (`_bucket`, `_sum`, `_count`, `_total`, `_created`, `_gcount`, `_gsum`, `_info`).
    const PromFamily *familyOf(const std::string &sampleName) const;
};

/// Parses Prometheus text or OpenMetrics. On malformed input (HTML, JSON, a cut line) or a broken
/// limit returns std::nullopt and *error says what and on which line.
std::optional<PromExposition> parsePrometheusText(QByteArrayView text, QString *error, const PromLimits &limits = {});

/// `{a="x",b="y\"z"}` with the format's escapes; empty for no labels. The raw-series key of
/// server_metrics.csv.
std::string formatPromLabels(const PromLabels &labels);

/// Writes Prometheus text (0.0.4): HELP/TYPE once per family, then its samples. With unit() and
/// end() it writes OpenMetrics 1.0 (then counter families are named without `_total`, which their
/// samples carry).
class PromWriter
{
public:
    void family(std::string_view name, PromType type, std::string_view help);
    /// OpenMetrics: `# UNIT name unit` after family(); the name must end in `_unit`.
    void unit(std::string_view name, std::string_view unit);
    /// OpenMetrics: the closing `# EOF`.
    void end() { m_out += "# EOF\n"; }
    void sample(std::string_view name, const PromLabels &labels, double value);
    /// A cumulative histogram: `_bucket{le}` for each bound and +Inf, `_sum`, `_count`.
    void histogram(std::string_view name, const PromLabels &labels, const std::vector<double> &bounds,
                   const std::vector<std::uint64_t> &counts, double sum);
    const std::string &text() const { return m_out; }

private:
    std::string m_out;
};

/// Fixed-bucket histogram as Prometheus client libraries keep it (per-bucket counts, not yet
/// cumulative); observe() is O(log buckets).
class PromHistogram
{
public:
    explicit PromHistogram(std::vector<double> bounds);
    void observe(double value, std::uint64_t times = 1);
    void clear();
    const std::vector<double> &bounds() const { return m_bounds; }
    /// Cumulative counts per bound, then the +Inf bucket (= count).
    std::vector<std::uint64_t> cumulative() const;
    double sum() const { return m_sum; }
    std::uint64_t count() const { return m_count; }

private:
    std::vector<double> m_bounds;
    std::vector<std::uint64_t> m_counts; ///< one per bound and a last for +Inf
    double m_sum = 0;
    std::uint64_t m_count = 0;
};

} // namespace tb
