#pragma once

#include <cstdint>
#include <vector>

namespace tb {

/// Tokens held by the requests in flight — the KV-cache pressure a client can see (docs/metrics.md
/// "Tokens in flight"): a request holds its prompt tokens from sent to done, and each of its output
/// tokens from its arrival to done. The integral over time is exact; per second of run time (the
/// first kMaxTimeSeriesSeconds) it keeps the time-weighted mean, whose largest is the peak. O(1) a
/// held span: full seconds go to a difference array, the two partial ones are added directly.
/// Memory: 16 bytes a second of run time.
class TokensInFlight
{
public:
    /// `tokens` held over [fromNs, toNs) of run time; ignored unless 0 ≤ fromNs ≤ toNs and tokens > 0.
    void hold(std::int64_t fromNs, std::int64_t toNs, std::int64_t tokens);

    /// Σ tokens × time held, in token·seconds.
    double tokenSeconds() const { return m_tokenNs / 1e9; }
    /// The largest time-weighted mean over a whole second [s, s+1) of run time; 0 when nothing was held.
    double peakSecondMean() const;
    std::size_t heapBytes() const { return (m_partialNs.capacity() + m_rateDelta.capacity()) * sizeof(double); }

private:
    double m_tokenNs = 0;
    std::vector<double> m_partialNs; ///< per second: token·ns of spans that start or end inside it
    std::vector<double> m_rateDelta; ///< per second: change of the tokens held through whole seconds
};

} // namespace tb
