#include "results/chunkreader.h"

#include "config/inputfile.h"
#include "results/runfiles.h"

#include <QDir>
#include <QFile>
#include <QMutexLocker>

namespace tb {

namespace {

/// RunWriter starts every line with {"id":N — the fast path; other spellings are parsed whole.
std::optional<std::uint64_t> lineId(QByteArrayView line)
{
    constexpr QByteArrayView prefix("{\"id\":");
    if (line.startsWith(prefix)) {
        std::uint64_t id = 0;
        qsizetype i = prefix.size();
        const qsizetype digitsFrom = i;
        for (; i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i)
            id = id * 10 + std::uint64_t(line[i] - '0');
        if (i > digitsFrom && i < line.size() && line[i] == ',')
            return id;
    }
    std::uint64_t id = 0;
    std::vector<ChunkStamp> chunks;
    QString error;
    if (runfiles::parseChunksLine(std::string_view(line.data(), std::size_t(line.size())), &id, &chunks, &error))
        return id;
    return std::nullopt;
}

} // namespace

ChunkReader::ChunkReader(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<std::vector<tb::ChunkStamp>>();
}

ChunkReader::~ChunkReader()
{
    m_jobs.stop();
}

void ChunkReader::request(const QString &directory, std::uint64_t id)
{
    // The destructor waits for this job, so `this` is alive while it reads.
    m_jobs.run(
        [this, directory, id] {
            QString error;
            std::optional<std::vector<ChunkStamp>> chunks = read(directory, id, &error);
            return std::pair(std::move(chunks), error);
        },
        [this, id](const std::pair<std::optional<std::vector<ChunkStamp>>, QString> &result) {
            if (result.first)
                Q_EMIT loaded(id, *result.first);
            else
                Q_EMIT failed(id, result.second);
        });
}

std::optional<std::vector<ChunkStamp>> ChunkReader::read(const QString &directory, std::uint64_t id, QString *error)
{
    QMutexLocker lock(&m_mutex);
    if (directory != m_directory) {
        m_directory = directory;
        m_scanned = 0;
        m_offsets.clear();
    }
    QFile file;
    if (QString why; !openInputFile(file, QDir(directory).filePath(QLatin1String(runfiles::kChunksJsonl)),
                                    runfiles::kMaxChunksJsonlBytes, &why)) {
        *error = tr("This run has no chunk timelines (%1: %2).").arg(QLatin1String(runfiles::kChunksJsonl), why);
        return std::nullopt;
    }
    if (!m_offsets.contains(id))
        scan(file, id);
    const auto it = m_offsets.constFind(id);
    if (it == m_offsets.constEnd()) {
        *error = tr("No chunk timeline for request %1: it streamed no tokens, or it is not written yet.").arg(id);
        return std::nullopt;
    }
    file.seek(*it);
    const QByteArray line = file.readLine().trimmed();
    std::uint64_t lineIdValue = 0;
    std::vector<ChunkStamp> chunks;
    QString why;
    if (!runfiles::parseChunksLine(std::string_view(line.constData(), std::size_t(line.size())), &lineIdValue, &chunks,
                                   &why) ||
        lineIdValue != id) {
        *error = tr("%1 is damaged at request %2: %3").arg(QLatin1String(runfiles::kChunksJsonl)).arg(id).arg(why);
        return std::nullopt;
    }
    return chunks;
}

void ChunkReader::scan(QFile &file, std::uint64_t id)
{
    constexpr qint64 kBlock = 1 << 20;
    if (!file.seek(m_scanned))
        return;
    QByteArray pending;
    qint64 pendingAt = m_scanned;
    bool found = false;
    while (!found && !file.atEnd()) {
        pending += file.read(kBlock);
        qsizetype from = 0;
        for (qsizetype nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', from)) {
            const QByteArrayView line = QByteArrayView(pending).sliced(from, nl - from).trimmed();
            if (!line.isEmpty()) {
                if (const std::optional<std::uint64_t> lineIdValue = lineId(line)) {
                    m_offsets.insert(*lineIdValue, pendingAt + from);
                    found |= *lineIdValue == id;
                }
            }
            from = nl + 1;
        }
        // A line without its newline is still being written: it is read again next time.
        pendingAt += from;
        pending.remove(0, from);
        m_scanned = pendingAt;
    }
}

} // namespace tb
