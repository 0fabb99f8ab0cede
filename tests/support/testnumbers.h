#pragma once

// Small arithmetic the tests share: record times from milliseconds, the middle of measurements,
// numbers equal within a relative tolerance.

#include <QTest>

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

/// Within `relative` of expected (of 1 when |expected| < 1); ±∞ only equals itself, NaN only NaN.
inline bool near(double actual, double expected, double relative = 1e-9)
{
    if (std::isinf(expected) || std::isnan(expected))
        return std::isinf(expected) ? actual == expected : std::isnan(actual);
    return std::abs(actual - expected) <= relative * std::max(1.0, std::abs(expected));
}

} // namespace tb::test

/// QCOMPARE for doubles within a relative tolerance (tb::test::near), saying both numbers on failure.
#define COMPARE_NEAR(actual, expected, relative)                                                                       \
    QVERIFY2(tb::test::near((actual), (expected), (relative)), qPrintable(QStringLiteral("%1 = %2, expected %3")       \
                                                                              .arg(QLatin1String(#actual))             \
                                                                              .arg(actual, 0, 'g', 12)                 \
                                                                              .arg(expected, 0, 'g', 12)))
