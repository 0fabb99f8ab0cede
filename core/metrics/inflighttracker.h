#pragma once

#include <cstdint>
#include <vector>

namespace tb {

/// Requests in flight, from their [sent, done] intervals: the exact peak (docs/SPEC.md §5: the configured
/// concurrency must show up here), the peak within each second of run time, and the mean (Little's
/// law: total time in flight / window, which needs no sweep).
///
/// Intervals arrive in completion order, not sorted by time, and a live view asks often, so the
/// events are kept sorted lazily: on the next query new ones are sorted among themselves, merged
/// into the sorted rest, and only the seconds from the earliest new event on are swept again (the
/// count in flight at the start of each second is kept for that). New records start at most a
/// request's duration ago, so a query costs O(new·log new + the events of the last minute or so),
/// and nothing without new data. Memory: two 8-byte events per interval, 8 bytes per second.
class InFlightTracker
{
public:
    /// Ignored unless 0 ≤ sentNs ≤ doneNs.
    void add(std::int64_t sentNs, std::int64_t doneNs);

    /// Over the first kMaxTimeSeriesSeconds of the run, like peakPerSecond().
    int peak() const;
    /// Element s: the most requests in flight at any instant of [s, s+1) s of run time, counting
    /// those that started earlier; as many elements as seconds up to the last done, at most
    /// kMaxTimeSeriesSeconds.
    const std::vector<int> &peakPerSecond() const;
    /// Σ (done − sent) in ns, of every interval (saturated at the int64 maximum).
    std::int64_t busyNs() const { return m_busyNs; }
    std::size_t intervals() const { return m_events.size() / 2; }
    std::size_t heapBytes() const
    {
        return m_events.capacity() * sizeof(std::int64_t) +
               (m_peakPerSecond.capacity() + m_atSecondStart.capacity()) * sizeof(int);
    }

private:
    void sweep() const;

    // Events as time·2 + 1 for a start, time·2 for an end: sorting the keys orders by time and, at
    // one instant, ends before starts, so back-to-back requests do not count as overlapping.
    mutable std::vector<std::int64_t> m_events;
    mutable std::size_t m_sorted = 0; ///< m_events[0, m_sorted) is sorted and swept
    mutable int m_peak = 0;
    mutable std::vector<int> m_peakPerSecond;
    mutable std::vector<int> m_atSecondStart; ///< in flight as each second began
    std::int64_t m_busyNs = 0;
};

} // namespace tb
