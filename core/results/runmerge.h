#pragma once

#include <QString>
#include <QStringList>

namespace tb {

/// Makes one run of the run directories of a sharded run (`tokenbench-cli merge`): an ordinary run
/// directory whose run.json lists the shards under "merged_from".
///
/// Exact by construction: the shards' requests (requests.csv and chunks.jsonl) are moved onto one
/// time base — each shard's offsets shifted by its wall-clock origin minus the earliest one, in
/// whole microseconds, the resolution of the files — and aggregated again as one run, so every
/// count, token sum and histogram bucket is what a single process measuring all the requests would
/// have written; the time series are aligned on wall-clock seconds, and the peak in flight comes
/// from the union of the [sent, done] intervals. requests.csv gains a last column, shard.
///
/// Refused, with a message naming the directories: a directory that is no shard, shards of
/// different runs (their configurations differ beyond the share of the load and the output
/// directory), two directories with one shard index or one request id, and missing shards.
class RunMerger
{
public:
    /// Writes the merged run into `outDir`, which must not hold a run yet. False with *error;
    /// *refused tells shards that cannot be merged — missing or damaged directories, or shards that
    /// do not make one run (a usage error) — from a merged run that could not be written.
    /// *notes gets what reading the shards noted ("DIR: requests.csv: the last row was cut short…"),
    /// also kept in the merged summary's warnings.
    static bool merge(const QStringList &shardDirectories, const QString &outDir, QString *error,
                      bool *refused = nullptr, QStringList *notes = nullptr);
    /// "merged from N shards (a, b, …)", shown in the run header of the GUI, compare and report.
    static QString mergedNote(const QStringList &mergedFrom);
};

} // namespace tb
