#include "results/runwriter.h"

#include "config/outputfile.h"
#include "results/runfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace tb {

namespace {

/// All of `data`, or false with the device's error set. QFileDevice reports a short write — the
/// disk filled up part-way — as a success with no error; writing the rest then fails with the
/// system's own reason (ENOSPC: "No space left on device").
bool writeFully(QFileDevice &file, std::string_view data)
{
    while (!data.empty()) {
        const qint64 written = file.write(data.data(), qint64(data.size()));
        if (written <= 0)
            return false;
        data.remove_prefix(std::size_t(written));
    }
    return true;
}

QString reason(const QFileDevice &file)
{
    return file.error() == QFileDevice::NoError ? QStringLiteral("short write") : file.errorString();
}

} // namespace

bool RunWriter::fail(const QString &what)
{
    if (m_error.isEmpty())
        m_error = what;
    return false;
}

QString RunWriter::occupied(const QString &directory)
{
    const QFileInfo info(directory);
    const QString path = QDir::toNativeSeparators(directory);
    if (!info.exists())
        return {};
    if (!info.isDir())
        return QStringLiteral("%1 is a file, not a directory").arg(path);
    const QStringList entries =
        QDir(directory).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System, QDir::Name);
    if (entries.isEmpty())
        return {};
    constexpr int kNamed = 3;
    QString held = entries.mid(0, kNamed).join(QStringLiteral(", "));
    if (entries.size() > kNamed)
        held += QStringLiteral(" and %1 more").arg(entries.size() - kNamed);
    return QStringLiteral("%1 is not empty (it holds %2)").arg(path, held);
}

bool RunWriter::open(const QString &directory, const RunInfo &info, bool replace)
{
    m_directory = directory;
    m_info = info;
    const QDir dir(directory);
    if (!replace) {
        if (const QString why = occupied(directory); !why.isEmpty())
            return fail(why);
    }
    if (!QDir().mkpath(directory))
        return fail(QStringLiteral("cannot create the run directory %1").arg(QDir::toNativeSeparators(directory)));
    // The files written at the end go now: a replacing run that never ends must not show an earlier
    // run's summary beside its own rows. The others are rewritten at once.
    // An earlier run's outputs.jsonl must not pass for this run's when this one saves none.
    for (const char *name : {runfiles::kSummaryJson, runfiles::kTimeSeriesCsv, runfiles::kOutputsJsonl}) {
        QFile file(dir.filePath(QLatin1String(name)));
        if (replace && file.exists() && !file.remove())
            return fail(QStringLiteral("cannot replace %1: %2")
                            .arg(QDir::toNativeSeparators(file.fileName()), file.errorString()));
    }
    if (!writeWhole(runfiles::kRunJson, runfiles::runInfoToJson(info).dump(2) + "\n"))
        return false;

    // Unbuffered: each write() is one write(2), so nothing waits in the process.
    for (auto [file, name] : {std::pair{&m_requests, runfiles::kRequestsCsv},
                              {&m_chunks, runfiles::kChunksJsonl},
                              {&m_outputs, runfiles::kOutputsJsonl}}) {
        if (file == &m_outputs && !info.config.quality.saveOutputs)
            continue; // generated text is written only when asked for
        const QString path = dir.filePath(QLatin1String(name));
        if (QString why; !openOutputFile(*file, path, &why))
            return fail(QStringLiteral("cannot create %1: %2").arg(QDir::toNativeSeparators(path), why));
    }
    m_requestsRows = runfiles::requestsCsvHeader(info);
    return writeAll(m_requests, runfiles::kRequestsCsv, m_requestsRows);
}

bool RunWriter::moveOrigin(std::chrono::steady_clock::time_point origin)
{
    if (!m_error.isEmpty() || !isOpen())
        return false;
    m_info.moveOrigin(origin);
    return writeWhole(runfiles::kRunJson, runfiles::runInfoToJson(m_info).dump(2) + "\n");
}

bool RunWriter::append(const RequestRecord &record)
{
    if (!m_error.isEmpty() || !isOpen())
        return false;
    runfiles::appendRequestRow(m_requestsRows, record, m_info);
    runfiles::appendChunksLine(m_chunksLine, record);
    if (m_outputs.isOpen())
        runfiles::appendOutputLine(m_outputsLine, record);
    // Requests first: a chunk line never refers to a request that a crash could lose. Two small
    // write(2)s cost a few µs; a request costs far more than that to make.
    return writeAll(m_requests, runfiles::kRequestsCsv, m_requestsRows) &&
           writeAll(m_chunks, runfiles::kChunksJsonl, m_chunksLine) &&
           (!m_outputs.isOpen() || writeAll(m_outputs, runfiles::kOutputsJsonl, m_outputsLine));
}

bool RunWriter::writeAll(QFile &file, const char *name, std::string &rows)
{
    const bool written = writeFully(file, rows);
    rows.clear();
    if (!written)
        return fail(QStringLiteral("cannot write %1: %2")
                        .arg(QDir::toNativeSeparators(QDir(m_directory).filePath(QLatin1String(name))), reason(file)));
    return true;
}

bool RunWriter::writeWhole(const char *name, const std::string &content)
{
    const QString path = QDir(m_directory).filePath(QLatin1String(name));
    if (QString why; !writeFileAtomically(path, content, &why))
        return fail(QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(path), why));
    return true;
}

bool RunWriter::finish(const RunSummary &summary, const std::vector<TimeSeriesRow> &timeSeries)
{
    m_requests.close();
    m_chunks.close();
    m_outputs.close();
    if (m_directory.isEmpty())
        return fail(QStringLiteral("no run directory was opened"));
    // Written even after an earlier error: a summary of what was measured is still worth having.
    const bool series = writeWhole(runfiles::kTimeSeriesCsv, runfiles::timeSeriesCsv(timeSeries, m_info.stages));
    const bool written = writeWhole(runfiles::kSummaryJson, summary.toJson().dump(2) + "\n");
    return series && written && m_error.isEmpty();
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
