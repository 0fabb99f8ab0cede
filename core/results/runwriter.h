#pragma once

#include "metrics/requestrecord.h"
#include "metrics/runinfo.h"
#include "metrics/runsummary.h"
#include "metrics/timeseriesrow.h"

#include <QFile>
#include <QString>

#include <chrono>
#include <string>
#include <vector>

namespace tb {

/// Writes a run directory (SPEC §4; formats in results/runfiles.h) as the run goes:
///   open()    creates the directory, writes run.json, starts requests.csv and chunks.jsonl;
///   append()  adds a record's rows (buffered);
///   flush()   hands everything appended to the operating system, so a crash of the process or a
///             Stop loses nothing measured — call it after each batch of records; append() also
///             flushes by itself once a second has passed since the last flush;
///   finish()  writes summary.json and timeseries.csv (atomically) and closes the files.
/// Problems (unwritable directory, disk full) make the calls return false and errorString() say
/// what and where; the writer never throws or crashes, and later calls keep returning false.
/// Not thread-safe: the orchestrator uses it from its one thread.
class RunWriter
{
public:
    RunWriter() = default;
    /// Flushes what was appended (the run directory stays loadable without summary.json).
    ~RunWriter();
    RunWriter(const RunWriter &) = delete;
    RunWriter &operator=(const RunWriter &) = delete;

    /// `directory` is created with its parents; one that already holds a run is refused.
    bool open(const QString &directory, const RunInfo &info);
    bool append(const RequestRecord &record);
    bool flush();
    bool finish(const RunSummary &summary, const std::vector<TimeSeriesRow> &timeSeries);

    bool isOpen() const { return m_requests.isOpen(); }
    QString directory() const { return m_directory; }
    QString errorString() const { return m_error; }

    /// "<folder>/<yyyyMMdd-HHmmss>-<model>" (SPEC §1 --out default: folder "runs"), the model name
    /// made file-safe; "-2", "-3"… appended when the name is taken (two runs in one second).
    static QString defaultDirectory(const RunConfig &config, const QDateTime &startedAt,
                                    const QString &folder = QStringLiteral("runs"));
    /// `stem` in `folder`, or the first of stem-2, stem-3… that does not exist yet.
    static QString unusedPath(const QString &folder, const QString &stem);
    /// Letters, digits, '.', '_' and '-' kept; every other run of characters becomes '_'.
    static QString fileSafeName(const QString &name);

private:
    bool fail(const QString &what);
    bool writeAll(QFile &file, std::string &buffer);
    bool writeWhole(const char *name, const std::string &content);

    QString m_directory;
    RunInfo m_info;
    QFile m_requests;
    QFile m_chunks;
    std::string m_requestsBuffer;
    std::string m_chunksBuffer;
    std::chrono::steady_clock::time_point m_lastFlush;
    QString m_error;
};

} // namespace tb
