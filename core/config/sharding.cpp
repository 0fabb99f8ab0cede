#include "config/sharding.h"

#include "config/saturating.h"

namespace tb {

std::optional<ShardSpec> ShardSpec::parse(const QString &text, QString *error)
{
    const QStringList parts = text.split(QLatin1Char('/'));
    bool okIndex = false;
    bool okCount = false;
    ShardSpec shard;
    if (parts.size() == 2) {
        shard.index = parts[0].trimmed().toInt(&okIndex);
        shard.count = parts[1].trimmed().toInt(&okCount);
    }
    if (!okIndex || !okCount || shard.count < 1 || shard.count > kMaxCount || shard.index < 0 ||
        shard.index >= shard.count) {
        if (error)
            *error = QStringLiteral("'%1' is not K/N with 0 ≤ K < N ≤ %2 (e.g. 0/3 for the first of three shards)")
                         .arg(text.left(40))
                         .arg(kMaxCount);
        return std::nullopt;
    }
    return shard;
}

std::int64_t shardShare(std::int64_t quantity, ShardSpec shard)
{
    return quantity / shard.count + (shard.index < quantity % shard.count ? 1 : 0);
}

std::optional<LoadConfig> shardLoad(const LoadConfig &total, ShardSpec shard, QString *error)
{
    if (!shard.isSharded())
        return total;
    const auto empty = [&](const QString &what) -> std::optional<LoadConfig> {
        if (error)
            *error = QStringLiteral("%1 split over %2 shards leaves shard %3 with none; use at most as many shards")
                         .arg(what)
                         .arg(shard.count)
                         .arg(shard.index);
        return std::nullopt;
    };
    LoadConfig share = total;
    // The stages as the whole run executes them (names, default request counts), each split.
    // (A trace is one stage of its own, split by the entries' ids: nothing to split here.)
    if (total.trace.isEmpty())
        share.stages = effectiveStages(total);
    for (StageConfig &stage : share.stages) {
        if (stage.mode == LoadMode::Concurrency) {
            stage.level = double(shardShare(saturatingRound(stage.level), shard));
            if (stage.level < 1)
                return empty(QStringLiteral("stage %1: its users").arg(stage.name));
        } else {
            stage.level /= shard.count;
        }
        if (stage.requests > 0) {
            stage.requests = shardShare(stage.requests, shard);
            if (stage.requests < 1)
                return empty(QStringLiteral("stage %1: its requests").arg(stage.name));
        }
    }
    share.concurrency = int(shardShare(total.concurrency, shard));
    share.rate = total.rate / shard.count;
    share.requests = shardShare(total.requests, shard);
    share.warmupRequests = shardShare(total.warmupRequests, shard);
    if (total.maxInFlight > 0) {
        share.maxInFlight = int(shardShare(total.maxInFlight, shard));
        if (share.maxInFlight < 1)
            return empty(QStringLiteral("load.max_in_flight (--max-in-flight)"));
    }
    return share;
}

std::uint64_t shardArrivalSeed(std::uint64_t seed, ShardSpec shard)
{
    if (!shard.isSharded())
        return seed;
    // splitmix64 of (seed, index): neighbouring indices give unrelated streams.
    std::uint64_t z = seed ^ (std::uint64_t(shard.index + 1) * 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

} // namespace tb
