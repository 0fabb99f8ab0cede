#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace tb {

/// summary.json's `client` block.
struct ClientHealthSummary {
    /// Thresholds of the saturation rule: a second of run time is client-limited when the client's
    /// CPU reached kCpuLimit of the cores, or an event loop (the run's or a transport thread's) ran
    /// on average kLagLimitMs late over the second's probes, or the median send lag (scheduled →
    /// sent, open loop without an in-flight cap) of the requests scheduled in it reached kLagLimitMs,
    /// or half of the bytes read over the native transport in it waited ≥ kLagLimitMs in the kernel.
    static constexpr double kCpuLimit = 0.9;
    static constexpr double kLagLimitMs = 20;
    /// A run is flagged when at least this share of its seconds were client-limited.
    static constexpr double kFlagFraction = 0.05;
    /// The evidence a second needs before it is judged at all: the probes must have covered at
    /// least this much of it (a run's last partial second, or a run under half a second, is not
    /// judged: one late tick is not a trend) ...
    static constexpr double kMinCoveredS = 0.5;
    /// ... its send lag counts from this many requests scheduled in it (a median of one is that
    /// request's connect) ...
    static constexpr int kMinSendLags = 5;
    /// ... and its read backlog from this many reads (fewer: the p99 is one read's wait). Not
    /// more: a backlog makes reads fewer and larger (a transport thread busy 90 ms of every 100
    /// reads 60–100 times a second, against ~3,000 calm).
    static constexpr int kMinReads = 20;

    int cores = 0;
    int seconds = 0;          ///< seconds of run time judged (covered ≥ kMinCoveredS)
    double cpuMeanPct = 0;    ///< process CPU time over wall time, % of all cores
    double cpuPeakPct = 0;    ///< the busiest second
    double loopLagMeanMs = 0; ///< mean lateness of the 100 ms probes, every event loop
    double loopLagMaxMs = 0;
    std::optional<double> sendLagP50Ms; ///< over the open-loop requests (none in closed loop)
    std::optional<double> sendLagMaxMs;
    /// Kernel receive stamp → read, byte-weighted, over the native transport's reads (none over
    /// TLS or in summaries from before it).
    std::optional<double> readBacklogP50Ms;
    std::optional<double> readBacklogP99Ms;
    std::optional<double> readBacklogMaxMs;
    int readBacklogSeconds = 0; ///< seconds client-limited by the read backlog (among others maybe)
    int saturatedSeconds = 0;
    std::optional<int> firstSaturatedS; ///< run time of the first client-limited second
    bool saturated = false;             ///< saturatedSeconds ≥ kFlagFraction of seconds

    double saturatedFraction() const { return seconds ? double(saturatedSeconds) / seconds : 0; }
    /// "client saturated for 12% of the window; figures after 31 s are limited by this machine"
    QString note() const;
    nlohmann::json toJson() const;
    static std::optional<ClientHealthSummary> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
