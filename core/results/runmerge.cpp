#include "results/runmerge.h"

#include "metrics/runaggregator.h"
#include "results/rundirectory.h"
#include "results/runfiles.h"
#include "results/runwriter.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <map>
#include <unordered_map>

namespace tb {

namespace {

using json = nlohmann::json;

/// The configuration every shard of one run shares: its own, with the whole run's load in place of
/// its share and without the output directory.
json sharedConfig(const RunInfo &info)
{
    json config = toJson(info.config);
    RunConfig whole;
    whole.load = info.totalLoad;
    config["load"] = toJson(whole)["load"];
    config.erase("out");
    return config;
}

/// The first key path where two JSON values differ ("target.model"), or empty.
QString firstDifference(const json &a, const json &b, const QString &path = {})
{
    if (a.is_object() && b.is_object()) {
        for (auto it = a.begin(); it != a.end(); ++it) {
            QString key = path.isEmpty() ? fromStd(it.key()) : path + QLatin1Char('.') + fromStd(it.key());
            const auto other = b.find(it.key());
            if (other == b.end())
                return key;
            if (QString d = firstDifference(*it, *other, key); !d.isEmpty())
                return d;
        }
        for (auto it = b.begin(); it != b.end(); ++it) {
            if (!a.contains(it.key()))
                return path.isEmpty() ? fromStd(it.key()) : path + QLatin1Char('.') + fromStd(it.key());
        }
        return {};
    }
    return a == b ? QString() : (path.isEmpty() ? QStringLiteral("(the whole configuration)") : path);
}

QString shown(const json &config, const QString &path)
{
    const json *at = &config;
    for (const QString &key : path.split(QLatin1Char('.'))) {
        if (!at->is_object() || !at->contains(toStd(key)))
            return QStringLiteral("(absent)");
        at = &(*at)[toStd(key)];
    }
    return fromStd(at->dump()).left(80);
}

void shift(std::int64_t &ns, std::int64_t by)
{
    if (ns >= 0)
        ns += by;
}

} // namespace

QString RunMerger::mergedNote(const QStringList &mergedFrom)
{
    QStringList names;
    for (const QString &directory : mergedFrom)
        names << QFileInfo(QDir::cleanPath(directory)).fileName();
    return QStringLiteral("merged from %1 shards (%2)").arg(mergedFrom.size()).arg(names.join(QStringLiteral(", ")));
}

bool RunMerger::merge(const QStringList &shardDirectories, const QString &outDir, QString *error, bool *refused,
                      QStringList *notes)
{
    if (refused)
        *refused = false;
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    const auto refuse = [&](const QString &why) {
        if (refused)
            *refused = true;
        return fail(why);
    };
    const auto name = [](const QString &directory) { return QDir::toNativeSeparators(directory); };
    if (shardDirectories.isEmpty())
        return refuse(QStringLiteral("no shard directories to merge"));

    std::vector<RunData> shards;
    QStringList shardNotes;
    for (const QString &directory : shardDirectories) {
        QString why;
        auto data = RunReader::load(directory, &why, RunReader::Chunks);
        if (!data) // what compare and report refuse as well
            return refuse(why);
        shardNotes << data->directoryNotes();
        if (!data->hasInfo || !data->info.shard.isSharded())
            return refuse(
                QStringLiteral("%1: not a shard (its run.json has no \"shard\" block; shards are runs made with "
                               "--shard K/N or --shards N)")
                    .arg(name(directory)));
        if (data->info.wallOriginNs <= 0)
            return refuse(
                QStringLiteral("%1: run.json has no clock origins, so it cannot be aligned with the other shards")
                    .arg(name(directory)));
        shards.push_back(std::move(*data));
    }

    // One run: the same configuration, count and stages; each index once.
    const RunData &first = shards.front();
    const json config = sharedConfig(first.info);
    std::map<int, const RunData *> byIndex;
    for (const RunData &shard : shards) {
        const ShardSpec spec = shard.info.shard;
        if (spec.count != first.info.shard.count)
            return refuse(QStringLiteral("%1 and %2 are shards of different runs: %3 shards versus %4")
                              .arg(name(first.directory), name(shard.directory))
                              .arg(first.info.shard.count)
                              .arg(spec.count));
        const json other = sharedConfig(shard.info);
        if (const QString path = firstDifference(config, other); !path.isEmpty())
            return refuse(
                QStringLiteral("%1 and %2 are shards of different runs: config.%3 differs (%4 versus %5)")
                    .arg(name(first.directory), name(shard.directory), path, shown(config, path), shown(other, path)));
        if (const auto [at, added] = byIndex.emplace(spec.index, &shard); !added)
            return refuse(QStringLiteral("%1 and %2 are both shard %3 (overlapping shard indices)")
                              .arg(name(at->second->directory), name(shard.directory), spec.text()));
    }
    QStringList missing;
    for (int k = 0; k < first.info.shard.count; ++k) {
        if (!byIndex.count(k))
            missing << QString::number(k);
    }
    if (!missing.isEmpty())
        return refuse(QStringLiteral("shards %1 of %2 are missing (given: %3); merge all the shards of the run")
                          .arg(missing.join(QStringLiteral(", ")))
                          .arg(first.info.shard.count)
                          .arg(shardDirectories.join(QStringLiteral(", "))));

    // t = 0 of the merged run: the earliest shard's origin. Shifts in whole µs keep every offset
    // exactly representable in requests.csv (3 decimals of ms) and chunks.jsonl (µs).
    const auto zero = std::min_element(shards.begin(), shards.end(), [](const RunData &a, const RunData &b) {
        return a.info.wallOriginNs < b.info.wallOriginNs;
    });
    RunInfo info = zero->info;
    info.config.load = first.info.totalLoad;
    info.config.outDir = outDir;
    info.stages = effectiveStages(info.config.load);
    info.shard = {};
    info.totalLoad = {};
    info.startedAt = QDateTime::fromMSecsSinceEpoch(info.wallOriginNs / 1'000'000);
    QStringList hosts;
    QList<IoInfo> backends;
    for (const auto &[index, shard] : byIndex) {
        info.mergedFrom << QFileInfo(shard->directory).absoluteFilePath();
        if (!hosts.contains(shard->info.host))
            hosts << shard->info.host;
        backends << shard->info.io;
    }
    info.host = hosts.join(QStringLiteral(", "));
    info.io = IoInfo::merged(backends);
    // The merged figures are only as exact as the least exact shard's chunk times: said where they differ.
    if (info.io.recorded() && std::any_of(backends.begin(), backends.end(), [&backends](const IoInfo &io) {
            return io.backend != backends.first().backend ||
                   io.kernelReceiveStamps != backends.first().kernelReceiveStamps;
        })) {
        QStringList each;
        for (const auto &[index, shard] : byIndex)
            each << QStringLiteral("shard %1: %2").arg(index).arg(shard->info.io.text());
        shardNotes << QStringLiteral("the shards were measured on different I/O backends; the chunk times of those "
                                     "without kernel receive stamps include the client's own read delay (%1)")
                          .arg(each.join(QStringLiteral("; ")));
    }

    std::vector<RequestRecord> records;
    std::unordered_map<std::uint64_t, const RunData *> ids;
    for (RunData &shard : shards) {
        const std::int64_t by = (shard.info.wallOriginNs - info.wallOriginNs) / 1000 * 1000;
        for (RequestRecord &r : shard.records) {
            if (const auto [at, added] = ids.emplace(r.id, &shard); !added)
                return refuse(QStringLiteral("%1 and %2 both hold request id %3 (overlapping ids)")
                                  .arg(name(at->second->directory), name(shard.directory))
                                  .arg(r.id));
            for (std::int64_t *t : {&r.scheduledNs, &r.sentNs, &r.headersNs, &r.firstTokenNs, &r.firstContentNs,
                                    &r.firstToolCallNs, &r.lastTokenNs, &r.doneNs})
                shift(*t, by);
            for (ChunkStamp &c : r.tokenChunks)
                shift(c.tNs, by);
            r.shard = shard.info.shard.index;
            records.push_back(std::move(r));
        }
    }
    // In completion order, as a live run writes them.
    std::sort(records.begin(), records.end(), [](const RequestRecord &a, const RequestRecord &b) {
        return a.doneNs != b.doneNs ? a.doneNs < b.doneNs : a.id < b.id;
    });

    RunAggregator aggregator(info);
    RunWriter writer;
    if (!writer.open(outDir, info))
        return fail(writer.errorString());
    for (const RequestRecord &r : records) {
        aggregator.add(r);
        if (!writer.append(r))
            return fail(writer.errorString());
    }
    RunSummary summary = aggregator.summary();
    summary.warnings << shardNotes;
    if (notes)
        *notes = shardNotes;
    if (!writer.finish(summary, aggregator.timeSeries()))
        return fail(writer.errorString());
    return true;
}

} // namespace tb
