#include "net/readbacklog.h"

#include "metrics/loghistogram.h"

#include <algorithm>
#include <utility>

namespace tb {

thread_local ReadBacklog::Tally ReadBacklog::s_local;

ReadBacklog::Tally ReadBacklog::take()
{
    return std::exchange(s_local, Tally{});
}

std::int64_t ReadBacklog::lowerUs(int b)
{
    if (b < (1 << kSubBits))
        return b;
    const int width = (b >> kSubBits) + kSubBits;
    const int sub = b & ((1 << kSubBits) - 1);
    return std::int64_t((std::uint64_t(1) << (width - 1)) | (std::uint64_t(sub) << (width - 1 - kSubBits)));
}

void ReadBacklog::Tally::merge(const Tally &other)
{
    for (std::size_t i = 0; i < bytes.size(); ++i)
        bytes[i] += other.bytes[i];
    maxUs = std::max(maxUs, other.maxUs);
    reads += other.reads;
}

double ReadBacklog::Tally::percentileMs(double q) const
{
    std::int64_t total = 0;
    for (const std::int64_t b : bytes)
        total += b;
    if (total == 0)
        return 0;
    const auto rank = std::int64_t(LogHistogram::nearestRank(q, std::uint64_t(total)));
    std::int64_t seen = 0;
    for (int b = 0; b < kBuckets; ++b) {
        seen += bytes[std::size_t(b)];
        if (seen >= rank) {
            const std::int64_t upper = b + 1 < kBuckets ? lowerUs(b + 1) - 1 : maxUs;
            return double(std::min(upper, maxUs)) / 1e3;
        }
    }
    return double(maxUs) / 1e3;
}

} // namespace tb
