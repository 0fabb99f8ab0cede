#pragma once

// Per-slice metrics (--slice D, docs/metrics.md "Slices"): the run's time cut into slices
// [k·D, (k+1)·D) of run time, each with its own figures, so a drift or a stall in time shows.

#include "metrics/loghistogram.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

struct RequestRecord;
class TokenTimeline;

struct SliceSummary {
    double startS = 0;
    double endS = 0;             ///< (k+1)·D, or the window's end for the last slice
    std::int64_t ok = 0;         ///< successful requests done in the slice
    std::int64_t failed = 0;     ///< failed requests (not cancelled) done in the slice
    double outputTokensPerS = 0; ///< output tokens that arrived in the slice / its length
    double ttftP50Ms = 0;        ///< of the successful requests done in it; NaN without any
    double ttftP99Ms = 0;
    double itlP50Ms = 0; ///< of the ITL samples whose chunk arrived in it; NaN without any
    double itlP99Ms = 0;
    double meanInFlight = 0; ///< time in flight within the slice / its length

    nlohmann::json toJson() const;
    /// Reads what toJson() wrote; on error returns std::nullopt and sets *error.
    static std::optional<SliceSummary> fromJson(const nlohmann::json &json, QString *error);
};

/// Accumulates the slices from records as they complete: O(chunks + slices spanned) a record.
class SliceAggregator
{
public:
    /// Slices beyond this many are not kept (a summary warning counts what they missed).
    static constexpr std::int64_t kMaxSlices = 1000;

    explicit SliceAggregator(std::int64_t sliceNs);

    /// A measured (not warm-up) record; `timeline` for a successful one, else null.
    void add(const RequestRecord &record, const TokenTimeline *timeline);
    /// The slices from 0 up to the one holding `endNs` (the window's end), at most kMaxSlices.
    std::vector<SliceSummary> summary(std::int64_t endNs) const;
    /// Events (requests done, chunks arrived, ITL samples) past the last slice kept.
    std::int64_t beyond() const { return m_beyond; }
    std::int64_t sliceNs() const { return m_sliceNs; }

private:
    struct Slice {
        std::int64_t ok = 0;
        std::int64_t failed = 0;
        std::int64_t outputTokens = 0;
        double busyNs = 0;
        LogHistogram ttftMs, itlMs;
    };
    /// The slice of `ns`, grown as needed; null past kMaxSlices (counted in m_beyond).
    Slice *at(std::int64_t ns);

    std::int64_t m_sliceNs;
    std::vector<Slice> m_slices;
    std::int64_t m_beyond = 0;
};

} // namespace tb
