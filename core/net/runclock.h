#pragma once

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdint>

namespace tb {

/// The run's monotonic time base (docs/SPEC.md §2): nanoseconds since the run started, on steady_clock.
/// Copied by value into every thread; all copies agree.
class RunClock
{
public:
    using Clock = std::chrono::steady_clock;

    RunClock()
        : m_origin(Clock::now())
    {}
    explicit RunClock(Clock::time_point origin)
        : m_origin(origin)
    {}

    std::int64_t nowNs() const { return toNs(Clock::now()); }
    std::int64_t toNs(Clock::time_point t) const
    {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(t - m_origin).count();
    }
    Clock::time_point at(std::int64_t ns) const { return m_origin + std::chrono::nanoseconds(ns); }
    Clock::time_point origin() const { return m_origin; }

private:
    Clock::time_point m_origin;
};

/// A wait as a Qt timer's interval: whole milliseconds rounded up (a timer that fires early finds
/// nothing due and spins through the event loop), at most INT_MAX (24.8 days; Qt's
/// std::chrono overloads cast to int, so a longer one wraps). A handler whose time has not come
/// yet arms the timer again.
inline int timerIntervalMs(std::int64_t waitNs)
{
    if (waitNs <= 0)
        return 0;
    return int(std::min<std::int64_t>(waitNs / 1'000'000 + (waitNs % 1'000'000 != 0), INT_MAX));
}

} // namespace tb
