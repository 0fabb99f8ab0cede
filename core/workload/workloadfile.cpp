#include "workload/workloadfile.h"

#include "config/inputfile.h"
#include "config/runconfig.h"
#include "tokenize/tokenizer.h"

#include <QFile>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string_view>

namespace tb {

namespace {

constexpr int kBadLinesNamed = 10; ///< bad line numbers kept for the summary

std::int64_t approx(std::string_view s)
{
    return ApproxTokenizer::countUtf8(s.data(), s.size());
}

/// The text of a chat message's content: a string, or the text parts of a content array.
std::int64_t contentTokens(const nlohmann::json &content)
{
    if (content.is_string())
        return approx(content.get_ref<const std::string &>());
    std::int64_t n = 0;
    if (content.is_array()) {
        for (const auto &part : content) {
            if (part.is_object() && part.contains("text") && part["text"].is_string())
                n += approx(part["text"].get_ref<const std::string &>());
        }
    }
    return n;
}

enum class Parsed { Ok, NoPrompt, Bad, Fatal };

/// An integer field in [min, max]; false with *why when it is there but not such a number.
bool integerField(const nlohmann::json &j, const char *key, std::int64_t min, std::int64_t max,
                  std::optional<std::int64_t> &out, QString &why)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return true;
    double v = 0;
    if (it->is_number_unsigned())
        v = double(it->get<std::uint64_t>());
    else if (it->is_number())
        v = it->get<double>();
    else {
        why = QStringLiteral("\"%1\" must be a number").arg(QLatin1String(key));
        return false;
    }
    if (!(v >= double(min) && v <= double(max)) || v != std::floor(v)) {
        why = QStringLiteral("\"%1\" must be a whole number from %2 to %3 (got %4)")
                  .arg(QLatin1String(key))
                  .arg(min)
                  .arg(max)
                  .arg(fromStd(it->dump()).left(32));
        return false;
    }
    out = std::int64_t(v);
    return true;
}

bool isHumanRole(const std::string &from)
{
    return from == "human" || from == "user";
}

bool isReplyRole(const std::string &from)
{
    return from == "gpt" || from == "assistant" || from == "chatgpt" || from == "bard" || from == "bing" ||
           from == "model";
}

/// ShareGPT: {"conversations": [{"from": "human", "value": …}, {"from": "gpt", "value": …}, …]}.
Parsed shareGpt(const nlohmann::json &turns, WorkloadEntry &e, QString &why)
{
    if (!turns.is_array()) {
        why = QStringLiteral("\"conversations\" must be an array of {\"from\", \"value\"} turns");
        return Parsed::Bad;
    }
    for (std::size_t k = 0; k < turns.size(); ++k) {
        const auto &t = turns[k];
        if (!t.is_object() || !t.contains("from") || !t["from"].is_string() || !t.contains("value") ||
            !t["value"].is_string()) {
            why = QStringLiteral("conversations[%1] needs \"from\" and \"value\" strings").arg(k);
            return Parsed::Bad;
        }
    }
    for (std::size_t k = 0; k < turns.size(); ++k) {
        const std::string &from = turns[k]["from"].get_ref<const std::string &>();
        if (from == "system" && e.user.empty()) {
            e.system += turns[k]["value"].get<std::string>();
            continue;
        }
        if (!isHumanRole(from))
            continue;
        e.user = turns[k]["value"].get<std::string>();
        if (k + 1 < turns.size() && isReplyRole(turns[k + 1]["from"].get_ref<const std::string &>()))
            e.outputTokens = approx(turns[k + 1]["value"].get_ref<const std::string &>());
        e.promptTokens = approx(e.system) + approx(e.user);
        return Parsed::Ok;
    }
    return Parsed::NoPrompt;
}

/// {"messages": [...]}: sent whole from a prompt file; from a dataset, the messages up to the first
/// user turn are the prompt and the assistant turn after it is the recorded reply (ShareGPT's
/// role/content variant).
Parsed chatMessages(const nlohmann::json &messages, WorkloadRole role, WorkloadEntry &e, QString &why)
{
    if (!messages.is_array() || messages.empty()) {
        why = QStringLiteral("\"messages\" must be a non-empty array");
        return Parsed::Bad;
    }
    for (const auto &m : messages) {
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content")) {
            why = QStringLiteral("each message needs \"role\" and \"content\"");
            return Parsed::Bad;
        }
    }
    std::size_t end = messages.size();
    if (role == WorkloadRole::Dataset) {
        const auto user = std::find_if(messages.begin(), messages.end(), [](const auto &m) {
            return isHumanRole(m["role"].template get<std::string>());
        });
        if (user == messages.end())
            return Parsed::NoPrompt;
        end = std::size_t(user - messages.begin()) + 1;
        if (end < messages.size() && isReplyRole(messages[end]["role"].get<std::string>()))
            e.outputTokens = contentTokens(messages[end]["content"]);
    }
    e.messages = nlohmann::json::array();
    for (std::size_t k = 0; k < end; ++k) {
        e.messages.push_back(messages[k]);
        e.promptTokens += contentTokens(messages[k]["content"]);
    }
    return Parsed::Ok;
}

Parsed entryFromJson(const nlohmann::json &j, WorkloadRole role, WorkloadEntry &e, QString &why, const char *&kind)
{
    if (!j.is_object()) {
        why = QStringLiteral("not a JSON object");
        return Parsed::Bad;
    }
    std::optional<std::int64_t> maxTokens, outputLen, inputLen;
    if (!integerField(j, "max_tokens", 1, limits::kMaxTokens, maxTokens, why) ||
        !integerField(j, "output_len", 0, limits::kMaxTokens, outputLen, why) ||
        (!outputLen && !integerField(j, "output_length", 0, limits::kMaxTokens, outputLen, why)) ||
        !integerField(j, "input_length", 1, limits::kMaxPromptTokens, inputLen, why))
        return Parsed::Bad;

    Parsed parsed = Parsed::Ok;
    if (const auto c = j.find("conversations"); c != j.end()) {
        kind = "sharegpt";
        parsed = shareGpt(*c, e, why);
    } else if (inputLen) {
        kind = "mooncake";
        e.synthetic = true;
        e.promptTokens = *inputLen;
        if (const auto h = j.find("hash_ids"); h != j.end()) {
            const std::size_t maxBlocks = std::size_t(*inputLen / WorkloadFile::kHashBlockTokens + 1);
            if (!h->is_array() || h->size() > maxBlocks) {
                why = QStringLiteral("\"hash_ids\" must be an array of at most input_length/%1 + 1 ids")
                          .arg(WorkloadFile::kHashBlockTokens);
                return Parsed::Bad;
            }
            for (const auto &id : *h) {
                if (!id.is_number_unsigned() && !(id.is_number_integer() && id.get<std::int64_t>() >= 0)) {
                    why = QStringLiteral("\"hash_ids\" must hold whole numbers >= 0");
                    return Parsed::Bad;
                }
                e.hashIds.push_back(id.get<std::uint64_t>());
            }
        }
        // A trace's output length is what the request produced: it is asked for again.
        if (outputLen) {
            outputLen = std::max<std::int64_t>(1, *outputLen);
            e.outputIsCap = true;
        }
    } else if (const auto m = j.find("messages"); m != j.end()) {
        kind = "messages";
        parsed = chatMessages(*m, role, e, why);
    } else if (const auto p = j.find("prompt"); p != j.end() && p->is_string()) {
        kind = "prompts";
        e.user = p->get<std::string>();
        e.promptTokens = approx(e.user);
    } else {
        why = QStringLiteral("expected {\"prompt\": …}, {\"messages\": […]}, a ShareGPT {\"conversations\": […]} or a "
                             "trace line {\"input_length\": …}");
        return Parsed::Bad;
    }
    if (parsed != Parsed::Ok)
        return parsed;
    if (const auto s = j.find("system"); s != j.end() && s->is_string() && !e.synthetic) {
        e.system = s->get<std::string>();
        e.promptTokens += approx(e.system);
    }
    if (outputLen && e.outputTokens < 0)
        e.outputTokens = *outputLen;
    if (maxTokens) {
        e.outputTokens = *maxTokens;
        e.outputIsCap = true;
    }
    if (const auto t = j.find("timestamp"); t != j.end()) {
        if (role != WorkloadRole::Trace) {
            why = QStringLiteral("has a \"timestamp\": give a timed file with --trace FILE to replay it at its times");
            return Parsed::Fatal;
        }
        if (!t->is_number() || !(t->get<double>() >= 0 && t->get<double>() <= double(limits::kMaxDurationMs))) {
            why = QStringLiteral("\"timestamp\" must be milliseconds from 0 to %1").arg(limits::kMaxDurationMs);
            return Parsed::Bad;
        }
        e.timeNs = std::llround(t->get<double>() * 1e6);
    } else if (role == WorkloadRole::Trace) {
        why = QStringLiteral("no \"timestamp\" (milliseconds): every line of a trace needs one");
        return Parsed::Bad;
    }
    return Parsed::Ok;
}

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

/// Calls `each(line number, line)` for every line of `data` without its '\n' (a last line without
/// one included) until `each` returns false; returns whether all were read.
template<typename Each> bool forEachLine(std::string_view data, Each each)
{
    int line = 0;
    for (std::size_t at = 0; at < data.size();) {
        std::size_t eol = data.find('\n', at);
        if (eol == std::string_view::npos)
            eol = data.size();
        if (!each(++line, data.substr(at, eol - at)))
            return false;
        at = eol + 1;
    }
    return true;
}

/// Reads entries from the mapped bytes; one instance per load.
class Reader
{
public:
    Reader(const QString &path, WorkloadRole role, const WorkloadOptions &options, QString *error)
        : m_path(path)
        , m_role(role)
        , m_options(options)
        , m_error(error)
    {}

    std::vector<WorkloadEntry> entries;
    WorkloadStats stats;

    bool read(std::string_view data)
    {
        if (data.size() >= 3 && data.substr(0, 3) == "\xEF\xBB\xBF")
            data.remove_prefix(3);
        const std::size_t first = data.find_first_not_of(" \t\r\n");
        if (first == std::string_view::npos)
            return fail(0, QStringLiteral("no prompts in it"));
        if (data[first] == '[')
            return readArray(data, first);
        if (m_role == WorkloadRole::Trace && data[first] != '{')
            return readCsv(data);
        return readLines(data);
    }

private:
    bool fail(int line, const QString &why)
    {
        if (m_error)
            *m_error = line > 0 ? QStringLiteral("'%1' line %2: %3").arg(m_path).arg(line).arg(why)
                                : QStringLiteral("'%1': %2").arg(m_path, why);
        return false;
    }

    /// A broken line: refused, or skipped and counted with skipBadLines.
    bool bad(int line, const QString &why)
    {
        if (!m_options.skipBadLines)
            return fail(line, why);
        ++stats.badLines;
        if (stats.badLineNumbers.size() < kBadLinesNamed)
            stats.badLineNumbers << line;
        return true;
    }

    bool add(WorkloadEntry &&e)
    {
        if (std::int64_t(entries.size()) >= WorkloadFile::kMaxEntries)
            return fail(e.line, QStringLiteral("more than %1 entries; split the file or sample it beforehand")
                                    .arg(WorkloadFile::kMaxEntries));
        ++stats.read;
        entries.push_back(std::move(e));
        return true;
    }

    bool object(const char *begin, const char *end, int line)
    {
        QString why;
        const auto json = parseJsonBounded(QByteArray::fromRawData(begin, qsizetype(end - begin)), &why);
        if (!json)
            return bad(line, QStringLiteral("not a JSON object (%1)").arg(why.left(120)));
        WorkloadEntry e;
        e.line = line;
        const char *kind = "";
        const Parsed parsed = entryFromJson(*json, m_role, e, why, kind);
        if (stats.format.isEmpty() && *kind)
            stats.format = QLatin1String(kind); // what the first entry is: the file's kind
        switch (parsed) {
        case Parsed::Ok:
            return add(std::move(e));
        case Parsed::NoPrompt:
            ++stats.noPrompt;
            return true;
        case Parsed::Bad:
            return bad(line, why);
        case Parsed::Fatal:
            return fail(line, why);
        }
        return true;
    }

    bool readLines(std::string_view data)
    {
        return forEachLine(data, [&](int line, std::string_view text) {
            if (qint64(text.size()) > WorkloadFile::kMaxLineBytes)
                return bad(line, QStringLiteral("longer than %1 MiB").arg(WorkloadFile::kMaxLineBytes >> 20));
            const std::size_t b = text.find_first_not_of(" \t\r");
            if (b == std::string_view::npos)
                return true;
            text = text.substr(b, text.find_last_not_of(" \t\r") - b + 1);
            return object(text.data(), text.data() + text.size(), line);
        });
    }

    /// A JSON array of entries (ShareGPT's .json): each element is found by a scan of brackets and
    /// strings and parsed on its own, so a broken element is named by its line and the whole file
    /// never becomes one tree.
    bool readArray(std::string_view data, std::size_t at)
    {
        int line = 1 + int(std::count(data.begin(), data.begin() + qsizetype(at), '\n'));
        ++at; // '['
        const auto skipSpace = [&] {
            while (at < data.size() && (data[at] == ' ' || data[at] == '\t' || data[at] == '\r' || data[at] == '\n')) {
                line += data[at] == '\n';
                ++at;
            }
        };
        skipSpace();
        if (at < data.size() && data[at] == ']')
            return true;
        while (at < data.size()) {
            skipSpace();
            const std::size_t start = at;
            const int startLine = line;
            int depth = 0;
            bool inString = false;
            for (; at < data.size(); ++at) {
                const char c = data[at];
                if (c == '\n')
                    ++line;
                if (inString) {
                    if (c == '\\')
                        ++at;
                    else if (c == '"')
                        inString = false;
                } else if (c == '"') {
                    inString = true;
                } else if (c == '{' || c == '[') {
                    if (++depth > limits::kMaxJsonDepth)
                        return fail(startLine,
                                    QStringLiteral("nests deeper than %1 levels").arg(limits::kMaxJsonDepth));
                } else if (c == '}' || c == ']') {
                    if (depth == 0)
                        break;
                    --depth;
                } else if (c == ',' && depth == 0) {
                    break;
                }
            }
            if (at >= data.size())
                return fail(startLine, QStringLiteral("the JSON array does not end (a missing ']' or '\"')"));
            if (qint64(at - start) > WorkloadFile::kMaxLineBytes) {
                if (!bad(startLine, QStringLiteral("entry longer than %1 MiB").arg(WorkloadFile::kMaxLineBytes >> 20)))
                    return false;
            } else if (!object(data.data() + start, data.data() + at, startLine)) {
                return false;
            }
            if (data[at] == ']')
                break;
            ++at; // ','
        }
        return true;
    }

    /// The Azure LLM inference trace: TIMESTAMP,ContextTokens,GeneratedTokens (other columns ignored).
    bool readCsv(std::string_view data)
    {
        int timeColumn = -1, contextColumn = -1, generatedColumn = -1;
        std::size_t columns = 0;
        const bool read = forEachLine(data, [&](int line, std::string_view text) {
            if (!text.empty() && text.back() == '\r')
                text.remove_suffix(1);
            if (text.find_first_not_of(" \t") == std::string_view::npos)
                return true;
            if (qint64(text.size()) > 4096)
                return bad(line, QStringLiteral("longer than 4096 bytes"));
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

    QString m_path;
    WorkloadRole m_role;
    WorkloadOptions m_options;
    QString *m_error;
};

} // namespace

std::optional<WorkloadFile> WorkloadFile::load(const QString &path, WorkloadRole role, const WorkloadOptions &options,
                                               QString *error)
{
    QFile file;
    if (QString why; !openInputFile(file, path, kMaxFileBytes, &why)) {
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
    Reader reader(path, role, options, error);
    if (!reader.read(std::string_view(reinterpret_cast<const char *>(bytes), std::size_t(bytes ? size : 0))))
        return std::nullopt;

    WorkloadFile out;
    out.m_stats = reader.stats;
    std::vector<WorkloadEntry> &entries = reader.entries;
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
    const auto number = [&j](const char *key) {
        const auto it = j.find(key);
        return it != j.end() && it->is_number_integer() ? it->get<std::int64_t>() : std::int64_t(0);
    };
    if (const auto f = j.find("format"); f != j.end() && f->is_string())
        s.format = fromStd(f->get<std::string>());
    s.read = number("read");
    s.badLines = number("bad_lines");
    if (const auto lines = j.find("bad_line_numbers"); lines != j.end() && lines->is_array()) {
        for (const auto &l : *lines) {
            if (l.is_number_integer() && s.badLineNumbers.size() < kBadLinesNamed)
                s.badLineNumbers << l.get<int>();
        }
    }
    s.noPrompt = number("no_prompt");
    s.filteredOut = number("filtered_out");
    s.sampledOut = number("sampled_out");
    s.kept = number("requests");
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
