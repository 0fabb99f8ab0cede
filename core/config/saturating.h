#pragma once

// Integer arithmetic on numbers that came from outside (a flag, a file, a server) or were computed
// from them: converting a double that does not fit an integer type, or overflowing a signed sum,
// is undefined behaviour; these clamp to the range instead (docs/user-guide.md "Limits").

#include <cmath>
#include <cstdint>
#include <limits>

namespace tb {

/// `value` rounded to the nearest integer and clamped to [lo, hi]. NaN gives `hi`: a time or a
/// size that is not a number is taken as "never" or "too large", never as 0 (which would make a
/// loop of it).
inline std::int64_t saturatingRound(double value, std::int64_t lo = std::numeric_limits<std::int64_t>::min(),
                                    std::int64_t hi = std::numeric_limits<std::int64_t>::max())
{
    // 2^63 is the first double above the int64 range; below it llround is defined.
    constexpr double kTwoTo63 = 9223372036854775808.0;
    if (!(value < kTwoTo63))
        return hi;
    if (value < -kTwoTo63)
        return lo;
    const std::int64_t rounded = std::llround(value);
    return rounded < lo ? lo : rounded > hi ? hi : rounded;
}

/// a + b, clamped to the int64 range.
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b)
{
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return sum;
}

} // namespace tb
