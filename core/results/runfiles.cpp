#include "results/runfiles.h"

#include "config/modelmix.h"
#include "formats/csv.h"
#include "formats/formatversion.h"
#include "metrics/requestmetrics.h"
#include "metrics/runsummary.h"
#include "tokenbench/version.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace tb::runfiles {

namespace {

using json = nlohmann::json;

enum Column {
    Id,
    Stage,
    Warmup,
    ScheduledMs,
    SentMs,
    TtfbMs,
    TtftMs,
    E2eMs,
    QueueMs,
    TpotMs,
    ItlMeanMs,
    Chunks,
    PromptTokens,
    CompletionTokens,
    CachedTokens,
    ReasoningTokens,
    TokenSourceColumn,
    Status,
    HttpStatus,
    Error,
    ResponseId,
    // Beyond docs/SPEC.md §4, in this order:
    StageIndex,
    Target,
    FinishReason,
    RetryAfterS,
    DecodeTps,
    TtftFromScheduleMs,
    E2eFromScheduleMs,
    FirstContentMs,
    DoneAtMs,
    Instance,
    HiddenReasoningTokens,
    HttpVersionColumn,
    Redirects,
    Turn,
    Conversation,
    PromptTokenSource,
    CachedSource,
    BlockedMs,
    ConnectMs,
    TlsMs,
    SendingMs,
    WaitingMs,
    ReceivingMs,
    Retries,
    UnendedBody,
    Redundancy,
    OutputCheckColumn,
    Inputs,
    Images,
    ImageBytes,
    ImageTokens,
    ModelColumn,
    ToolCallsColumn,
    FirstToolCallMs,
    ToolCallCheckColumn,
    ToolResultsColumn,
    ConnectionColumn,
    Shard, // merged runs only
    ColumnCount
};
constexpr std::array<const char *, ColumnCount> kColumns{
    "id",
    "stage",
    "warmup",
    "scheduled_ms",
    "sent_ms",
    "ttfb_ms",
    "ttft_ms",
    "e2e_ms",
    "queue_ms",
    "tpot_ms",
    "itl_mean_ms",
    "chunks",
    "prompt_tokens",
    "completion_tokens",
    "cached_tokens",
    "reasoning_tokens",
    "token_source",
    "status",
    "http_status",
    "error",
    "response_id",
    "stage_index",
    "target",
    "finish_reason",
    "retry_after_s",
    "decode_tps",
    "ttft_from_schedule_ms",
    "e2e_from_schedule_ms",
    "first_content_ms",
    "done_at_ms",
    "instance",
    "hidden_reasoning_tokens",
    "http_version",
    "redirects",
    "turn",
    "conversation",
    "prompt_token_source",
    "cached_source",
    "blocked_ms",
    "connect_ms",
    "tls_ms",
    "sending_ms",
    "waiting_ms",
    "receiving_ms",
    "retries",
    "unended_body",
    "redundancy",
    "output_check",
    "inputs",
    "images",
    "image_bytes",
    "image_tokens",
    "model",
    "tool_calls",
    "first_tool_call_ms",
    "tool_call_check",
    "tool_results",
    "connection",
    "shard",
};
constexpr int kRequiredColumns = StageIndex; // docs/SPEC.md's columns must be there

enum SeriesColumn {
    TS,
    Sent,
    Completed,
    Failed,
    InFlight,
    OutputTokens,
    InputTokens,
    TtftP50,
    TtftP99,
    E2eP50,
    E2eP99,
    SeriesStage,
    Good,
    Cancelled,
    SeriesColumnCount
};
constexpr std::array<const char *, SeriesColumnCount> kSeriesColumns{
    "t_s",         "sent",        "completed",  "failed",     "in_flight", "output_tokens", "input_tokens",
    "ttft_p50_ms", "ttft_p99_ms", "e2e_p50_ms", "e2e_p99_ms", "stage",     "good",          "cancelled",
};
constexpr int kRequiredSeriesColumns = SeriesStage;

/// Times read back are offsets from the run's start: beyond a century either way they are damage,
/// and within it every conversion to ns and every sum of two stays inside int64.
constexpr std::int64_t kMaxOffsetUs = std::int64_t(100) * 365 * 24 * 3600 * 1'000'000;

/// A JSON integer in [min, max]; none for anything else (a fraction, text, a number out of range).
std::optional<std::int64_t> integerIn(const json &j, std::int64_t min, std::int64_t max)
{
    if (!j.is_number_integer() || (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(max)))
        return std::nullopt;
    const auto v = j.get<std::int64_t>();
    return v >= min && v <= max ? std::optional(v) : std::nullopt;
}

/// Fixed-point text of a number; "" for none. std::to_chars: locale-free and exact.
std::string_view fixed(char (&buffer)[48], const std::optional<double> &value, int decimals)
{
    if (!value || !std::isfinite(*value))
        return {};
    auto result = std::to_chars(buffer, buffer + sizeof buffer, *value, std::chars_format::fixed, decimals);
    // Beyond about 10^44 the digits do not fit: the shortest form that reads back the same.
    if (result.ec != std::errc())
        result = std::to_chars(buffer, buffer + sizeof buffer, *value);
    return {buffer, std::size_t(result.ptr - buffer)};
}

std::string_view integer(char (&buffer)[48], std::int64_t value)
{
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return {buffer, std::size_t(result.ptr - buffer)};
}

std::optional<double> offsetMs(std::int64_t ns)
{
    return ns >= 0 ? std::optional<double>(double(ns) / 1e6) : std::nullopt;
}

std::string header(const char *const *names, int count)
{
    std::string line;
    for (int i = 0; i < count; ++i)
        appendCsvField(line, names[i], i == 0);
    line += kCsvLineEnd;
    return line;
}

/// Where each named column sits in a header row.
std::vector<int> mapColumns(const std::vector<std::string> &header, const char *const *names, int count, int required,
                            QString *error)
{
    std::vector<int> at(std::size_t(count), -1);
    for (std::size_t i = 0; i < header.size(); ++i) {
        for (int c = 0; c < count; ++c) {
            if (header[i] == names[c])
                at[std::size_t(c)] = int(i);
        }
    }
    for (int c = 0; c < required; ++c) {
        if (at[std::size_t(c)] < 0) {
            *error = QStringLiteral("no column '%1'").arg(QLatin1String(names[c]));
            return {};
        }
    }
    return at;
}

/// Reads the fields of one row by column, remembering the first bad value.
class Fields
{
public:
    Fields(const std::vector<std::string> &fields, const std::vector<int> &columns, const char *const *names)
        : m_fields(fields)
        , m_columns(columns)
        , m_names(names)
    {}

    bool has(int column) const { return m_columns[std::size_t(column)] >= 0; }
    std::string_view text(int column) const
    {
        const int at = m_columns[std::size_t(column)];
        return at >= 0 && std::size_t(at) < m_fields.size() ? std::string_view(m_fields[std::size_t(at)])
                                                            : std::string_view();
    }
    /// A text column (appendCsvText's): as it was before it was written.
    QString string(int column) const
    {
        const std::string_view t = csvText(text(column));
        return QString::fromUtf8(t.data(), qsizetype(t.size()));
    }
    std::optional<double> real(int column) const
    {
        const std::string_view t = text(column);
        if (t.empty())
            return std::nullopt;
        double v = 0;
        const auto result = std::from_chars(t.data(), t.data() + t.size(), v);
        if (result.ec != std::errc() || result.ptr != t.data() + t.size()) {
            bad(column, t);
            return std::nullopt;
        }
        return v;
    }
    std::int64_t integer(int column, std::int64_t absent = 0) const
    {
        const std::string_view t = text(column);
        if (t.empty())
            return absent;
        std::int64_t v = 0;
        const auto result = std::from_chars(t.data(), t.data() + t.size(), v);
        if (result.ec != std::errc() || result.ptr != t.data() + t.size())
            bad(column, t);
        return v;
    }
    /// A whole number in [min, max] (`absent` when empty): a count or an index, refused beyond
    /// what a run records, so no sum or narrowing of it can overflow.
    std::int64_t bounded(int column, std::int64_t min, std::int64_t max, std::int64_t absent = 0) const
    {
        const std::int64_t v = integer(column, absent);
        if (text(column).empty() || (v >= min && v <= max))
            return v;
        fail(QStringLiteral("column '%1': '%2' is not a whole number from %3 to %4")
                 .arg(QLatin1String(m_names[column]), string(column).left(40))
                 .arg(min)
                 .arg(max));
        return absent;
    }
    /// Milliseconds as ns, saturated to ±a century (llround of what does not fit is undefined);
    /// -1 when empty. Rounded to the microsecond, the precision they are written with (3 decimals):
    /// finer digits (a file edited by hand) would otherwise give figures that change when the
    /// records are written and read again.
    std::int64_t ns(int column) const
    {
        const auto ms = real(column);
        if (ms && !std::isfinite(*ms))
            bad(column, text(column));
        if (!ms || !std::isfinite(*ms))
            return -1;
        constexpr double kMaxOffsetMs = double(kMaxOffsetUs) / 1000;
        return std::llround(std::clamp(*ms, -kMaxOffsetMs, kMaxOffsetMs) * 1e3) * 1000;
    }
    /// A duration column: ns, -1 when empty (not measured); a negative duration is bad.
    std::int64_t durationNs(int column) const
    {
        if (text(column).empty())
            return -1;
        const std::int64_t v = ns(column);
        if (v < 0)
            bad(column, text(column));
        return std::max<std::int64_t>(v, -1);
    }
    void bad(int column, std::string_view value) const
    {
        if (m_error.isEmpty())
            m_error =
                QStringLiteral("column '%1': '%2' is not a number")
                    .arg(QLatin1String(m_names[column]), QString::fromUtf8(value.data(), qsizetype(value.size())));
    }
    void fail(const QString &why) const
    {
        if (m_error.isEmpty())
            m_error = why;
    }
    const QString &error() const { return m_error; }

private:
    const std::vector<std::string> &m_fields;
    const std::vector<int> &m_columns;
    const char *const *m_names;
    mutable QString m_error;
};

/// A time `spanNs` after `baseNs`, held within a century like every time read (so what is read,
/// written and read again stays the same); -1 unless both are there.
std::int64_t after(std::int64_t baseNs, std::int64_t spanNs)
{
    return baseNs >= 0 && spanNs >= 0 ? std::min(baseNs + spanNs, kMaxOffsetUs * 1000) : -1;
}

json stagesToJson(const QList<StageConfig> &stages)
{
    json array = json::array();
    for (const StageConfig &s : stages) {
        array.push_back({{"name", toStd(s.name)},
                         {"mode", toStd(loadModeName(s.mode))},
                         {"level", s.level},
                         {"duration_ms", s.durationMs},
                         {"requests", s.requests}});
        if (s.promptTokens > 0)
            array.back()["prompt_tokens"] = s.promptTokens;
    }
    return array;
}

std::optional<QList<StageConfig>> stagesFromJson(const json &array)
{
    QList<StageConfig> stages;
    for (const json &s : array) {
        if (!s.is_object() || !s.contains("name") || !s["name"].is_string() || !s.contains("mode") ||
            !s["mode"].is_string() || !s.contains("level") || !s["level"].is_number())
            return std::nullopt;
        StageConfig stage;
        stage.name = fromStd(s["name"].get<std::string>());
        const auto mode = loadModeFromName(fromStd(s["mode"].get<std::string>()));
        if (!mode)
            return std::nullopt;
        stage.mode = *mode;
        stage.level = s["level"].get<double>();
        stage.durationMs = s.value("duration_ms", qint64(0));
        stage.requests = s.value("requests", qint64(0));
        if (const auto p = s.find("prompt_tokens"); p != s.end()) {
            if (!p->is_number_integer() || p->get<std::int64_t>() < 0 ||
                p->get<std::int64_t>() > limits::kMaxPromptTokens)
                return std::nullopt;
            stage.promptTokens = p->get<int>();
        }
        stages << stage;
    }
    return stages;
}

} // namespace

json runInfoToJson(const RunInfo &info)
{
    json j = {
        {"format", "tokenbench-run"},
        {"format_version", kRunFormatVersion},
        {"tool", {{"name", kToolName}, {"version", toStd(info.toolVersion)}}},
        {"host", toStd(info.host)},
        {"started_at", toStd(info.startedAtText())},
        {"stages", stagesToJson(info.stages)},
        {"config", toJson(info.config)},
        {"connection", info.connection.toJson()},
        {"prompts",
         {{"shared_tokens", info.sharedPromptTokens ? json(*info.sharedPromptTokens) : json()},
          {"salt_replayed", info.saltReplayed}}},
    };
    if (info.io.recorded())
        j["io"] = info.io.toJson();
    if (info.wallOriginNs > 0)
        j["clock"] = {{"monotonic_origin_ns", info.monotonicOriginNs},
                      {"wall_origin", toStd(info.wallOriginText())},
                      {"wall_origin_ns", info.wallOriginNs}};
    if (info.shard.isSharded()) {
        RunConfig whole;
        whole.load = info.totalLoad;
        j["shard"] = {{"index", info.shard.index},
                      {"count", info.shard.count},
                      {"arrival_seed", shardArrivalSeed(info.config.load.seed, info.shard)},
                      {"load", toJson(whole)["load"]}};
    }
    if (!info.mergedFrom.isEmpty())
        j["merged_from"] = toJson(info.mergedFrom);
    if (info.models.size() > 1)
        j["models"] = toJson(info.models);
    return j;
}

std::optional<RunConfig> runConfigAt(const json &object, const char *key, QString *error)
{
    const auto it = object.find(key);
    if (it == object.end()) {
        *error = QLatin1String(key) + QStringLiteral(": missing");
        return std::nullopt;
    }
    QString why;
    auto config = runConfigFromJson(*it, &why);
    if (!config)
        *error = QLatin1String(key) + QLatin1Char('.') + why;
    return config;
}

std::optional<RunInfo> runInfoFromJson(const json &j, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<RunInfo> {
        *error = why;
        return std::nullopt;
    };
    if (const QString why = checkFormatHead(j, "tokenbench-run", kRunFormatVersion); !why.isEmpty())
        return fail(why);
    QString why;
    const auto runConfig = runConfigAt(j, "config", &why);
    if (!runConfig)
        return fail(why);

    RunInfo info;
    info.config = *runConfig;
    const auto stages = j.find("stages");
    if (stages == j.end() || !stages->is_array())
        return fail(QStringLiteral("stages: missing"));
    const auto parsedStages = stagesFromJson(*stages);
    if (!parsedStages || parsedStages->isEmpty())
        return fail(QStringLiteral("stages: each needs a name, a mode and a level"));
    info.stages = *parsedStages;
    if (const auto tool = j.find("tool"); tool != j.end() && tool->is_object())
        info.toolVersion = fromStd(tool->value("version", std::string()));
    info.host = fromStd(j.value("host", std::string()));
    if (const auto connection = j.find("connection"); connection != j.end())
        info.connection = ConnectionInfo::fromJson(*connection);
    if (const auto io = j.find("io"); io != j.end()) // runs from before it have none
        info.io = IoInfo::fromJson(*io);
    if (const auto prompts = j.find("prompts"); prompts != j.end() && prompts->is_object()) {
        if (const auto shared = prompts->find("shared_tokens"); shared != prompts->end() && shared->is_number_integer())
            info.sharedPromptTokens =
                std::clamp<std::int64_t>(shared->get<std::int64_t>(), 0, limits::kMaxPromptTokens);
        info.saltReplayed = prompts->value("salt_replayed", json()) == json(true);
    }
    info.startedAt = QDateTime::fromString(fromStd(j.value("started_at", std::string())), Qt::ISODateWithMs);
    if (const auto clock = j.find("clock"); clock != j.end() && clock->is_object()) {
        info.monotonicOriginNs = lenientInteger(*clock, "monotonic_origin_ns");
        info.wallOriginNs = lenientInteger(*clock, "wall_origin_ns");
    }
    if (const auto shard = j.find("shard"); shard != j.end()) {
        const auto index = shard->is_object() ? shard->find("index") : shard->end();
        const auto count = shard->is_object() ? shard->find("count") : shard->end();
        const auto load = shard->is_object() ? shard->find("load") : shard->end();
        if (index == shard->end() || count == shard->end() || load == shard->end() || !index->is_number_integer() ||
            !count->is_number_integer())
            return fail(QStringLiteral("shard: needs an index, a count and the whole run's load"));
        const auto spec = ShardSpec::parse(
            QStringLiteral("%1/%2").arg(index->get<std::int64_t>()).arg(count->get<std::int64_t>()), &why);
        if (!spec)
            return fail(QStringLiteral("shard: ") + why);
        const auto whole = runConfigFromJson(json{{"load", *load}}, &why);
        if (!whole)
            return fail(QStringLiteral("shard.") + why);
        info.shard = *spec;
        info.totalLoad = whole->load;
    }
    if (const auto from = j.find("merged_from"); from != j.end() && from->is_array()) {
        for (const json &directory : *from) {
            if (directory.is_string())
                info.mergedFrom << fromStd(directory.get<std::string>());
        }
    }
    if (const auto models = j.find("models"); models != j.end()) { // runs from before mixes: the config's
        if (!models->is_array() || models->size() > std::size_t(ModelMix::kMaxModels))
            return fail(QStringLiteral("models: must be a list of at most %1 names").arg(ModelMix::kMaxModels));
        for (const json &model : *models) {
            const QString name = model.is_string() ? fromStd(model.get<std::string>()) : QString();
            if (!model.is_string() || !ModelMix::nameProblem(name).isEmpty() || info.models.contains(name))
                return fail(QStringLiteral("models: each must be a model name, once"));
            info.models << name;
        }
    }
    if (info.models.isEmpty())
        info.models = info.modelList();
    return info;
}

std::string requestsCsvHeader(const RunInfo &info)
{
    return header(kColumns.data(), info.mergedFrom.isEmpty() ? Shard : ColumnCount);
}

void appendRequestRow(std::string &out, const RequestRecord &r, const RunInfo &info)
{
    char buffer[48];
    bool first = true;
    const auto put = [&](std::string_view number) {
        appendCsvField(out, number, first);
        first = false;
    };
    const auto putText = [&](std::string_view text) {
        appendCsvText(out, text, first);
        first = false;
    };
    const auto putInt = [&](std::int64_t v) { put(integer(buffer, v)); };
    const auto putMs = [&](const std::optional<double> &v) { put(fixed(buffer, v, 3)); };
    const bool hasStage = r.stage >= 0 && r.stage < info.stages.size();
    const TokenTimeline timeline(r);

    putInt(std::int64_t(r.id));
    putText(hasStage ? toStd(info.stages[r.stage].name) : std::string(integer(buffer, r.stage)));
    put(r.warmup ? "1" : "0");
    putMs(offsetMs(r.scheduledNs));
    putMs(offsetMs(r.sentNs));
    putMs(r.ttfbMs());
    putMs(r.ttftMs());
    putMs(r.e2eMs());
    putMs(r.queueMs());
    putMs(r.tpotMs());
    putMs(timeline.itlMeanMs());
    putInt(r.chunks);
    putInt(r.promptTokens);
    putInt(r.completionTokens);
    putInt(r.cachedTokens);
    putInt(r.reasoningTokens);
    putText(tokenSourceName(r.tokenSource));
    putText(statusName(r.status));
    put(r.httpStatus > 0 ? integer(buffer, r.httpStatus) : std::string_view());
    putText(r.errorMessage.toStdString());
    putText(r.responseId.toStdString());

    putInt(r.stage);
    putText(info.config.target.displayName().toStdString());
    putText(r.finishReason.toStdString());
    put(fixed(buffer, r.retryAfterS >= 0 ? std::optional<double>(r.retryAfterS) : std::nullopt, 3));
    put(fixed(buffer, r.decodeTokensPerS(), 2));
    putMs(r.ttftFromScheduleMs());
    putMs(r.e2eFromScheduleMs());
    putMs(RequestRecord::spanMs(r.sentNs, r.firstContentNs));
    putMs(offsetMs(r.doneNs));
    putText(toStd(info.config.target.instanceUrl(r.instance)));
    putInt(r.hiddenReasoningTokens);
    put(r.httpVersion == 2 ? "2" : r.httpVersion == 1 ? "1.1" : "");
    putInt(r.redirects);
    put(r.turn > 0 ? integer(buffer, r.turn) : std::string_view());
    put(r.conversation > 0 ? integer(buffer, std::int64_t(r.conversation)) : std::string_view());
    putText(tokenSourceName(r.promptTokenSource));
    putText(cacheSourceName(r.cachedSource));
    putMs(r.blockedMs());
    putMs(r.connectMs());
    putMs(r.tlsMs());
    putMs(r.sendingMs());
    putMs(r.waitingMs());
    putMs(r.receivingMs());
    putInt(r.retries);
    put(r.unendedBody ? "1" : "0");
    put(fixed(buffer, r.redundancy >= 0 ? std::optional<double>(r.redundancy) : std::nullopt, 6));
    putText(outputCheckName(r.outputCheck));
    put(r.inputs > 0 ? integer(buffer, r.inputs) : std::string_view());
    put(r.images > 0 ? integer(buffer, r.images) : std::string_view());
    put(r.images > 0 ? integer(buffer, r.imageBytes) : std::string_view());
    put(r.imageTokens ? integer(buffer, *r.imageTokens) : std::string_view());
    putText(toStd(info.modelName(r.model)));
    // Empty for a request neither offered tools nor making calls (and in every run without --tools).
    const bool toolCalls = r.toolCalls > 0 || r.toolCallCheck != ToolCallCheck::NotAsked;
    put(toolCalls ? integer(buffer, r.toolCalls) : std::string_view());
    putMs(r.firstToolCallMs());
    putText(toolCallCheckName(r.toolCallCheck));
    put(r.toolResults > 0 ? integer(buffer, r.toolResults) : std::string_view());
    put(r.connection > 0 ? integer(buffer, std::int64_t(std::min<std::uint64_t>(
                                               r.connection, std::uint64_t(std::numeric_limits<std::int64_t>::max()))))
                         : std::string_view());
    if (!info.mergedFrom.isEmpty())
        putInt(r.shard);
    out += kCsvLineEnd;
}

bool RequestRowParser::setHeader(const std::vector<std::string> &header, QString *error)
{
    m_columns = mapColumns(header, kColumns.data(), ColumnCount, kRequiredColumns, error);
    return !m_columns.empty();
}

bool RequestRowParser::parse(const std::vector<std::string> &row, const RunInfo &info, RequestRecord *record,
                             double *itlMeanMs, QString *error) const
{
    const Fields f(row, m_columns, kColumns.data());
    RequestRecord &r = *record;
    r = RequestRecord();
    r.id = std::uint64_t(f.integer(Id));
    constexpr std::int64_t kMaxInt = std::numeric_limits<int>::max();
    if (!f.text(StageIndex).empty()) {
        r.stage = int(f.bounded(StageIndex, -1, kMaxInt));
    } else {
        const QString name = f.string(Stage);
        r.stage = 0;
        for (qsizetype i = 0; i < info.stages.size(); ++i) {
            if (info.stages[i].name == name) {
                r.stage = int(i);
                break;
            }
        }
    }
    r.warmup = f.text(Warmup) == "1" || f.text(Warmup) == "true";
    r.scheduledNs = f.ns(ScheduledMs);
    r.sentNs = f.ns(SentMs);
    r.headersNs = after(r.sentNs, f.ns(TtfbMs));
    r.firstTokenNs = after(r.sentNs, f.ns(TtftMs));
    r.firstContentNs = after(r.sentNs, f.ns(FirstContentMs));
    r.firstToolCallNs = after(r.sentNs, f.ns(FirstToolCallMs)); // runs from before tool calls: none
    const std::int64_t e2eNs = f.ns(E2eMs);
    // e2e ends at the last token when there were tokens, else at done (RequestRecord::e2eMs).
    r.doneNs = !f.text(DoneAtMs).empty() ? f.ns(DoneAtMs) : after(r.sentNs, e2eNs);
    // A row with a first token and no e2e (a damaged file) ends its tokens at done: what e2eMs()
    // reports for it, so that writing the record and reading it again gives the same record.
    // A response of tool calls alone has a last token and no first (tool-call text is not TTFT's).
    r.lastTokenNs = r.firstTokenNs < 0 && r.firstToolCallNs < 0 ? -1 : e2eNs >= 0 ? after(r.sentNs, e2eNs) : r.doneNs;
    r.chunks = int(f.bounded(Chunks, 0, kMaxInt));
    r.promptTokens = f.bounded(PromptTokens, 0, limits::kMaxTokenCount);
    r.completionTokens = f.bounded(CompletionTokens, 0, limits::kMaxTokenCount);
    r.cachedTokens = f.bounded(CachedTokens, 0, limits::kMaxTokenCount);
    r.reasoningTokens = f.bounded(ReasoningTokens, 0, limits::kMaxTokenCount);
    r.hiddenReasoningTokens = f.bounded(HiddenReasoningTokens, 0, limits::kMaxTokenCount);
    r.redirects = int(std::clamp<std::int64_t>(f.integer(Redirects), 0, limits::kMaxRedirects));
    if (const auto source = tokenSourceFromName(f.string(TokenSourceColumn)))
        r.tokenSource = *source;
    else
        f.fail(QStringLiteral("column 'token_source': unknown source '%1'").arg(f.string(TokenSourceColumn)));
    if (const auto status = statusFromName(f.string(Status)))
        r.status = *status;
    else
        f.fail(QStringLiteral("column 'status': unknown status '%1'").arg(f.string(Status)));
    r.httpStatus = int(f.bounded(HttpStatus, 0, 999));
    r.errorMessage = f.string(Error);
    r.responseId = f.string(ResponseId);
    r.finishReason = f.string(FinishReason);
    r.httpVersion = f.text(HttpVersionColumn) == "2" ? 2 : f.text(HttpVersionColumn) == "1.1" ? 1 : 0;
    r.retryAfterS = f.real(RetryAfterS).value_or(-1);
    if (f.has(PromptTokenSource)) {
        if (const auto source = tokenSourceFromName(f.string(PromptTokenSource)))
            r.promptTokenSource = *source;
        else
            f.fail(
                QStringLiteral("column 'prompt_token_source': unknown source '%1'").arg(f.string(PromptTokenSource)));
    }
    if (const auto source = cacheSourceFromName(f.string(CachedSource)))
        r.cachedSource = *source;
    else
        f.fail(QStringLiteral("column 'cached_source': unknown source '%1'").arg(f.string(CachedSource)));
    // Runs from before load balancing have no instance column: all went to the one url.
    if (f.has(Instance)) {
        const QString url = f.string(Instance);
        r.instance = url.isEmpty() ? -1 : int(info.config.target.instanceUrls().indexOf(url));
        if (!url.isEmpty() && r.instance < 0)
            f.fail(QStringLiteral("column 'instance': '%1' is not one of the run's target URLs").arg(url));
    }
    // Runs from before model mixes have no model column: all asked for the one model.
    if (f.has(ModelColumn) && !f.text(ModelColumn).empty()) {
        const QString model = f.string(ModelColumn);
        r.model = int(info.modelList().indexOf(model));
        if (r.model < 0)
            f.fail(QStringLiteral("column 'model': '%1' is not one of the run's models").arg(model.left(80)));
    }
    r.turn = int(std::clamp<std::int64_t>(f.integer(Turn), 0, limits::kMaxTurns));
    r.conversation = std::uint64_t(std::max<std::int64_t>(f.integer(Conversation), 0));
    r.shard = int(f.bounded(Shard, -1, kMaxInt, -1));
    // Runs from before request phases have none (waiting and receiving follow from the stamps).
    r.blockedNs = f.durationNs(BlockedMs);
    r.connectNs = f.durationNs(ConnectMs);
    r.tlsNs = f.durationNs(TlsMs);
    r.sendingNs = f.durationNs(SendingMs);
    r.retries = int(std::clamp<std::int64_t>(f.integer(Retries), 0, 1000));
    r.unendedBody = f.text(UnendedBody) == "1";
    r.inputs = int(f.bounded(Inputs, 0, limits::kMaxBatchSize)); // embeddings runs only
    r.images = int(f.bounded(Images, 0, limits::kMaxImages));    // runs with images only
    r.imageBytes = f.bounded(ImageBytes, 0, limits::kMaxImages * limits::kMaxImageFileBytes);
    // A server may count fewer prompt tokens than the text's: what the images cost is then negative.
    if (!f.text(ImageTokens).empty())
        r.imageTokens = f.bounded(ImageTokens, -limits::kMaxTokenCount, limits::kMaxTokenCount);
    if (const auto redundancy = f.real(Redundancy)) { // runs from before it have none
        if (*redundancy >= 0 && *redundancy <= 1)
            r.redundancy = *redundancy;
        else
            f.fail(QStringLiteral("column 'redundancy': '%1' is not from 0 to 1").arg(f.string(Redundancy).left(40)));
    }
    if (const auto check = outputCheckFromName(f.string(OutputCheckColumn))) // runs from before it: empty, None
        r.outputCheck = *check;
    else
        f.fail(QStringLiteral("column 'output_check': unknown value '%1'").arg(f.string(OutputCheckColumn).left(40)));
    r.toolCalls = int(f.bounded(ToolCallsColumn, 0, kMaxInt));
    if (const auto check = toolCallCheckFromName(f.string(ToolCallCheckColumn))) // runs from before it: empty
        r.toolCallCheck = *check;
    else
        f.fail(
            QStringLiteral("column 'tool_call_check': unknown value '%1'").arg(f.string(ToolCallCheckColumn).left(40)));
    r.toolResults = int(f.bounded(ToolResultsColumn, 0, kMaxInt)); // agent loops only
    // Empty (QNAM; runs from before it): unknown, 0.
    r.connection = std::uint64_t(f.bounded(ConnectionColumn, 1, std::numeric_limits<std::int64_t>::max()));
    *itlMeanMs = f.real(ItlMeanMs).value_or(TimeSeriesRow::kNone);
    if (!f.error().isEmpty()) {
        *error = f.error();
        return false;
    }
    return true;
}

void appendOutputLine(std::string &out, const RequestRecord &r)
{
    if (!r.ok())
        return;
    const json line{{"id", r.id}, {"text", r.output}};
    out += line.dump(-1, ' ', false, json::error_handler_t::replace);
    out += '\n';
}

void appendChunksLine(std::string &out, const RequestRecord &r)
{
    if (r.tokenChunks.empty())
        return;
    char buffer[48];
    out += "{\"id\":";
    out += integer(buffer, std::int64_t(r.id));
    out += ",\"t_us\":[";
    std::int64_t previousUs = 0;
    for (std::size_t i = 0; i < r.tokenChunks.size(); ++i) {
        // Deltas of the rounded absolute times, so reading them back accumulates no rounding.
        const std::int64_t us = std::llround(double(r.tokenChunks[i].tNs) / 1e3);
        if (i)
            out += ',';
        out += integer(buffer, us - previousUs);
        previousUs = us;
    }
    out += "],\"chars\":[";
    for (std::size_t i = 0; i < r.tokenChunks.size(); ++i) {
        if (i)
            out += ',';
        out += integer(buffer, r.tokenChunks[i].chars);
    }
    out += "]}\n";
}

bool parseChunksLine(std::string_view line, std::uint64_t *id, std::vector<ChunkStamp> *chunks, QString *error)
{
    const json j = json::parse(line.begin(), line.end(), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("id") || !j["id"].is_number_unsigned() ||
        !j.contains("t_us") || !j["t_us"].is_array() || !j.contains("chars") || !j["chars"].is_array() ||
        j["t_us"].size() != j["chars"].size()) {
        *error = QStringLiteral("not a chunk timeline {\"id\", \"t_us\", \"chars\"}");
        return false;
    }
    *id = j["id"].get<std::uint64_t>();
    chunks->clear();
    chunks->reserve(j["t_us"].size());
    std::int64_t us = 0;
    for (std::size_t i = 0; i < j["t_us"].size(); ++i) {
        const auto delta = integerIn(j["t_us"][i], -kMaxOffsetUs, kMaxOffsetUs);
        const auto chars = integerIn(j["chars"][i], 0, std::numeric_limits<std::int32_t>::max());
        if (!delta || !chars || std::abs(us + *delta) > kMaxOffsetUs) {
            *error = QStringLiteral("chunk %1 is not a time within a century of the run's start and a number of "
                                    "characters")
                         .arg(i);
            return false;
        }
        us += *delta;
        chunks->push_back({us * 1000, std::int32_t(*chars)});
    }
    return true;
}

std::string timeSeriesCsv(const std::vector<TimeSeriesRow> &rows, const QList<StageConfig> &stages)
{
    std::string out = header(kSeriesColumns.data(), SeriesColumnCount);
    char buffer[48];
    for (const TimeSeriesRow &row : rows) {
        bool first = true;
        const auto put = [&](std::string_view text) {
            appendCsvField(out, text, first);
            first = false;
        };
        const auto putInt = [&](std::int64_t v) { put(integer(buffer, v)); };
        const auto putMs = [&](double v) { put(fixed(buffer, v, 3)); };
        putInt(row.second);
        putInt(row.sent);
        putInt(row.completed);
        putInt(row.failed);
        putInt(row.inFlight);
        putInt(row.outputTokens);
        putInt(row.inputTokens);
        putMs(row.ttftP50Ms);
        putMs(row.ttftP99Ms);
        putMs(row.e2eP50Ms);
        putMs(row.e2eP99Ms);
        appendCsvText(out, row.stage >= 0 && row.stage < stages.size() ? toStd(stages[row.stage].name) : std::string());
        putInt(row.good);
        putInt(row.cancelled);
        out += kCsvLineEnd;
    }
    return out;
}

std::optional<std::vector<TimeSeriesRow>> parseTimeSeriesCsv(QByteArrayView text, const QList<StageConfig> &stages,
                                                             QString *error)
{
    CsvReader reader(text);
    std::vector<std::string> fields;
    if (!reader.next(fields)) {
        *error = QStringLiteral("no header row");
        return std::nullopt;
    }
    const std::vector<int> columns =
        mapColumns(fields, kSeriesColumns.data(), SeriesColumnCount, kRequiredSeriesColumns, error);
    if (columns.empty())
        return std::nullopt;
    std::vector<TimeSeriesRow> rows;
    while (reader.next(fields)) {
        const Fields f(fields, columns, kSeriesColumns.data());
        TimeSeriesRow row;
        row.second = int(f.integer(TS));
        row.sent = f.integer(Sent);
        row.completed = f.integer(Completed);
        row.failed = f.integer(Failed);
        row.inFlight = int(f.integer(InFlight));
        row.outputTokens = f.integer(OutputTokens);
        row.inputTokens = f.integer(InputTokens);
        row.ttftP50Ms = f.real(TtftP50).value_or(TimeSeriesRow::kNone);
        row.ttftP99Ms = f.real(TtftP99).value_or(TimeSeriesRow::kNone);
        row.e2eP50Ms = f.real(E2eP50).value_or(TimeSeriesRow::kNone);
        row.e2eP99Ms = f.real(E2eP99).value_or(TimeSeriesRow::kNone);
        const QString stage = f.string(SeriesStage);
        for (qsizetype i = 0; i < stages.size() && !stage.isEmpty() && row.stage < 0; ++i) {
            if (stages[i].name == stage)
                row.stage = int(i);
        }
        row.good = f.integer(Good);
        row.cancelled = f.integer(Cancelled);
        if (!f.error().isEmpty()) {
            *error = QStringLiteral("line %1: %2").arg(reader.line()).arg(f.error());
            return std::nullopt;
        }
        rows.push_back(row);
    }
    return rows;
}

} // namespace tb::runfiles
