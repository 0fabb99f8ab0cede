#pragma once

#include "metrics/loghistogram.h"

#include <algorithm>
#include <limits>
#include <vector>

namespace tb {

/// The exact nearest-rank percentile of `values` (reordered in place): the value
/// LogHistogram::percentile() approximates, the ⌈q·n⌉-th smallest. With q = 0.5 it is the one median
/// of the project — of an even count the lower middle value, never the mean of the two
/// (docs/metrics.md "Statistics"). NaN when empty.
template<typename T> double exactPercentile(std::vector<T> &values, double q)
{
    if (values.empty())
        return std::numeric_limits<double>::quiet_NaN();
    const auto k = values.begin() + std::ptrdiff_t(LogHistogram::nearestRank(q, values.size()) - 1);
    std::nth_element(values.begin(), k, values.end());
    return double(*k);
}

} // namespace tb
