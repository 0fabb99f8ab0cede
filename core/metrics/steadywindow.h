#pragma once

#include "metrics/timeseriesrow.h"

#include <QString>

#include <vector>

namespace tb {

/// The method's parameters (SteadyWindow).
struct SteadyWindowParams {
    int windowS = 5;          ///< W
    double band = 0.15;       ///< R: ±15% of the level
    double noiseSigmas = 4;   ///< the counts' band is at least this many Poisson σ
    int minS = 10;            ///< a steady window lasts at least this long …
    double minFraction = 0.3; ///< … and this share of the run
};

/// The stretch of a run where it measured the load it was asked for, not its start or its end
/// (docs/metrics.md "Steady state"): in flight, completions a second and latency (TTFT p50 a
/// second; E2E p50 for runs without tokens) stay level. A closed loop's start burst inflates the
/// first seconds' TTFT several times, a cold engine is slow for its first seconds, and the last
/// requests drain with nothing queued behind them: figures over the whole run mix all three in.
///
/// The method, on whole W-second windows of the per-second rows (a last partial window is left out):
///  1. Each window's level: mean in flight, completions / W, the median of its seconds' latency p50s.
///  2. The drain: trailing windows whose in-flight level is below the band (3.) around the median
///     in-flight level of all windows are cut off.
///  3. The start is the first window k from which, over windows [k, end), every series stays in its
///     band and does not drift: each window within ±band of the windows' median, and the least-squares
///     slope × the stretch's length within ±band too. The band is R × median, widened to
///     kNoiseSigmas × √(median / W) for the counts (in flight, completions) whose few-per-second
///     levels Poisson noise alone moves by more than R.
///  4. The stretch must last at least max(minS, minFraction × the run's seconds), else none.
struct SteadyWindow {
    using Params = SteadyWindowParams;

    bool found = false;
    int startS = 0; ///< [startS, endS) of run time, whole windows
    int endS = 0;
    int runS = 0;     ///< seconds of rows looked at
    bool e2e = false; ///< latency was E2E p50 (no request had a first token)
    QString reason;   ///< why none was found; empty when found

    /// The window of `rows` (RunAggregator::timeSeries(): second 0 first, one row a second).
    static SteadyWindow find(const std::vector<TimeSeriesRow> &rows, const Params &params);
    static SteadyWindow find(const std::vector<TimeSeriesRow> &rows) { return find(rows, Params()); }
    /// The method in one line, with its parameters, for summary.json and reports.
    static QString method(const Params &params);
    static QString method() { return method(Params()); }
};

} // namespace tb
