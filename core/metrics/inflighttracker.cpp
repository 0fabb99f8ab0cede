#include "metrics/inflighttracker.h"

#include "metrics/timeseriesrow.h"

#include <algorithm>
#include <limits>

namespace tb {

namespace {
constexpr std::int64_t kSeriesEndNs = kMaxTimeSeriesSeconds * kNsPerSecond;
} // namespace

void InFlightTracker::add(std::int64_t sentNs, std::int64_t doneNs)
{
    if (sentNs < 0 || doneNs < sentNs)
        return;
    const std::int64_t busy = doneNs - sentNs;
    m_busyNs = busy > std::numeric_limits<std::int64_t>::max() - m_busyNs ? std::numeric_limits<std::int64_t>::max()
                                                                          : m_busyNs + busy;
    if (sentNs >= kSeriesEndNs)
        return;
    m_events.push_back(sentNs * 2 + 1);
    m_events.push_back(std::min(doneNs, kSeriesEndNs - 1) * 2);
}

void InFlightTracker::sweep() const
{
    if (m_sorted == m_events.size())
        return;
    const auto middle = m_events.begin() + std::ptrdiff_t(m_sorted);
    std::sort(middle, m_events.end());
    const std::int64_t firstNew = *middle;
    std::inplace_merge(m_events.begin(), middle, m_events.end());
    m_sorted = m_events.size();

    // Seconds before the first new event keep their figures. A first new event beyond the swept
    // range finds nothing in flight: both events of every earlier interval came before it.
    const std::size_t from = std::min(std::size_t(firstNew / 2 / kNsPerSecond), m_atSecondStart.size());
    int current = from < m_atSecondStart.size() ? m_atSecondStart[from] : 0;
    const std::size_t seconds = std::size_t(m_events.back() / 2 / kNsPerSecond + 1);
    m_atSecondStart.resize(from);
    m_peakPerSecond.resize(from);
    m_atSecondStart.resize(seconds, 0);
    m_peakPerSecond.resize(seconds, 0);
    m_atSecondStart[from] = m_peakPerSecond[from] = current;

    std::size_t second = from;
    for (auto it = std::lower_bound(m_events.begin(), m_events.end(), std::int64_t(from) * kNsPerSecond * 2);
         it != m_events.end(); ++it) {
        const auto at = std::size_t(*it / 2 / kNsPerSecond);
        // Seconds passed without events keep what was in flight when they began.
        for (; second < at; ++second)
            m_atSecondStart[second + 1] = m_peakPerSecond[second + 1] = current;
        current += (*it & 1) ? 1 : -1;
        m_peakPerSecond[at] = std::max(m_peakPerSecond[at], current);
    }
    m_peak = *std::max_element(m_peakPerSecond.begin(), m_peakPerSecond.end());
}

int InFlightTracker::peak() const
{
    sweep();
    return m_peak;
}

const std::vector<int> &InFlightTracker::peakPerSecond() const
{
    sweep();
    return m_peakPerSecond;
}

} // namespace tb
