#include "platform/iobackend.h"

#include <chrono>
#include <limits>

namespace tb {

qint64 steadyClockResolutionNs()
{
    static const qint64 resolution = [] {
        using Clock = std::chrono::steady_clock;
        qint64 smallest = std::numeric_limits<qint64>::max();
        // A few hundred readings see the clock step many times, wherever its step is below ~1 µs.
        Clock::time_point previous = Clock::now();
        for (int i = 0; i < 1000; ++i) {
            const Clock::time_point now = Clock::now();
            const qint64 step = std::chrono::duration_cast<std::chrono::nanoseconds>(now - previous).count();
            if (step > 0)
                smallest = std::min(smallest, step);
            previous = now;
        }
        return smallest == std::numeric_limits<qint64>::max() ? qint64(0) : smallest;
    }();
    return resolution;
}

} // namespace tb
