#pragma once

#include "metrics/loghistogram.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

namespace tb {

/// A second mode of a latency distribution (docs/metrics.md "Bimodality"): periodic stalls — a
/// fixed share of decode steps taking far longer — that neither the mean nor a failure count shows.
///
/// The method, on the samples as their LogHistogram holds them (within its 0.5%): the samples are
/// grouped in coarse bins of kBinsPerDecade per decade of value. Two bins that are each a local
/// maximum are two modes when the emptiest bin between them holds less than half the smaller of the
/// two and the samples on each side of that valley bin (the valley itself on neither) are at least
/// kMinShare of all. Of several such pairs with the largest peak, the one whose smaller side is the
/// largest wins. Fewer than kMinSamples samples are never judged, nor two modes the higher of which
/// is below kMinHighModeMs. A mode's value is the heaviest of
/// the histogram's 1% buckets within its bin.
struct Bimodality {
    static constexpr int kBinsPerDecade = 8;
    static constexpr double kMinShare = 0.02;
    static constexpr std::uint64_t kMinSamples = 100;
    /// A higher mode below this is not a second mode: gaps between events of one read (0 ms) beside
    /// those of the next are the client's read batching under load, not the server's behaviour, and
    /// warned "49.7% of gaps near 0.000 ms, the rest near 0 ms — periodic stalls?" (and, busier,
    /// "31.4% of gaps near 0.178 ms"): no server's decode step is that short.
    static constexpr double kMinHighModeMs = 0.5;

    double share = 0;      ///< the smaller mode's share of the samples (its side of the valley)
    double lowModeMs = 0;  ///< the lower mode's value
    double highModeMs = 0; ///< the higher mode's value
    bool minorHigh = true; ///< the smaller mode is the higher one (a stall), not the lower one

    /// The second mode of `samples`, or none.
    static std::optional<Bimodality> of(const LogHistogram &samples);

    /// "7.9% of gaps near 920 ms, the rest near 20 ms".
    QString describe(const QString &samplesName) const;

    /// {"share", "low_mode_ms", "high_mode_ms", "minor": "high"|"low"}
    nlohmann::json toJson() const;
    /// Reads what toJson() wrote; on error returns std::nullopt and sets *error.
    static std::optional<Bimodality> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
