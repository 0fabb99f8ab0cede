#include "sim/simconfig.h"

#include "config/enumnames.h"
#include "config/jsonreader.h"
#include "config/runconfig.h"

#include <QSet>

#include <cmath>
#include <functional>
#include <variant>
#include <vector>

namespace tb::sim {

namespace {

using Member = std::variant<double SimConfig::*, qint64 SimConfig::*, QString SimConfig::*, QStringList SimConfig::*,
                            OutputDistribution SimConfig::*, Dialect SimConfig::*>;

/// One parameter: its JSON key (the flag is the key with '-' for '_'), where it lives, its range
/// for numbers, and its help text.
struct Field {
    const char *key;
    Member member;
    double min;
    double max;
    const char *help;
};

/// JSON numbers are doubles: whole numbers above 2^53 would silently change.
constexpr double kMaxExactInteger = 9007199254740991.0;
constexpr qint64 kMinSlotContext = 16;
/// --models: as many as a TokenBench run can mix (ModelMix::kMaxModels).
constexpr qsizetype kMaxModels = 64;

const Field kFields[] = {
    {"model", &SimConfig::model, 1, 0, "Model name served (default: the preset's name)"},
    {"aliases", &SimConfig::aliases, 0, 0, "More accepted model names, comma-separated"},
    {"models", &SimConfig::models, 0, 0,
     "More models served (LoRA adapters), comma-separated: listed by /v1/models; others get OpenAI's 404"},
    {"seed", &SimConfig::seed, 0, kMaxExactInteger, "Seed for output text, lengths and faults"},
    {"ttft_ms", &SimConfig::ttftMs, 0, 3.6e6, "Fixed latency before prefill, ms"},
    {"prefill_ms_per_1k", &SimConfig::prefillMsPer1k, 0, 3.6e6, "Prefill time per 1000 uncached prompt tokens, ms"},
    {"prefill_quadratic_ms", &SimConfig::prefillQuadraticMs, 0, 3.6e6,
     "Super-linear prefill term: ms * ((prompt/1000)^2 - (cached/1000)^2)"},
    {"prefill_power_ms", &SimConfig::prefillPowerMs, 0, 3.6e6,
     "Power-law prefill term: ms * ((prompt/1000)^e - (cached/1000)^e), e = prefill_exponent"},
    {"prefill_exponent", &SimConfig::prefillExponent, 0.1, 4, "Exponent of the power-law prefill term"},
    {"step_ms", &SimConfig::stepMs, 0.001, 60000, "Decode step time with an empty batch, ms"},
    {"step_ms_per_seq", &SimConfig::stepMsPerSeq, 0, 60000, "Decode step time added per sequence in the batch, ms"},
    {"warmup_s", &SimConfig::warmupS, 0, 3600, "Cold engine: seconds from the first request until full speed"},
    {"warmup_factor", &SimConfig::warmupFactor, 1, 100,
     "Cold engine: prefill and decode this many times slower at the first request, easing to 1x over warmup_s"},
    {"max_batch", &SimConfig::maxBatch, 1, 1000000, "Sequences decoding at once; more wait in the queue"},
    {"queue_limit", &SimConfig::queueLimit, 0, 1000000, "Requests waiting for a batch slot; more get 503"},
    {"tokens_per_chunk", &SimConfig::tokensPerChunk, 1, 100000, "Tokens per SSE event after the first"},
    {"stall_every", &SimConfig::stallEvery, 0, 1e9, "Every Nth decode step of a sequence stalls stall_ms (0: never)"},
    {"stall_ms", &SimConfig::stallMs, 0, 3.6e6, "How long a stalled decode step takes longer, ms"},
    {"output_tokens", &SimConfig::outputTokens, 0, 1e7, "Mean output length, tokens"},
    {"output_ratio", &SimConfig::outputRatio, 0, 1000, "Output tokens added to the mean per prompt token"},
    {"output_dist", &SimConfig::outputDist, 0, 0, "Output length distribution: fixed|uniform|normal|exponential"},
    {"output_spread", &SimConfig::outputSpread, 0, 10, "Uniform: +-spread*mean; normal: sd = spread*mean"},
    {"output_min", &SimConfig::outputMin, 1, 1e7, "Shortest natural output, tokens"},
    {"output_max", &SimConfig::outputMax, 1, 1e7, "Longest natural output, tokens"},
    {"reasoning_ratio", &SimConfig::reasoningRatio, 0, 1, "Share of output emitted as reasoning first"},
    {"hide_reasoning", &SimConfig::hideReasoning, 0, 1,
     "1: chat hides reasoning as OpenAI's o-series (counted in usage, not streamed; max_tokens gets 400)"},
    {"prefix_cache_tokens", &SimConfig::prefixCacheTokens, 0, 1e12, "Prefix cache capacity, tokens (0: off)"},
    {"tokenizer", &SimConfig::tokenizer, 0, 0,
     "Count prompts with this tokenizer.json or .tiktoken file (default: approx)"},
    {"template_tokens", &SimConfig::templateTokens, 0, 1e6, "Tokens a chat template adds to each chat prompt"},
    {"kv_cache_tokens", &SimConfig::kvCacheTokens, 1, 1e12, "KV cache size, tokens (for /metrics' KV cache usage)"},
    {"max_model_len", &SimConfig::maxModelLen, 0, 1e9,
     "Context length /v1/models reports as vLLM's max_model_len (0: none)"},
    {"error_rate", &SimConfig::errorRate, 0, 1, "Fraction of requests answered 500"},
    {"cut_rate", &SimConfig::cutRate, 0, 1, "Fraction of responses cut mid-way"},
    {"repeat_share", &SimConfig::repeatShare, 0, 1,
     "Share of the output's word trigrams that repeat an earlier one of the same response"},
    {"invalid_json_rate", &SimConfig::invalidJsonRate, 0, 1,
     "Fraction of structured-output replies (response_format) sent as broken JSON, exactly floor(n*rate) of n"},
    {"invalid_tool_call_rate", &SimConfig::invalidToolCallRate, 0, 1,
     "Fraction of tool-call replies whose arguments are sent as broken JSON, exactly floor(n*rate) of n"},
    {"rpm_limit", &SimConfig::rpmLimit, 0, 1e12, "Requests per minute before 429 (0: none)"},
    {"tpm_limit", &SimConfig::tpmLimit, 0, 1e15, "Prompt + max_tokens per minute before 429 (0: none)"},
    {"header_delay_ms", &SimConfig::headerDelayMs, 0, 3.6e6, "Slow response headers: hold requests this long, ms"},
    {"header_delay_rate", &SimConfig::headerDelayRate, 0, 1, "Fraction of requests with slow headers"},
    {"max_body_bytes", &SimConfig::maxBodyBytes, 1024, double(1LL << 34), "Largest request body; more get 413"},
    {"idle_timeout_s", &SimConfig::idleTimeoutS, 0, 86400, "Close connections idle this long, s (0: never)"},
    {"trace_capacity", &SimConfig::traceCapacity, 0, 1e8, "Finished requests kept for /sim/requests"},
    {"max_streams", &SimConfig::maxStreams, 1, 100000, "HTTP/2: concurrent streams per connection"},
    {"close_after_stream", &SimConfig::closeAfterStream, 0, 1,
     "1: close the connection right after a streamed response despite keep-alive (llama.cpp)"},
    {"keep_alive_max", &SimConfig::keepAliveMax, 0, 1e9,
     "Requests per connection before it is closed, as Keep-Alive's max (0: no limit)"},
    {"nagle_writes", &SimConfig::nagleWrites, 0, 1,
     "1: Nagle on, the headers alone and each SSE event its own write (llama.cpp)"},
    {"listen_backlog", &SimConfig::listenBacklog, 0, 65535,
     "listen(2) backlog; llama.cpp's 5 overflows when many clients connect at once"},
    {"accept_delay_ms", &SimConfig::acceptDelayMs, 0, 60000,
     "Connections wait this long for accept(2), ms: with a small listen_backlog a burst overflows it"},
    {"tokenize_dialect", &SimConfig::tokenizeDialect, 0, 0,
     "POST /tokenize: vllm ({\"prompt\"|\"messages\"} -> count) or llamacpp ({\"content\"} -> tokens)"},
    {"slot_context", &SimConfig::slotContext, 0, 1e9,
     "Per-slot context, tokens: longer prompts are truncated as llama.cpp does (0: off)"},
    {"timings", &SimConfig::timings, 0, 1, "1: the final chunk and the body carry llama.cpp's timings"},
    {"usage_dialect", &SimConfig::usageDialect, 0, 0,
     "usage: vllm (with cached and reasoning details) or llamacpp (plain counts, in the finish chunk)"},
    {"metrics_dialect", &SimConfig::metricsDialect, 0, 0, "GET /metrics: vllm (vllm:*) or llamacpp (llamacpp:*)"},
    {"metrics_stall_while_prefilling", &SimConfig::metricsStallWhilePrefilling, 0, 1,
     "1: GET /metrics waits for a running prefill to end (llama.cpp)"},
    {"ignore_cancel", &SimConfig::ignoreCancel, 0, 1,
     "1: a request whose client left keeps its batch slot and generates to its end (capacity not freed)"},
    {"gpus", &SimConfig::gpus, 1, 64,
     "GPUs served at GET /dcgm (DCGM exporter series); the power model is shared evenly"},
    {"gpu_idle_w", &SimConfig::gpuIdleW, 0, 100000, "GET /dcgm: idle power of all GPUs together, W"},
    {"gpu_j_per_token", &SimConfig::gpuJPerToken, 0, 1e6, "GET /dcgm: energy per output token written, J"},
    {"gpu_j_per_prompt_token", &SimConfig::gpuJPerPromptToken, 0, 1e6,
     "GET /dcgm: energy per prompt token admitted, J"},
    {"gpu_memory_mib", &SimConfig::gpuMemoryMib, 1, 1e9, "GET /dcgm: each GPU's memory, MiB (90% shows as used)"},
};

constexpr EnumName<OutputDistribution> kDistNames[] = {
    {OutputDistribution::Fixed, "fixed"},
    {OutputDistribution::Uniform, "uniform"},
    {OutputDistribution::Normal, "normal"},
    {OutputDistribution::Exponential, "exponential"},
};

constexpr EnumName<Dialect> kDialectNames[] = {
    {Dialect::Vllm, "vllm"},
    {Dialect::Llamacpp, "llamacpp"},
};

/// The name table of an enum parameter and what its values are called in errors.
template<typename Enum> struct EnumTable;
template<> struct EnumTable<OutputDistribution> {
    static constexpr const auto &names = kDistNames;
    static constexpr const char *what = "distribution";
    static constexpr const char *valueName = "DIST";
};
template<> struct EnumTable<Dialect> {
    static constexpr const auto &names = kDialectNames;
    static constexpr const char *what = "dialect";
    static constexpr const char *valueName = "DIALECT";
};

const Field *findField(const QString &key)
{
    for (const Field &f : kFields) {
        if (key == QLatin1String(f.key))
            return &f;
    }
    return nullptr;
}

QString number(double v)
{
    return QString::number(v, 'g', 15);
}

/// Range check shared by JSON and text input.
bool inRange(const Field &f, double v, bool whole, QString *error)
{
    if (std::isfinite(v) && v >= f.min && v <= f.max && (!whole || std::floor(v) == v))
        return true;
    if (error)
        *error = QStringLiteral("must be %1 from %2 to %3")
                     .arg(whole ? QStringLiteral("a whole number") : QStringLiteral("a number"), number(f.min),
                          number(f.max));
    return false;
}

/// Stores a parsed value; each reader (JSON, text) only turns its input into one of these.
/// std::monostate: input of no usable type.
using Value = std::variant<std::monostate, double, QString, QStringList>;

bool assign(SimConfig &config, const Field &f, const Value &value, QString *error)
{
    return std::visit(
        [&](auto member) -> bool {
            using T = std::remove_cvref_t<decltype(config.*member)>;
            if constexpr (std::is_same_v<T, double> || std::is_same_v<T, qint64>) {
                const double *v = std::get_if<double>(&value);
                if (!v) {
                    if (error)
                        *error = QStringLiteral("must be a number");
                    return false;
                }
                if (!inRange(f, *v, std::is_same_v<T, qint64>, error))
                    return false;
                config.*member = T(*v);
            } else if constexpr (std::is_same_v<T, QString>) {
                const QString *v = std::get_if<QString>(&value);
                if (!v || double(v->trimmed().size()) < f.min) { // min 1: must not be empty
                    if (error)
                        *error = v ? QStringLiteral("must be a non-empty string") : QStringLiteral("must be a string");
                    return false;
                }
                config.*member = *v;
            } else if constexpr (std::is_same_v<T, QStringList>) {
                const QStringList *v = std::get_if<QStringList>(&value);
                if (!v) {
                    if (error)
                        *error = QStringLiteral("must be a list of names");
                    return false;
                }
                config.*member = *v;
            } else {
                using Table = EnumTable<T>;
                const QString *v = std::get_if<QString>(&value);
                const auto named = v ? enumFromName<T>(Table::names, *v) : std::nullopt;
                if (!named) {
                    if (error)
                        *error = QStringLiteral("unknown %1 (accepted: %2)")
                                     .arg(QLatin1String(Table::what), enumNames(Table::names));
                    return false;
                }
                config.*member = *named;
            }
            return true;
        },
        f.member);
}

Value valueFromJson(const nlohmann::json &v)
{
    if (v.is_number())
        return v.get<double>();
    if (v.is_string())
        return QString::fromStdString(v.get<std::string>());
    if (v.is_array()) {
        QStringList list;
        for (const auto &item : v) {
            if (!item.is_string())
                return {};
            list << QString::fromStdString(item.get<std::string>());
        }
        return list;
    }
    return {};
}

nlohmann::json valueToJson(const SimConfig &config, const Field &f)
{
    return std::visit(
        [&](auto member) -> nlohmann::json {
            using T = std::remove_cvref_t<decltype(config.*member)>;
            const T &v = config.*member;
            if constexpr (std::is_same_v<T, double> || std::is_same_v<T, qint64>)
                return v;
            else if constexpr (std::is_same_v<T, QString>)
                return v.toStdString();
            else if constexpr (std::is_same_v<T, QStringList>)
                return tb::toJson(v);
            else
                return enumCName(EnumTable<T>::names, v);
        },
        f.member);
}

QString valueName(const Field &f)
{
    return std::visit(
        [](auto member) -> QString {
            using T = std::remove_cvref_t<decltype(SimConfig().*member)>;
            if constexpr (std::is_same_v<T, double>)
                return QStringLiteral("X");
            else if constexpr (std::is_same_v<T, qint64>)
                return QStringLiteral("N");
            else if constexpr (std::is_same_v<T, QString>)
                return QStringLiteral("NAME");
            else if constexpr (std::is_same_v<T, QStringList>)
                return QStringLiteral("NAMES");
            else
                return QLatin1String(EnumTable<T>::valueName);
        },
        f.member);
}

// The presets. gpt4-like, gpt4-turbo-like and o1-preview-like mimic the seed report's table for its
// workload (640-token prompts, max_tokens 1024): mean first-token latency 1842 / 896 / 3217 ms,
// out/in token ratio 1.12 / 1.38 / 0.94, and saturated request throughput in the table's proportions
// (38.2 : 87.6 : 22.4), scaled to a tenth so that one laptop can drive each past saturation:
// max_batch / (TTFT + output * step(max_batch)) = 3.82, 8.76, 2.24 requests/s.
struct Preset {
    const char *name;
    const char *description;
    void (*apply)(SimConfig &);
};

const Preset kBasePresets[] = {
    {"default", "a mid-size model on one GPU: ~0.15 s to first token, 75-100 tokens/s per stream, batch 64",
     [](SimConfig &) {}},
    {"fast", "millisecond-scale, for tests: 1 ms to first token, 1 ms steps, 16 output tokens",
     [](SimConfig &c) {
         c.ttftMs = 1;
         c.prefillMsPer1k = 1;
         c.prefillQuadraticMs = 0;
         c.stepMs = 1;
         c.stepMsPerSeq = 0.01;
         c.maxBatch = 256;
         c.queueLimit = 4096;
         c.outputTokens = 16;
         c.outputDist = OutputDistribution::Fixed;
     }},
};

/// The report's models differ only in these numbers (output: normal, +-25%, proportional to the
/// prompt).
struct ReportModel {
    const char *name;
    const char *description;
    const char *aliases[2];
    double ttftMs;
    double prefillMsPer1k;
    double prefillQuadraticMs;
    double stepMs;
    double stepMsPerSeq;
    qint64 maxBatch;
    double outputRatio;
    double reasoningRatio;
};

const ReportModel kReportModels[] = {
    {"gpt4-like",
     "the report's GPT-4: ~1.8 s to first token, ~22-33 tokens/s, out/in 1.12",
     {"gpt-4", "gpt-4-0613"},
     1801.5,
     60,
     5,
     30,
     0.118,
     131,
     1.12,
     0},
    {"gpt4-turbo-like",
     "the report's GPT-4 Turbo (fastest): ~0.9 s to first token, ~40-66 tokens/s, out/in 1.38",
     {"gpt-4-turbo", "gpt-4-turbo-2024-04-09"},
     876,
     30,
     2,
     15,
     0.0508,
     192,
     1.38,
     0},
    {"o1-preview-like",
     "the report's o1-preview (slowest): ~3.2 s to first token, ~20-28 tokens/s, reasons first",
     {"o1-preview", "o1-preview-2024-09-12"},
     3163.3,
     80,
     6,
     35,
     0.208,
     76,
     0.94,
     0.6},
};

/// Servers whose behaviour, not only whose speed, differs from the simulator's own.
const Preset kServerPresets[] = {
    // llama-server -np 8 --metrics with a ~1B Llama-3-vocabulary model on a laptop CPU: every
    // llama.cpp behaviour on, with its defaults (httplib: backlog 5, keep-alive 5 s and 100
    // requests; 32k context over 8 slots; Llama 3's chat template adds 10 tokens to a user turn).
    {"llamacpp-like",
     "llama.cpp's llama-server -np 8 on a laptop CPU: ~2,500 prompt tokens/s, 20-30 ms steps, its quirks",
     [](SimConfig &c) {
         c.model = QStringLiteral("tiny-llama3");
         // The workbench's built-in target asks for its preset by name (llama.cpp serves any name).
         c.aliases = {QStringLiteral("llamacpp-like")};
         c.ttftMs = 15; // a first decode: the shortest prompt takes about a step
         c.prefillMsPer1k = 350;
         c.prefillQuadraticMs = 25;
         c.stepMs = 20;
         c.stepMsPerSeq = 1.25;
         c.maxBatch = 8;
         c.templateTokens = 10;
         c.prefixCacheTokens = 8 * 4096;
         c.kvCacheTokens = 8 * 4096;
         c.idleTimeoutS = 5;
         c.closeAfterStream = 1;
         c.keepAliveMax = 100;
         c.nagleWrites = 1;
         c.listenBacklog = 5;
         c.acceptDelayMs = 5; // its accept thread waits for a CPU the inference threads hold
         c.tokenizeDialect = Dialect::Llamacpp;
         c.slotContext = 4096;
         c.timings = 1;
         c.usageDialect = Dialect::Llamacpp;
         c.metricsDialect = Dialect::Llamacpp;
         c.metricsStallWhilePrefilling = 1;
     }},
};

void applyReportModel(const ReportModel &m, SimConfig &c)
{
    c.aliases = {QLatin1String(m.aliases[0]), QLatin1String(m.aliases[1])};
    c.ttftMs = m.ttftMs;
    c.prefillMsPer1k = m.prefillMsPer1k;
    c.prefillQuadraticMs = m.prefillQuadraticMs;
    c.stepMs = m.stepMs;
    c.stepMsPerSeq = m.stepMsPerSeq;
    c.maxBatch = m.maxBatch;
    c.outputTokens = 0;
    c.outputRatio = m.outputRatio;
    c.outputSpread = 0.25;
    c.reasoningRatio = m.reasoningRatio;
}

/// Every preset in the order --list-presets shows them.
struct PresetEntry {
    const char *name;
    const char *description;
    std::function<void(SimConfig &)> apply;
};

const std::vector<PresetEntry> &allPresets()
{
    static const std::vector<PresetEntry> list = [] {
        std::vector<PresetEntry> out;
        for (const Preset &p : kBasePresets)
            out.push_back({p.name, p.description, p.apply});
        for (const ReportModel &m : kReportModels)
            out.push_back({m.name, m.description, [&m](SimConfig &c) { applyReportModel(m, c); }});
        for (const Preset &p : kServerPresets)
            out.push_back({p.name, p.description, p.apply});
        return out;
    }();
    return list;
}

const PresetEntry *findPreset(const QString &name)
{
    for (const PresetEntry &p : allPresets()) {
        if (name == QLatin1String(p.name))
            return &p;
    }
    return nullptr;
}

} // namespace

QString outputDistributionName(OutputDistribution dist)
{
    return enumName(kDistNames, dist);
}

std::optional<OutputDistribution> outputDistributionFromName(const QString &name)
{
    return enumFromName<OutputDistribution>(kDistNames, name);
}

QString dialectName(Dialect dialect)
{
    return enumName(kDialectNames, dialect);
}

bool SimConfig::servesModel(const QString &name) const
{
    return name == model || aliases.contains(name) || models.contains(name);
}

QString SimConfig::validate() const
{
    if (outputMin > outputMax)
        return QStringLiteral("output_min: must not exceed output_max (%1 > %2)").arg(outputMin).arg(outputMax);
    // llama.cpp keeps 4 tokens free and cuts in blocks of half the context: below this it cannot.
    if (slotContext != 0 && slotContext < kMinSlotContext)
        return QStringLiteral("slot_context: must be 0 (off) or at least %1 (got %2)")
            .arg(kMinSlotContext)
            .arg(slotContext);
    QSet<QString> names{model};
    for (const QString &alias : aliases) {
        if (alias.trimmed().isEmpty())
            return QStringLiteral("aliases: names must not be empty");
        if (names.contains(alias))
            return QStringLiteral("aliases: '%1' is listed twice (or is the model name)").arg(alias);
        names.insert(alias);
    }
    if (models.size() > kMaxModels)
        return QStringLiteral("models: at most %1").arg(kMaxModels);
    for (const QString &served : models) {
        if (served.trimmed().isEmpty())
            return QStringLiteral("models: names must not be empty");
        if (names.contains(served))
            return QStringLiteral("models: '%1' is listed twice (or is the model name or an alias)").arg(served);
        names.insert(served);
    }
    return {};
}

nlohmann::json SimConfig::toJson() const
{
    nlohmann::json json = nlohmann::json::object();
    for (const Field &f : kFields)
        json[f.key] = valueToJson(*this, f);
    return json;
}

std::optional<SimConfig> SimConfig::fromJson(const nlohmann::json &json, QString *error, const QString &basePreset)
{
    QString problem;
    JsonReader reader(json, QString(), &problem, QStringLiteral("simulator configuration"));
    const auto failed = [&]() -> std::optional<SimConfig> {
        if (error)
            *error = problem;
        return std::nullopt;
    };
    // Unlike a run configuration's, a null here is a mistake, not "unset".
    const auto present = [&](const char *key) -> const nlohmann::json * {
        const nlohmann::json *v = reader.find(key);
        return v || !reader.ok() || !reader.has(key) ? v : &json[key];
    };

    QString presetName = QStringLiteral("default");
    if (const nlohmann::json *v = present("preset"); v && basePreset.isEmpty()) {
        if (v->is_string())
            presetName = QString::fromStdString(v->get<std::string>());
        else
            reader.fail(reader.field("preset"),
                        QStringLiteral("must be a string (accepted: %1)").arg(presetNames().join(QLatin1Char('|'))));
    }
    if (!basePreset.isEmpty())
        presetName = basePreset;
    std::optional<SimConfig> config = preset(presetName);
    if (reader.ok() && !config)
        reader.fail(
            reader.field("preset"),
            QStringLiteral("unknown preset '%1' (accepted: %2)").arg(presetName, presetNames().join(QLatin1Char('|'))));
    if (!reader.ok())
        return failed();

    for (const Field &f : kFields) {
        if (const nlohmann::json *v = present(f.key)) {
            const Value value = valueFromJson(*v);
            QString why = QStringLiteral("has the wrong type");
            if (std::holds_alternative<std::monostate>(value) || !assign(*config, f, value, &why))
                reader.fail(reader.field(f.key), why);
        }
    }
    if (!reader.finish())
        return failed();
    if (const QString invalid = config->validate(); !invalid.isEmpty()) {
        problem = invalid;
        return failed();
    }
    return config;
}

bool SimConfig::setFromText(const QString &key, const QString &text, QString *error)
{
    const Field *f = findField(key);
    if (!f) {
        if (error)
            *error = QStringLiteral("unknown parameter");
        return false;
    }
    const bool numeric = std::holds_alternative<double SimConfig::*>(f->member) ||
                         std::holds_alternative<qint64 SimConfig::*>(f->member);
    Value value = text;
    if (numeric) {
        bool ok = false;
        const double v = text.trimmed().toDouble(&ok);
        if (!ok) {
            inRange(*f, std::nan(""), std::holds_alternative<qint64 SimConfig::*>(f->member), error);
            return false;
        }
        value = v;
    } else if (std::holds_alternative<QStringList SimConfig::*>(f->member)) {
        QStringList names;
        for (const QString &name : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
            names << name.trimmed();
        value = names;
    }
    return assign(*this, *f, value, error);
}

QList<SimConfig::Parameter> SimConfig::parameters()
{
    QList<Parameter> list;
    for (const Field &f : kFields)
        list.append({QLatin1String(f.key), valueName(f), QLatin1String(f.help)});
    return list;
}

std::optional<SimConfig> SimConfig::preset(const QString &name)
{
    const PresetEntry *p = findPreset(name);
    if (!p)
        return std::nullopt;
    SimConfig config;
    config.model = name;
    p->apply(config);
    return config;
}

QStringList SimConfig::presetNames()
{
    QStringList names;
    for (const PresetEntry &p : allPresets())
        names << QLatin1String(p.name);
    return names;
}

QString SimConfig::presetDescription(const QString &name)
{
    const PresetEntry *p = findPreset(name);
    return p ? QLatin1String(p->description) : QString();
}

} // namespace tb::sim
