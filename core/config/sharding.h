#pragma once

// Sharded runs: N processes (e.g. the pods of a Kubernetes Indexed Job) each run a share of one
// load, and `tokenbench-cli merge` makes one run of their directories.

#include "config/runconfig.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace tb {

/// Which share of a run this process makes: shard `index` of `count` (0 ≤ index < count).
struct ShardSpec {
    static constexpr int kMaxCount = 10000; ///< more pods than any cluster runs for one load

    int index = 0;
    int count = 1;

    bool isSharded() const { return count > 1; }
    /// "K/N", e.g. "0/3".
    QString text() const { return QStringLiteral("%1/%2").arg(index).arg(count); }
    /// "K/N" with 0 ≤ K < N ≤ kMaxCount; nullopt with *error saying what is accepted.
    static std::optional<ShardSpec> parse(const QString &text, QString *error);
    bool operator==(const ShardSpec &) const = default;
};

/// `total` split exactly: each integer quantity (users, request counts, warm-up requests, the
/// in-flight cap) gives shard k floor(q/N) + (k < q mod N), so the shares add up to q; rates are
/// q/N; durations and everything else are unchanged. Stage names stay those of the whole run, so
/// the shards' stages line up. nullopt with *error when a share would be empty (fewer users or
/// requests than shards), which would make a shard that does nothing.
std::optional<LoadConfig> shardLoad(const LoadConfig &total, ShardSpec shard, QString *error);

/// floor(q/N) + (k < q mod N).
std::int64_t shardShare(std::int64_t quantity, ShardSpec shard);

/// The id of a shard's n-th request (n from 1): requests interleave across shards, (n−1)·N + k + 1,
/// so ids — and the prompts chosen by them — never repeat between shards, and a whole run's
/// prompts are spread over the shards as one process would send them.
inline std::uint64_t shardRequestId(std::uint64_t ordinal, ShardSpec shard)
{
    return (ordinal - 1) * std::uint64_t(shard.count) + std::uint64_t(shard.index) + 1;
}

/// The seed of a shard's arrivals and load balancing: the run's seed for an unsharded run, else one
/// derived from it and the index, so shards' Poisson arrivals are independent, not in lock-step.
std::uint64_t shardArrivalSeed(std::uint64_t seed, ShardSpec shard);

} // namespace tb
