#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// A latency's error-adjusted percentiles (docs/metrics.md "Error-adjusted percentiles", AIPerf's
/// term): every failed request counts as a sample of +∞ beside the successful requests' values, so
/// a percentile that falls among the failures is infinite. They say what a user waited, failures
/// included, where the ordinary percentiles (successful requests only) improve as more fail.
struct ErrorAdjusted {
    std::uint64_t count = 0;  ///< samples: successful requests with a value + `failed`
    std::uint64_t failed = 0; ///< failed requests, each +∞
    double p50 = 0;           ///< +∞ among the failures, NaN without samples
    double p90 = 0;
    double p99 = 0;

    /// Of `values` (the successful requests') and `failed` failures, by exactPercentile.
    static ErrorAdjusted of(const std::vector<float> &values, std::uint64_t failed);

    /// {"count", "failed", "p50", "p90", "p99"}: a percentile is a number, the string "inf" when it
    /// falls among the failures, or null without samples.
    nlohmann::json toJson() const;
    /// Reads what toJson() wrote; on error returns std::nullopt and sets *error.
    static std::optional<ErrorAdjusted> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
