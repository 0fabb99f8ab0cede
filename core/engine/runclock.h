#pragma once

#include <chrono>
#include <cstdint>

namespace tb {

/// The run's monotonic time base (SPEC §2): nanoseconds since the run started, on steady_clock.
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

} // namespace tb
