#pragma once

#include "metrics/timeseriesrow.h"

#include <QString>

#include <vector>

namespace tb {

/// The test's parameters (SaturationDetector).
struct SaturationParams {
    int trendS = 15;        ///< T: the last T whole seconds are judged, once the run has lasted that long
    double minT = 3;        ///< each slope's t-statistic must exceed this
    double minGrowth = 0.5; ///< and slope × T must exceed this share of the series' mean over T
};

/// Whether an open-loop run has over-saturated its target (docs/metrics.md "Over-saturation"):
/// arrivals outpace completions, so queueing — requests in flight and the TTFT they wait for — grows
/// without bound and any figure measured on reflects how long the run lasted, not the target.
///
/// The test, on the last T whole seconds of per-second rows: the least-squares slopes of in flight
/// (each second's peak) and of TTFT p50 (seconds without a completion left out; at least T/2 of
/// them) against time are both positive, each with a t-statistic (slope / its standard error) above
/// minT, and each projects a growth over T of more than minGrowth × its mean over T. A closed loop
/// holds its in flight at its users, so only open-loop stages are judged.
class SaturationDetector
{
public:
    using Params = SaturationParams;

    /// "over-saturated at 23 s: in flight rose 40 → 180 in 15 s, TTFT p50 +3.1 s", or empty while
    /// not saturated. `rows`: the run's per-second rows, the last one complete.
    static QString check(const std::vector<TimeSeriesRow> &rows, const Params &params);
    static QString check(const std::vector<TimeSeriesRow> &rows) { return check(rows, Params()); }
    /// The test in one line, with its parameters.
    static QString method(const Params &params);
    static QString method() { return method(Params()); }
};

} // namespace tb
