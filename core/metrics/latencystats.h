#pragma once

#include "metrics/loghistogram.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

namespace tb {

/// docs/SPEC.md §3's statistics block S of one metric: {count, mean, stddev, min, p50, p90, p95, p99,
/// p999, max}. Taken from a LogHistogram, so count/mean/stddev/min/max are exact and percentiles
/// within 0.5%. With no values every number is NaN and the JSON form writes null for it: "no
/// measurement" must not read as a measured 0.
struct LatencyStats {
    std::uint64_t count = 0;
    double mean = 0;
    double stddev = 0;
    double min = 0;
    double p50 = 0;
    double p90 = 0;
    double p95 = 0;
    double p99 = 0;
    double p999 = 0;
    double max = 0;

    static LatencyStats fromHistogram(const LogHistogram &histogram);

    nlohmann::json toJson() const;
    /// Reads what toJson() wrote; on error returns std::nullopt and sets *error.
    static std::optional<LatencyStats> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
