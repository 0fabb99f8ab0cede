#include "results/rundirectory.h"

#include "config/inputfile.h"
#include "formats/csv.h"
#include "metrics/runaggregator.h"
#include "results/runfiles.h"
#include "results/runmerge.h"

#include <QDir>
#include <QFileInfo>

#include <unordered_map>

namespace tb {

namespace {

using json = nlohmann::json;

struct Reading {
    QDir dir;
    QString error;

    bool fail(const QString &why)
    {
        error = QDir::toNativeSeparators(dir.path()) + QStringLiteral(": ") + why;
        return false;
    }

    bool exists(const char *name) const { return dir.exists(QLatin1String(name)); }

    std::optional<QByteArray> read(const char *name, qint64 maxBytes)
    {
        QString why;
        auto bytes = readInputFile(dir.filePath(QLatin1String(name)), maxBytes, &why);
        if (!bytes)
            fail(QStringLiteral("cannot read %1: %2").arg(QLatin1String(name), why));
        return bytes;
    }

    /// Parses a JSON file; reports damage or a newer format before `parse` looks at the content.
    template<typename T, typename Parse> std::optional<T> readJson(const char *name, qint64 maxBytes, Parse parse)
    {
        const auto bytes = read(name, maxBytes);
        if (!bytes)
            return std::nullopt;
        const json j = json::parse(bytes->constData(), bytes->constData() + bytes->size(), nullptr, false);
        if (j.is_discarded()) {
            fail(QStringLiteral("damaged %1: not valid JSON").arg(QLatin1String(name)));
            return std::nullopt;
        }
        QString why;
        auto value = parse(j, &why);
        if (!value) {
            const bool newer = j.is_object() && j.contains("format_version") &&
                               j["format_version"].is_number_integer() &&
                               j["format_version"].get<int>() > kRunFormatVersion;
            fail(newer ? QStringLiteral("%1 was %2").arg(QLatin1String(name), why)
                       : QStringLiteral("damaged %1: %2").arg(QLatin1String(name), why));
        }
        return value;
    }

    bool readRecords(RunData &data)
    {
        const auto bytes = read(runfiles::kRequestsCsv, runfiles::kMaxRequestsCsvBytes);
        if (!bytes)
            return false;
        const auto damaged = [this](const QString &why) {
            return fail(QStringLiteral("damaged %1: %2").arg(QLatin1String(runfiles::kRequestsCsv), why));
        };
        CsvReader reader(*bytes);
        std::vector<std::string> fields;
        runfiles::RequestRowParser parser;
        QString why;
        if (!reader.next(fields))
            return damaged(QStringLiteral("no header row"));
        if (!parser.setHeader(fields, &why))
            return damaged(why);
        while (reader.next(fields)) {
            if (fields.size() == 1 && fields[0].empty())
                continue;
            RequestRecord record;
            double itl = 0;
            if (!parser.parse(fields, data.info, &record, &itl, &why))
                return damaged(QStringLiteral("line %1: %2").arg(reader.line()).arg(why));
            data.records.push_back(std::move(record));
            data.itlMeanMs.push_back(itl);
        }
        if (reader.tornTail())
            data.notes << QStringLiteral(
                "requests.csv: the last row was cut short (the run ended while writing it) and is left out");
        return true;
    }

    bool readChunks(RunData &data)
    {
        if (!exists(runfiles::kChunksJsonl))
            return true;
        const auto bytes = read(runfiles::kChunksJsonl, runfiles::kMaxChunksJsonlBytes);
        if (!bytes)
            return false;
        std::unordered_map<std::uint64_t, std::size_t> byId;
        for (std::size_t i = 0; i < data.records.size(); ++i)
            byId.emplace(data.records[i].id, i);
        const std::string_view text(bytes->constData(), std::size_t(bytes->size()));
        std::size_t pos = 0;
        std::vector<ChunkStamp> chunks;
        for (int line = 1; pos < text.size(); ++line) {
            const std::size_t end = text.find('\n', pos);
            if (end == std::string_view::npos) // a line cut short by a crash
                break;
            std::uint64_t id = 0;
            QString why;
            if (!runfiles::parseChunksLine(text.substr(pos, end - pos), &id, &chunks, &why))
                return fail(QStringLiteral("damaged %1: line %2: %3")
                                .arg(QLatin1String(runfiles::kChunksJsonl))
                                .arg(line)
                                .arg(why));
            if (const auto it = byId.find(id); it != byId.end())
                data.records[it->second].tokenChunks = chunks;
            pos = end + 1;
        }
        return true;
    }
};

} // namespace

QString RunData::label() const
{
    if (!name.isEmpty())
        return name;
    return QFileInfo(QDir::cleanPath(directory)).fileName();
}

QStringList RunData::directoryNotes() const
{
    QStringList lines;
    for (const QString &note : notes)
        lines << QDir::toNativeSeparators(directory) + QStringLiteral(": ") + note;
    return lines;
}

bool RunReader::isRunDirectory(const QString &directory)
{
    const QDir dir(directory);
    return dir.exists(QLatin1String(runfiles::kSummaryJson)) || dir.exists(QLatin1String(runfiles::kRequestsCsv));
}

std::optional<RunData> RunReader::load(const QString &directory, QString *error, Parts parts)
{
    Reading in{QDir(directory), {}};
    const auto failed = [&]() -> std::optional<RunData> {
        *error = in.error;
        return std::nullopt;
    };
    if (!QFileInfo(directory).isDir()) {
        in.fail(QStringLiteral("no such directory"));
        return failed();
    }
    if (!isRunDirectory(directory)) {
        in.fail(QStringLiteral("not a run directory (no %1/%2)")
                    .arg(QLatin1String(runfiles::kSummaryJson), QLatin1String(runfiles::kRequestsCsv)));
        return failed();
    }

    RunData data;
    data.directory = directory;
    if (in.exists(runfiles::kRunJson)) {
        const auto info =
            in.readJson<RunInfo>(runfiles::kRunJson, runfiles::kMaxRunJsonBytes, &runfiles::runInfoFromJson);
        if (!info)
            return failed();
        data.info = *info;
        data.hasInfo = true;
        if (!info->mergedFrom.isEmpty())
            data.notes << RunMerger::mergedNote(info->mergedFrom);
    }
    // A file with nothing in it is what a full disk left behind (older builds renamed an empty
    // file into place): it counts as missing, and is recomputed like one.
    QStringList empty;
    const auto present = [&](const char *name) {
        if (!in.exists(name))
            return false;
        if (QFileInfo(in.dir.filePath(QLatin1String(name))).size() > 0)
            return true;
        empty << QLatin1String(name);
        return false;
    };
    const bool hasSummary = present(runfiles::kSummaryJson);
    if (hasSummary) {
        const auto summary =
            in.readJson<RunSummary>(runfiles::kSummaryJson, runfiles::kMaxSummaryJsonBytes, &RunSummary::fromJson);
        if (!summary)
            return failed();
        data.summary = *summary;
    }
    const bool hasSeries = present(runfiles::kTimeSeriesCsv);
    const bool hasRequests = in.exists(runfiles::kRequestsCsv);
    const bool recompute = hasRequests && (!hasSummary || !hasSeries);
    if ((recompute && !data.hasInfo) || (!hasSummary && !hasRequests)) {
        in.fail(QStringLiteral("%1 is missing, and without %2 it cannot be recomputed")
                    .arg(QLatin1String(hasSummary ? runfiles::kTimeSeriesCsv : runfiles::kSummaryJson),
                         QLatin1String(hasRequests ? runfiles::kRunJson : runfiles::kRequestsCsv)));
        return failed();
    }
    // Recomputing needs the chunk timelines too (ITL, ICL, when tokens streamed in).
    const bool wantChunks = parts.testFlag(Chunks) || recompute;
    if (hasRequests && (parts.testFlag(Records) || wantChunks)) {
        if (!in.readRecords(data) || (wantChunks && !in.readChunks(data)))
            return failed();
    }
    if (recompute) {
        RunAggregator aggregator(data.info);
        for (const RequestRecord &r : data.records)
            aggregator.add(r);
        if (!hasSummary) {
            data.summary = aggregator.summary();
            RunAggregator::addSteadyBlock(data.summary, data.info, data.records);
            data.summaryRecomputed = true;
            if (!empty.contains(QLatin1String(runfiles::kSummaryJson)))
                data.notes << QStringLiteral(
                    "summary.json is missing (the run was stopped, crashed or ran out of disk space): recomputed from "
                    "requests.csv");
        }
        if (!hasSeries)
            data.timeSeries = aggregator.timeSeries();
    }
    for (const QString &name : std::as_const(empty))
        data.notes << QStringLiteral("%1 is empty (the disk was full when the run ended)%2")
                          .arg(name, recompute ? QStringLiteral(": recomputed from requests.csv") : QString());
    if (hasSeries) {
        const auto bytes = in.read(runfiles::kTimeSeriesCsv, runfiles::kMaxTimeSeriesCsvBytes);
        if (!bytes)
            return failed();
        QString why;
        auto rows = runfiles::parseTimeSeriesCsv(*bytes, data.info.stages, &why);
        if (!rows) {
            in.fail(QStringLiteral("damaged %1: %2").arg(QLatin1String(runfiles::kTimeSeriesCsv), why));
            return failed();
        }
        data.timeSeries = std::move(*rows);
    }
    if (parts.testFlag(Records) && in.exists(runfiles::kServerMetricsCsv)) {
        // The server's side is an extra: a damaged file costs its chart, not the run.
        QString why;
        std::optional<std::vector<ServerRow>> rows;
        if (const auto bytes = readInputFile(in.dir.filePath(QLatin1String(runfiles::kServerMetricsCsv)),
                                             runfiles::kMaxServerMetricsCsvBytes, &why))
            rows = serverRowsFromCsv(*bytes, &why);
        if (rows)
            data.serverRows = std::move(*rows);
        else
            data.notes
                << QStringLiteral("server_metrics.csv is not readable (%1): the server's chart is left empty").arg(why);
    }
    if (parts.testFlag(Records) && in.exists(runfiles::kGpuMetricsCsv)) {
        // Like the server's: a damaged file costs the GPU chart (the summary's gpu block stays).
        QString why;
        std::optional<GpuTrace> trace;
        if (const auto bytes = readInputFile(in.dir.filePath(QLatin1String(runfiles::kGpuMetricsCsv)),
                                             runfiles::kMaxGpuMetricsCsvBytes, &why))
            trace = gpuTraceFromCsv(*bytes, &why);
        if (trace)
            data.gpuTrace = std::move(*trace);
        else
            data.notes << QStringLiteral("gpu_metrics.csv is not readable (%1): the GPU chart is left empty").arg(why);
    }
    if (!parts.testFlag(Records) && !parts.testFlag(Chunks)) {
        data.records.clear();
        data.itlMeanMs.clear();
    } else if (!parts.testFlag(Chunks)) {
        for (RequestRecord &r : data.records)
            std::vector<ChunkStamp>().swap(r.tokenChunks);
    }
    return data;
}

} // namespace tb
