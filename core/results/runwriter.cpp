#include "results/runwriter.h"

#include "results/runfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

namespace tb {

namespace {

// Big enough to keep system calls rare at thousands of requests per second, small enough that a
// flush never stalls the orchestrator noticeably.
constexpr std::size_t kFlushBytes = 256 * 1024;

} // namespace

RunWriter::~RunWriter()
{
    flush();
}

bool RunWriter::fail(const QString &what)
{
    if (m_error.isEmpty())
        m_error = what;
    return false;
}

bool RunWriter::open(const QString &directory, const RunInfo &info)
{
    m_directory = directory;
    m_info = info;
    const QDir dir(directory);
    for (const char *name : {runfiles::kRequestsCsv, runfiles::kSummaryJson}) {
        if (dir.exists(QLatin1String(name)))
            return fail(QStringLiteral("%1 already holds a run (%2); choose another directory")
                            .arg(QDir::toNativeSeparators(directory), QLatin1String(name)));
    }
    if (!QDir().mkpath(directory))
        return fail(QStringLiteral("cannot create the run directory %1").arg(QDir::toNativeSeparators(directory)));
    if (!writeWhole(runfiles::kRunJson, runfiles::runInfoToJson(info).dump(2) + "\n"))
        return false;

    m_requests.setFileName(dir.filePath(QLatin1String(runfiles::kRequestsCsv)));
    m_chunks.setFileName(dir.filePath(QLatin1String(runfiles::kChunksJsonl)));
    // Unbuffered: the writer keeps its own buffer, so flush() is one write() per file.
    for (QFile *file : {&m_requests, &m_chunks}) {
        if (!file->open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered))
            return fail(QStringLiteral("cannot create %1: %2")
                            .arg(QDir::toNativeSeparators(file->fileName()), file->errorString()));
    }
    m_requestsBuffer = runfiles::requestsCsvHeader(info);
    m_lastFlush = std::chrono::steady_clock::now();
    return flush();
}

bool RunWriter::append(const RequestRecord &record)
{
    if (!m_error.isEmpty() || !isOpen())
        return false;
    runfiles::appendRequestRow(m_requestsBuffer, record, m_info);
    runfiles::appendChunksLine(m_chunksBuffer, record);
    if (m_requestsBuffer.size() + m_chunksBuffer.size() >= kFlushBytes ||
        std::chrono::steady_clock::now() - m_lastFlush >= std::chrono::seconds(1))
        return flush();
    return true;
}

bool RunWriter::writeAll(QFile &file, std::string &buffer)
{
    if (buffer.empty())
        return true;
    const qint64 written = file.write(buffer.data(), qint64(buffer.size()));
    if (written != qint64(buffer.size())) {
        return fail(QStringLiteral("cannot write %1: %2")
                        .arg(QDir::toNativeSeparators(file.fileName()),
                             file.errorString().isEmpty() ? QStringLiteral("short write") : file.errorString()));
    }
    buffer.clear();
    return true;
}

bool RunWriter::flush()
{
    if (!isOpen())
        return m_error.isEmpty();
    m_lastFlush = std::chrono::steady_clock::now();
    // Requests first: a chunk line never refers to a request that a crash could lose.
    return writeAll(m_requests, m_requestsBuffer) && writeAll(m_chunks, m_chunksBuffer) && m_error.isEmpty();
}

bool RunWriter::writeWhole(const char *name, const std::string &content)
{
    QSaveFile file(QDir(m_directory).filePath(QLatin1String(name)));
    if (!file.open(QIODevice::WriteOnly))
        return fail(
            QStringLiteral("cannot create %1: %2").arg(QDir::toNativeSeparators(file.fileName()), file.errorString()));
    file.write(content.data(), qint64(content.size()));
    if (!file.commit())
        return fail(
            QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(file.fileName()), file.errorString()));
    return true;
}

bool RunWriter::finish(const RunSummary &summary, const std::vector<TimeSeriesRow> &timeSeries)
{
    const bool flushed = flush();
    m_requests.close();
    m_chunks.close();
    if (m_directory.isEmpty())
        return fail(QStringLiteral("no run directory was opened"));
    // Written even after an earlier error: a summary of what was measured is still worth having.
    const bool series = writeWhole(runfiles::kTimeSeriesCsv, runfiles::timeSeriesCsv(timeSeries, m_info.stages));
    const bool written = writeWhole(runfiles::kSummaryJson, summary.toJson().dump(2) + "\n");
    return flushed && series && written && m_error.isEmpty();
}

QString RunWriter::fileSafeName(const QString &name)
{
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]+"));
    QString safe = name;
    safe.replace(unsafe, QStringLiteral("_"));
    return safe;
}

QString RunWriter::unusedPath(const QString &folder, const QString &stem)
{
    const QDir dir(folder.isEmpty() ? QStringLiteral(".") : folder);
    QString path = dir.filePath(stem);
    for (int n = 2; QFileInfo::exists(path); ++n)
        path = dir.filePath(QStringLiteral("%1-%2").arg(stem).arg(n));
    return path;
}

QString RunWriter::defaultDirectory(const RunConfig &config, const QDateTime &startedAt, const QString &folder)
{
    // The model, not the target's display name: "<time>-gpt-4o" says more than "<time>-My_server".
    const QString model = fileSafeName(config.target.model.trimmed());
    const QString stamp = startedAt.toString(QStringLiteral("yyyyMMdd-HHmmss"));
    return unusedPath(folder, model.isEmpty() ? stamp : stamp + QLatin1Char('-') + model);
}

} // namespace tb
