#include "metrics/tokensinflight.h"

#include "metrics/timeseriesrow.h"

#include <algorithm>

namespace tb {

void TokensInFlight::hold(std::int64_t fromNs, std::int64_t toNs, std::int64_t tokens)
{
    if (fromNs < 0 || toNs < fromNs || tokens <= 0)
        return;
    const double n = double(tokens);
    m_tokenNs += n * double(toNs - fromNs);
    const std::int64_t first = fromNs / kNsPerSecond;
    const std::int64_t ends = toNs / kNsPerSecond; // the second it ends in
    if (first >= kMaxTimeSeriesSeconds)
        return;
    const bool clipped = ends >= kMaxTimeSeriesSeconds;
    const std::int64_t last = clipped ? kMaxTimeSeriesSeconds - 1 : ends;
    if (std::size_t(last) + 2 > m_partialNs.size()) {
        m_partialNs.resize(std::size_t(last) + 2, 0);
        m_rateDelta.resize(std::size_t(last) + 2, 0);
    }
    if (first == ends) {
        m_partialNs[std::size_t(first)] += n * double(toNs - fromNs);
        return;
    }
    m_partialNs[std::size_t(first)] += n * double((first + 1) * kNsPerSecond - fromNs);
    if (!clipped)
        m_partialNs[std::size_t(ends)] += n * double(toNs - ends * kNsPerSecond);
    // The whole seconds: first + 1 up to the one it ends in (or the series' last, past which it runs).
    m_rateDelta[std::size_t(first) + 1] += n;
    m_rateDelta[std::size_t(clipped ? kMaxTimeSeriesSeconds : ends)] -= n;
}

double TokensInFlight::peakSecondMean() const
{
    double held = 0;
    double peak = 0;
    for (std::size_t s = 0; s < m_partialNs.size(); ++s) {
        held += m_rateDelta[s];
        peak = std::max(peak, (m_partialNs[s] + held * double(kNsPerSecond)) / double(kNsPerSecond));
    }
    return peak;
}

} // namespace tb
