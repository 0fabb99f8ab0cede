#pragma once

// Small arithmetic the tests share: record times from milliseconds, the middle of measurements.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tb::test {

/// Milliseconds as the whole nanoseconds a RequestRecord keeps.
inline std::int64_t ns(double ms)
{
    return std::llround(ms * 1e6);
}

/// The upper median (the middle value, of an even count the higher one); -1 for no values.
inline double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace tb::test
