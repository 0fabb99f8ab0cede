#pragma once

// Small arithmetic the tests share: record times from milliseconds, the middle of measurements.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace tb::test {

/// Milliseconds as the whole nanoseconds a RequestRecord keeps.
inline std::int64_t ns(double ms)
{
    return std::llround(ms * 1e6);
}

/// The value at fraction p of the sorted values (p = 0.5: the upper median); -1 for no values.
inline double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

/// The upper median (the middle value, of an even count the higher one); -1 for no values.
inline double median(std::vector<double> v)
{
    return percentile(std::move(v), 0.5);
}

} // namespace tb::test
