#pragma once

#include "metrics/requestrecord.h"
#include "metrics/runinfo.h"
#include "metrics/runsummary.h"
#include "metrics/timeseriesrow.h"

#include <QFile>
#include <QString>

#include <string>
#include <vector>

namespace tb {

/// Writes a run directory (docs/SPEC.md §4; formats in results/runfiles.h) as the run goes:
///   open()    creates the directory, writes run.json, starts requests.csv and chunks.jsonl (and
///             outputs.jsonl with quality.save_outputs);
///   append()  hands a record's rows to the operating system at once (one write(2) to each file,
///             no buffering in the process), so a process killed at any moment loses no request
///             that finished; what the kernel holds survives the process (a power cut can still
///             lose what it had not yet written to the disk: nothing is fsync'ed per record);
///   finish()  writes summary.json and timeseries.csv and closes the files.
/// run.json, summary.json and timeseries.csv go to a temporary name and are renamed into place:
/// after a crash or on a full disk each is whole or absent, never empty or cut short (readers
/// recompute the last two from requests.csv). Problems (unwritable directory, disk full) make the calls return false
/// and errorString() say what, where and the system's reason ("No space left on device"); the writer never throws or
/// crashes, and later calls keep returning false. After a failed write the last row of requests.csv may be cut short;
/// readers leave such a row out. Not thread-safe: the orchestrator uses it from its one thread.
class RunWriter
{
public:
    RunWriter() = default;
    RunWriter(const RunWriter &) = delete;
    RunWriter &operator=(const RunWriter &) = delete;

    /// `directory` is created with its parents. One that is not empty is refused (see occupied())
    /// unless `replace`: then the run's files in it are replaced and others are left alone.
    bool open(const QString &directory, const RunInfo &info, bool replace = false);
    /// Before the first record: the run's t = 0 moves to `origin` (RunInfo::moveOrigin), and
    /// run.json is written again to say so.
    bool moveOrigin(std::chrono::steady_clock::time_point origin);
    bool append(const RequestRecord &record);
    bool finish(const RunSummary &summary, const std::vector<TimeSeriesRow> &timeSeries);

    bool isOpen() const { return m_requests.isOpen(); }
    QString directory() const { return m_directory; }
    QString errorString() const { return m_error; }

    /// Why `directory` cannot take a new run without replacing what is there — it is a file, or a
    /// directory that holds anything (hidden files included) — naming it and a few of its entries;
    /// empty when it does not exist or is empty.
    static QString occupied(const QString &directory);
    /// "<folder>/<yyyyMMdd-HHmmss>-<model>" (docs/SPEC.md §1 --out default: folder "runs"), the model name
    /// made file-safe; "-2", "-3"… appended when the name is taken (two runs in one second).
    static QString defaultDirectory(const RunConfig &config, const QDateTime &startedAt,
                                    const QString &folder = QStringLiteral("runs"));
    /// `stem` in `folder`, or the first of stem-2, stem-3… that does not exist yet.
    static QString unusedPath(const QString &folder, const QString &stem);
    /// Letters, digits, '.', '_' and '-' kept; every other run of characters becomes '_'.
    static QString fileSafeName(const QString &name);

private:
    bool fail(const QString &what);
    bool writeAll(QFile &file, const char *name, std::string &rows);
    bool writeWhole(const char *name, const std::string &content);

    QString m_directory;
    RunInfo m_info;
    QFile m_requests;
    QFile m_chunks;
    QFile m_outputs;            ///< open only with --save-outputs (quality.save_outputs)
    std::string m_requestsRows; ///< a record's rows on their way out (kept to reuse its memory)
    std::string m_chunksLine;
    std::string m_outputsLine;
    QString m_error;
};

} // namespace tb
