#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// A percentile-bootstrap confidence interval of statistic(b) − statistic(a) for two independent
/// samples — "is run B's median TTFT really different from run A's, or within noise?".
///
/// Deterministic for a given seed, on any platform: the generator is std::mt19937_64 (its sequence
/// is fixed by the standard) and every distribution on top of it is computed here, not by the
/// standard library's unspecified ones.
///
/// Cost: a quantile's bootstrap replicate is drawn directly — in a resample of n values with
/// replacement the k-th smallest is sorted[⌊n·U⌋] with U the k-th order statistic of n uniforms,
/// U ~ Beta(k, n − k + 1) — so a replicate costs O(1), not O(n), and the interval is exact for
/// any n. The mean is resampled value by value up to kDirectMeanLimit values; beyond that its
/// bootstrap distribution is drawn from its normal limit (mean, s/√n), which it equals to many
/// digits at that size.
class Bootstrap
{
public:
    struct Interval {
        double low = 0;
        double high = 0;
        bool excludesZero() const { return low > 0 || high < 0; }
    };

    static constexpr std::size_t kDirectMeanLimit = 50000;

    /// The statistic is the mean when q < 0, else the nearest-rank q-quantile (q in [0, 1]).
    /// std::nullopt when a sample is empty.
    static std::optional<Interval> difference(std::vector<double> a, std::vector<double> b, double q,
                                              std::uint64_t seed, int resamples = 2000, double confidence = 0.95);
};

} // namespace tb
