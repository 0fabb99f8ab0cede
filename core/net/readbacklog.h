#pragma once

// How far reading lags the network on the native transport (docs/metrics.md "Client health"): per read,
// the time from the kernel's receive stamp of the bytes taken to the read itself, weighted by the
// bytes read. Recorded per thread without atomics or allocation (a read costs a bit count and two
// additions); the thread's own probe (ClientHealthMonitor) takes the tally every 100 ms.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace tb {

class ReadBacklog
{
public:
    /// Four buckets per power of two of µs: bucket b ≥ 4 holds [lower(b), lower(b + 1)), a value
    /// within 25% of its bucket's bounds; the last bucket holds everything from lowerUs(kBuckets − 1)
    /// (about 4 hours) on.
    static constexpr int kSubBits = 2;
    static constexpr int kBuckets = (33 << kSubBits);

    struct Tally {
        std::array<std::int64_t, kBuckets> bytes{};
        std::int64_t maxUs = 0;
        std::int64_t reads = 0;

        void merge(const Tally &other);
        bool isEmpty() const { return reads == 0; }
        /// The lag (ms) below which fraction q of the bytes were read: the upper bound of the bucket
        /// holding that byte, capped at the largest lag seen. 0 when empty.
        double percentileMs(double q) const;
    };

    /// On the reading thread: `lagNs` from the kernel's stamp to the read, for `bytes` read.
    static void record(std::int64_t lagNs, std::size_t bytes)
    {
        const std::int64_t us = lagNs > 0 ? lagNs / 1000 : 0;
        Tally &t = s_local;
        t.bytes[std::size_t(bucketOf(us))] += std::int64_t(bytes);
        t.maxUs = us > t.maxUs ? us : t.maxUs;
        ++t.reads;
    }
    /// This thread's tally since the last take().
    static Tally take();

    static int bucketOf(std::int64_t us)
    {
        const auto u = std::uint64_t(us);
        if (u < (1u << kSubBits))
            return int(u);
        const int width = std::bit_width(u); // > kSubBits
        const int sub = int((u >> (width - 1 - kSubBits)) & ((1u << kSubBits) - 1));
        const int b = ((width - kSubBits) << kSubBits) + sub;
        return b < kBuckets ? b : kBuckets - 1;
    }
    /// The smallest µs value of bucket b.
    static std::int64_t lowerUs(int b);

private:
    static thread_local Tally s_local;
};

} // namespace tb
