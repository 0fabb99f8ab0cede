#pragma once

// A log-bucketed histogram for latencies and rates: O(1) record, bounded memory, mergeable, with a
// compact JSON form so a summary can carry whole distributions (CDF overlays, comparisons) without
// re-reading requests.csv.

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// One point of a cumulative distribution: the fraction of recorded values ≤ value.
struct CdfPoint {
    double value = 0;
    double fraction = 0;
};

/// Bucket i holds the values in (γ^(i−1), γ^i] with γ = (1+α)/(1−α), α = kRelativeError, and
/// reports them as 2γ^i/(γ+1): every value in the bucket is within α of that representative, so a
/// percentile is within α (0.5%, half the 1% docs/SPEC.md §3 allows) of the exact nearest-rank value.
/// Buckets are stored densely over the range of indices actually used, so memory grows with the
/// spread of the data (a few KB for latencies over two decades), never beyond the fixed index range
/// [kMinValue, kMaxValue] (≈ 33 KB).
///
/// Values below kMinValue (0 included; negative values, which only a clock fault could produce,
/// count as 0) go to a zero bucket reported as the exact minimum: an absolute error below 1 ns for
/// millisecond data, under the clock's resolution. Values above kMaxValue (infinity included) are
/// recorded as kMaxValue; NaN is ignored. count, min, max, mean and stddev are exact (weighted
/// Welford sums).
class LogHistogram
{
public:
    static constexpr double kRelativeError = 0.005;
    /// How far the exact value may lie from the representative reported for it, relative to the
    /// representative: α/(1−α) (the top of a bucket is that much above its representative). Two
    /// adjacent buckets' representatives are exactly 2 such errors apart, so a difference of one
    /// bucket may be no difference at all (RunSpread compares percentiles by it).
    static constexpr double kRepresentativeError = kRelativeError / (1 - kRelativeError);
    static constexpr double kMinValue = 1e-6; ///< 1 ns in ms
    static constexpr double kMaxValue = 1e12; ///< 31 years in ms

    /// Records `value` `count` times (count 0 does nothing).
    void record(double value, std::uint64_t count = 1);
    /// Afterwards this histogram equals one that recorded both inputs (mean/stddev up to rounding).
    void merge(const LogHistogram &other);
    void clear() { *this = LogHistogram(); }

    bool isEmpty() const { return m_count == 0; }
    std::uint64_t count() const { return m_count; }
    /// NaN when empty.
    double min() const;
    double max() const;
    double mean() const;
    /// Population standard deviation; NaN when empty.
    double stddev() const;
    double sum() const { return m_mean * double(m_count); }

    /// Nearest-rank percentile, q in [0, 1]: the nearestRank(q, count)-th smallest value (q = 0:
    /// min, q = 1: max), within kRelativeError. NaN when empty.
    double percentile(double q) const;
    /// ⌈q·n⌉ clamped to [1, n], robust to q·n landing a rounding error above an integer (0.95·20).
    /// The one definition of "percentile rank" for the histogram, the tests and the bootstrap.
    static std::uint64_t nearestRank(double q, std::uint64_t n);
    /// One point per non-empty bucket, ascending, the last with fraction 1.
    std::vector<CdfPoint> cdf() const;

    /// {"relative_error", "count", "min", "max", "mean", "m2", "zero", "offset", "counts"}; counts
    /// are the buckets from index `offset` on, a run of k empty buckets written as -k.
    nlohmann::json toJson() const;
    /// Reads what toJson() wrote; on error returns std::nullopt and sets *error.
    static std::optional<LogHistogram> fromJson(const nlohmann::json &json, QString *error);

    /// Bytes held on the heap (for memory figures).
    std::size_t heapBytes() const { return m_counts.capacity() * sizeof(std::uint64_t); }

private:
    static int indexOf(double value);
    static double representative(int index);
    void addToBucket(int index, std::uint64_t count);
    void addMoments(std::uint64_t count, double mean, double m2);

    std::vector<std::uint64_t> m_counts; ///< m_counts[i] is bucket m_offset + i
    int m_offset = 0;
    std::uint64_t m_zeroCount = 0;
    std::uint64_t m_count = 0;
    double m_min = 0;
    double m_max = 0;
    double m_mean = 0;
    double m_m2 = 0; ///< Σ weight·(x − mean)², Welford's running form
};

} // namespace tb
