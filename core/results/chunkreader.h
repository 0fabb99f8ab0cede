#pragma once

#include "metrics/requestrecord.h"
#include "threads/backgroundjobs.h"

#include <QFile>
#include <QHash>
#include <QMutex>
#include <QObject>

#include <optional>
#include <vector>

namespace tb {

/// Reads one request's chunk timeline from a run directory's chunks.jsonl, on demand: the requests
/// table keeps records without their chunk stamps, and a run of 100 000 streamed requests has a
/// chunks.jsonl of a hundred megabytes or more. The reader remembers where each request's line
/// starts, so it reads the file once, and during a live run only what was appended since.
class ChunkReader : public QObject
{
    Q_OBJECT

public:
    explicit ChunkReader(QObject *parent = nullptr);
    /// Waits for a lookup in progress.
    ~ChunkReader() override;

    /// Looks `id` up on a worker thread; loaded() or failed() follows on this object's thread.
    void request(const QString &directory, std::uint64_t id);
    /// The lookup itself (thread-safe). std::nullopt with *error when the run has no timeline for
    /// the request (not streamed, no tokens, not written yet) or the file is unreadable.
    std::optional<std::vector<ChunkStamp>> read(const QString &directory, std::uint64_t id, QString *error);

Q_SIGNALS:
    void loaded(quint64 id, const std::vector<tb::ChunkStamp> &chunks);
    void failed(quint64 id, const QString &error);

private:
    /// Indexes complete lines from m_scanned on, until `id` is found or the file ends.
    void scan(QFile &file, std::uint64_t id);

    QMutex m_mutex;
    QString m_directory;
    qint64 m_scanned = 0;
    QHash<quint64, qint64> m_offsets;
    BackgroundJobs m_jobs{this}; ///< last: its jobs use the members above
};

} // namespace tb

Q_DECLARE_METATYPE(std::vector<tb::ChunkStamp>)
