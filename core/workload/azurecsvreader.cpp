#include "workload/azurecsvreader.h"

#include "config/runconfig.h"
#include "workload/workloadlimits.h"

#include <algorithm>
#include <chrono>
#include <optional>

namespace tb {

namespace {

/// Years an Azure trace's TIMESTAMP may have: nanoseconds since the epoch overflow int64 after
/// 2262, and from 1970 on the span between any two times fits too.
constexpr int kFirstTraceYear = 1970;
constexpr int kLastTraceYear = 2199;

/// "2023-11-16 18:15:46.6805900" (the Azure traces' form; 'T' and a trailing 'Z' are accepted too)
/// as nanoseconds since the epoch; none outside kFirstTraceYear..kLastTraceYear.
std::optional<std::int64_t> parseTraceTimestamp(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '"'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == 'Z'))
        s.remove_suffix(1);
    const auto digits = [&](std::size_t at, std::size_t n) -> std::optional<int> {
        if (at + n > s.size())
            return std::nullopt;
        int v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (s[i] < '0' || s[i] > '9')
                return std::nullopt;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    const auto y = digits(0, 4), mo = digits(5, 2), d = digits(8, 2), h = digits(11, 2), mi = digits(14, 2),
               se = digits(17, 2);
    if (!y || !mo || !d || !h || !mi || !se || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
        s[13] != ':' || s[16] != ':' || *y < kFirstTraceYear || *y > kLastTraceYear || *h > 23 || *mi > 59 || *se > 60)
        return std::nullopt;
    using namespace std::chrono;
    const year_month_day date{year{*y}, month{unsigned(*mo)}, day{unsigned(*d)}};
    if (!date.ok() || *y < kFirstTraceYear || *y > kLastTraceYear)
        return std::nullopt;
    std::int64_t ns = 0;
    if (s.size() > 19) {
        if (s[19] != '.' || s.size() == 20)
            return std::nullopt;
        std::int64_t scale = 100'000'000;
        for (std::size_t i = 20; i < s.size(); ++i, scale /= 10) {
            if (s[i] < '0' || s[i] > '9')
                return std::nullopt;
            ns += scale * (s[i] - '0'); // digits past nanoseconds add 0
        }
    }
    const std::int64_t days = sys_days(date).time_since_epoch().count();
    return ((days * 24 + *h) * 60 + *mi) * 60'000'000'000LL + std::int64_t(*se) * 1'000'000'000LL + ns;
}

std::vector<std::string_view> splitCsv(std::string_view line)
{
    std::vector<std::string_view> fields;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= line.size(); ++i) {
        if (i == line.size() || line[i] == ',') {
            std::string_view f = line.substr(start, i - start);
            while (!f.empty() && (f.front() == ' ' || f.front() == '"'))
                f.remove_prefix(1);
            while (!f.empty() && (f.back() == ' ' || f.back() == '"'))
                f.remove_suffix(1);
            fields.push_back(f);
            start = i + 1;
        }
    }
    return fields;
}

std::optional<std::int64_t> csvInteger(std::string_view f, std::int64_t min, std::int64_t max)
{
    if (f.empty() || f.size() > 18)
        return std::nullopt;
    std::int64_t v = 0;
    for (const char c : f) {
        if (c < '0' || c > '9')
            return std::nullopt;
        v = v * 10 + (c - '0');
    }
    return v >= min && v <= max ? std::optional<std::int64_t>(v) : std::nullopt;
}

} // namespace

bool AzureCsvReader::read(std::string_view data)
{
    int timeColumn = -1, contextColumn = -1, generatedColumn = -1;
    std::size_t columns = 0;
    const bool read = forEachLine(data, [&](int line, std::string_view text) {
        if (!text.empty() && text.back() == '\r')
            text.remove_suffix(1);
        if (text.find_first_not_of(" \t") == std::string_view::npos)
            return true;
        if (qint64(text.size()) > workloadlimits::kMaxCsvLineBytes)
            return bad(line, QStringLiteral("longer than %1 bytes").arg(workloadlimits::kMaxCsvLineBytes));
        const std::vector<std::string_view> fields = splitCsv(text);
        if (timeColumn < 0) {
            for (std::size_t i = 0; i < fields.size(); ++i) {
                const QString name = QString::fromUtf8(fields[i].data(), qsizetype(fields[i].size())).toLower();
                if (name == QLatin1String("timestamp"))
                    timeColumn = int(i);
                else if (name == QLatin1String("contexttokens"))
                    contextColumn = int(i);
                else if (name == QLatin1String("generatedtokens"))
                    generatedColumn = int(i);
            }
            if (timeColumn < 0 || contextColumn < 0 || generatedColumn < 0)
                return fail(line, QStringLiteral("not a JSONL trace, and as CSV its header must name TIMESTAMP, "
                                                 "ContextTokens and GeneratedTokens"));
            columns = fields.size();
            return true;
        }
        if (fields.size() < columns)
            return bad(line, QStringLiteral("%1 fields; the header has %2").arg(fields.size()).arg(columns));
        WorkloadEntry e;
        e.line = line;
        e.synthetic = true;
        e.outputIsCap = true;
        const auto time = parseTraceTimestamp(fields[std::size_t(timeColumn)]);
        const auto context = csvInteger(fields[std::size_t(contextColumn)], 1, limits::kMaxPromptTokens);
        const auto generated = csvInteger(fields[std::size_t(generatedColumn)], 0, limits::kMaxTokens);
        if (!time)
            return bad(line, QStringLiteral("TIMESTAMP is not 'YYYY-MM-DD HH:MM:SS[.fraction]' from year %1 to %2")
                                 .arg(kFirstTraceYear)
                                 .arg(kLastTraceYear));
        if (!context || !generated)
            return bad(line, QStringLiteral("ContextTokens must be a whole number from 1 to %1 and GeneratedTokens "
                                            "from 0 to %2")
                                 .arg(limits::kMaxPromptTokens)
                                 .arg(limits::kMaxTokens));
        e.timeNs = *time;
        e.promptTokens = *context;
        e.outputTokens = std::max<std::int64_t>(1, *generated);
        return add(std::move(e));
    });
    if (!read)
        return false;
    if (timeColumn < 0)
        return fail(0, QStringLiteral("no header row"));
    stats.format = QStringLiteral("azure-csv");
    return true;
}

} // namespace tb
