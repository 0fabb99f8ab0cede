#pragma once

#include <cstdint>
#include <limits>

namespace tb {

/// The per-second figures (timeseries.csv, the live charts, the peaks in flight and of output
/// tokens a second) cover a run's first 7 days: they are kept for every second up to the latest, so
/// one far-off time (a damaged requests.csv read back) would cost gigabytes. Requests after it count
/// in every other figure.
inline constexpr std::int64_t kMaxTimeSeriesSeconds = 7 * 24 * 3600;
inline constexpr std::int64_t kNsPerSecond = 1'000'000'000;

/// One second of run time (docs/SPEC.md §4 timeseries.csv), warm-up excluded like every statistic.
/// Each request counts where its events fell: `sent` and `input_tokens` in the second it was sent,
/// `completed`/`failed`/`cancelled`/`good` and the latency percentiles (successful requests) in the
/// second it was done, `output_tokens` in the second each chunk streamed in; `in_flight` is the
/// peak at any instant of the second.
struct TimeSeriesRow {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

    int second = 0; ///< t_s: [second, second + 1) s after the run's start
    std::int64_t sent = 0;
    std::int64_t completed = 0; ///< successful
    std::int64_t failed = 0;
    int inFlight = 0;
    std::int64_t outputTokens = 0; ///< of successful requests
    std::int64_t inputTokens = 0;  ///< of successful requests
    double ttftP50Ms = kNone;      ///< NaN: no successful completion this second
    double ttftP99Ms = kNone;
    double e2eP50Ms = kNone;
    double e2eP99Ms = kNone;
    // Beyond docs/SPEC.md's columns:
    int stage = -1;        ///< the latest stage a request was sent in (carried over idle seconds)
    std::int64_t good = 0; ///< completions meeting every SLO
    std::int64_t cancelled = 0;
};

} // namespace tb
