#include "workload/workloadfile.h"

#include "config/inputfile.h"
#include "config/runconfig.h"
#include "formats/formatversion.h"
#include "workload/workloadlimits.h"
#include "workload/workloadreader.h"

#include <QFile>

#include <algorithm>
#include <random>
#include <string_view>

namespace tb {

std::optional<WorkloadFile> WorkloadFile::load(const QString &path, WorkloadRole role, const WorkloadOptions &options,
                                               QString *error)
{
    QFile file;
    if (QString why; !openInputFile(file, path, workloadlimits::kMaxFileBytes, &why)) {
        if (error)
            *error = QStringLiteral("'%1': %2").arg(path, why);
        return std::nullopt;
    }
    qint64 size = file.size();
    const uchar *bytes = size > 0 ? file.map(0, size) : nullptr;
    QByteArray buffer;
    if (size > 0 && !bytes) { // not mappable (some file systems): read it
        buffer = file.read(size);
        bytes = reinterpret_cast<const uchar *>(buffer.constData());
        size = buffer.size();
    }
    std::string_view data(reinterpret_cast<const char *>(bytes), std::size_t(bytes ? size : 0));
    const auto reader = WorkloadReader::forData(data, path, role, options, error);
    if (!reader || !reader->read(data))
        return std::nullopt;

    WorkloadFile out;
    out.m_stats = reader->stats;
    std::vector<WorkloadEntry> &entries = reader->entries;
    // A trace is replayed in time order, whatever order its lines are in.
    if (role == WorkloadRole::Trace) {
        std::stable_sort(entries.begin(), entries.end(),
                         [](const auto &a, const auto &b) { return a.timeNs < b.timeNs; });
        // Replayed as offsets from the first: a trace spans what a run may last, as timestamps in
        // milliseconds may (an Azure trace's dates could be centuries apart).
        if (!entries.empty() && entries.back().timeNs - entries.front().timeNs > limits::kMaxDurationMs * 1'000'000) {
            if (error)
                *error = QStringLiteral("'%1': the trace spans more than %2 days (line %3 to line %4)")
                             .arg(path)
                             .arg(limits::kMaxDurationMs / (24 * 3600 * 1000))
                             .arg(entries.front().line)
                             .arg(entries.back().line);
            return std::nullopt;
        }
    }

    if (options.promptLen.isSet() || options.outputLen.isSet()) {
        const auto outside = [&](const WorkloadEntry &e) {
            return !options.promptLen.contains(e.promptTokens) ||
                   (options.outputLen.isSet() && (e.outputTokens < 0 || !options.outputLen.contains(e.outputTokens)));
        };
        const auto kept = std::remove_if(entries.begin(), entries.end(), outside);
        out.m_stats.filteredOut = std::int64_t(entries.end() - kept);
        entries.erase(kept, entries.end());
    }
    if (options.sample > 0 && std::int64_t(entries.size()) > options.sample) {
        // A partial Fisher–Yates draw on mt19937_64, whose output the standard fixes (std::
        // distributions it does not): the same seed picks the same entries everywhere.
        std::mt19937_64 rng(options.seed);
        std::vector<std::size_t> order(entries.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        const std::size_t n = std::size_t(options.sample);
        for (std::size_t i = 0; i < n; ++i)
            std::swap(order[i], order[i + std::size_t(rng() % (order.size() - i))]);
        order.resize(n);
        std::sort(order.begin(), order.end()); // file (and trace time) order
        std::vector<WorkloadEntry> drawn;
        drawn.reserve(n);
        for (const std::size_t i : order)
            drawn.push_back(std::move(entries[i]));
        out.m_stats.sampledOut = std::int64_t(entries.size() - n);
        entries = std::move(drawn);
    }
    out.m_stats.kept = std::int64_t(entries.size());
    if (entries.empty()) {
        if (error)
            *error = QStringLiteral("'%1': no entries left (%2)").arg(path, out.m_stats.describe());
        return std::nullopt;
    }
    out.m_entries = std::move(entries);
    return out;
}

nlohmann::json WorkloadStats::toJson() const
{
    nlohmann::json lines = nlohmann::json::array();
    for (const int l : badLineNumbers)
        lines.push_back(l);
    return {{"format", toStd(format)},   {"read", read},          {"bad_lines", badLines},
            {"bad_line_numbers", lines}, {"no_prompt", noPrompt}, {"filtered_out", filteredOut},
            {"sampled_out", sampledOut}, {"requests", kept}};
}

WorkloadStats WorkloadStats::fromJson(const nlohmann::json &j)
{
    WorkloadStats s;
    if (!j.is_object())
        return s;
    s.format = lenientString(j, "format");
    s.read = lenientInteger(j, "read");
    s.badLines = lenientInteger(j, "bad_lines");
    if (const auto lines = j.find("bad_line_numbers"); lines != j.end() && lines->is_array()) {
        for (const auto &l : *lines) {
            if (l.is_number_integer() && s.badLineNumbers.size() < workloadlimits::kBadLinesNamed)
                s.badLineNumbers << l.get<int>();
        }
    }
    s.noPrompt = lenientInteger(j, "no_prompt");
    s.filteredOut = lenientInteger(j, "filtered_out");
    s.sampledOut = lenientInteger(j, "sampled_out");
    s.kept = lenientInteger(j, "requests");
    return s;
}

QString WorkloadStats::describe() const
{
    QStringList parts{format};
    if (badLines > 0) {
        QStringList numbers;
        for (const int l : badLineNumbers)
            numbers << QString::number(l);
        parts << QStringLiteral("%1 bad lines skipped: %2%3")
                     .arg(badLines)
                     .arg(numbers.join(QStringLiteral(", ")))
                     .arg(badLines > badLineNumbers.size() ? QStringLiteral(", …") : QString());
    }
    if (noPrompt > 0)
        parts << QStringLiteral("%1 without a human turn").arg(noPrompt);
    if (filteredOut > 0)
        parts << QStringLiteral("%1 outside the length filters").arg(filteredOut);
    if (sampledOut > 0)
        parts << QStringLiteral("%1 not sampled").arg(sampledOut);
    return QStringLiteral("%1 of %2 entries (%3)").arg(kept).arg(read).arg(parts.join(QStringLiteral("; ")));
}

} // namespace tb
