#include "config/runconfig.h"

#include "config/enumnames.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QUrl>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

constexpr int kFormatVersion = 1;
constexpr qint64 kDefaultRequestsPerStage = 100;

constexpr EnumName<ApiKind> kApiNames[] = {
    {ApiKind::OpenAIChat, "openai-chat"},
    {ApiKind::OpenAICompletions, "openai-completions"},
    {ApiKind::AnthropicMessages, "anthropic-messages"},
};

constexpr EnumName<Balance> kBalanceNames[] = {
    {Balance::RoundRobin, "round-robin"},
    {Balance::LeastInFlight, "least-in-flight"},
    {Balance::Random, "random"},
};

QString number(double v)
{
    return QString::number(v, 'g', 12);
}

/// Reads a JSON object strictly: every key must be consumed by a reader, or it is reported as
/// unknown. Errors carry the JSON path ("load.concurrency").
class ObjectReader
{
public:
    ObjectReader(const nlohmann::json &json, QString path, QString *error)
        : m_json(json)
        , m_path(std::move(path))
        , m_error(error)
    {
        if (!json.is_object())
            fail(m_path.isEmpty() ? QStringLiteral("configuration") : m_path, QStringLiteral("must be a JSON object"));
    }

    bool ok() const { return m_ok; }

    const nlohmann::json *find(const char *key)
    {
        m_seen << QLatin1String(key);
        if (!m_ok || !m_json.is_object())
            return nullptr;
        auto it = m_json.find(key);
        if (it == m_json.end() || it->is_null())
            return nullptr;
        return &*it;
    }

    QString field(const char *key) const
    {
        return m_path.isEmpty() ? QLatin1String(key) : m_path + QLatin1Char('.') + QLatin1String(key);
    }

    void fail(const QString &field, const QString &problem)
    {
        if (m_ok && m_error)
            *m_error = field + QStringLiteral(": ") + problem;
        m_ok = false;
    }

    void string(const char *key, QString &out)
    {
        if (const auto *v = find(key)) {
            if (v->is_string())
                out = fromStd(v->get<std::string>());
            else
                fail(field(key), QStringLiteral("must be a string"));
        }
    }

    void boolean(const char *key, bool &out)
    {
        if (const auto *v = find(key)) {
            if (v->is_boolean())
                out = v->get<bool>();
            else
                fail(field(key), QStringLiteral("must be true or false"));
        }
    }

    template<typename Int>
    void integer(const char *key, Int &out)
    {
        if (const auto *v = find(key)) {
            // Integers are read as integers: a 64-bit seed does not survive a trip through double.
            if (v->is_number_unsigned())
                out = Int(v->get<std::uint64_t>());
            else if (v->is_number_integer())
                out = Int(v->get<std::int64_t>());
            else if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>())
                out = Int(v->get<double>());
            else
                fail(field(key), QStringLiteral("must be a whole number"));
        }
    }

    void real(const char *key, double &out)
    {
        if (const auto *v = find(key)) {
            if (v->is_number())
                out = v->get<double>();
            else
                fail(field(key), QStringLiteral("must be a number"));
        }
    }

    void optionalReal(const char *key, std::optional<double> &out)
    {
        out.reset();
        if (const auto *v = find(key)) {
            if (v->is_number())
                out = v->get<double>();
            else
                fail(field(key), QStringLiteral("must be a number or null"));
        }
    }

    /// Durations: "30s"-style strings or a number of seconds.
    void duration(const char *key, qint64 &out)
    {
        if (const auto *v = find(key)) {
            std::optional<qint64> ms;
            if (v->is_number() && v->get<double>() >= 0)
                ms = qint64(std::llround(v->get<double>() * 1000.0));
            else if (v->is_string())
                ms = parseDurationMs(fromStd(v->get<std::string>()));
            if (ms)
                out = *ms;
            else
                fail(field(key), QStringLiteral("must be a duration such as \"500ms\", \"30s\", \"5m\" or a number of seconds"));
        }
    }

    void stringList(const char *key, QStringList &out)
    {
        if (const auto *v = find(key)) {
            const bool strings = v->is_array() && std::all_of(v->begin(), v->end(), [](const nlohmann::json &e) { return e.is_string(); });
            if (!strings) {
                fail(field(key), QStringLiteral("must be an array of strings"));
                return;
            }
            out.clear();
            for (const nlohmann::json &e : *v)
                out << fromStd(e.get<std::string>());
        }
    }

    template<typename Enum>
    void enumeration(const char *key, Enum &out, std::optional<Enum> (*parse)(const QString &), const QString &accepted)
    {
        if (const auto *v = find(key)) {
            std::optional<Enum> parsed;
            if (v->is_string())
                parsed = parse(fromStd(v->get<std::string>()));
            if (parsed)
                out = *parsed;
            else
                fail(field(key), QStringLiteral("unknown value %1 (accepted: %2)")
                                     .arg(fromStd(v->dump()), accepted));
        }
    }

    /// Call last: reports the first key nobody asked for.
    bool finish()
    {
        if (m_ok && m_json.is_object()) {
            for (auto it = m_json.begin(); it != m_json.end(); ++it) {
                if (!m_seen.contains(fromStd(it.key()))) {
                    fail(field(it.key().c_str()), QStringLiteral("unknown key (accepted: %1)").arg(m_seen.join(QStringLiteral(", "))));
                    break;
                }
            }
        }
        return m_ok;
    }

private:
    const nlohmann::json &m_json;
    QString m_path;
    QString *m_error;
    QStringList m_seen;
    bool m_ok = true;
};

nlohmann::json optionalToJson(const std::optional<double> &v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json durationToJson(qint64 ms)
{
    return ms > 0 ? nlohmann::json(toStd(formatDuration(ms))) : nlohmann::json();
}

bool isHttpUrl(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    return url.isValid() && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https"))
        && !url.host().isEmpty();
}

bool isValidHeaderName(const QString &name)
{
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
    return token.match(name).hasMatch();
}

} // namespace

QString apiKindName(ApiKind api)
{
    return enumName(kApiNames, api);
}

std::optional<ApiKind> apiKindFromName(const QString &name)
{
    return enumFromName<ApiKind>(kApiNames, name);
}

QString apiKindNames()
{
    return enumNames(kApiNames);
}

QString balanceName(Balance balance)
{
    return enumName(kBalanceNames, balance);
}

std::optional<Balance> balanceFromName(const QString &name)
{
    return enumFromName<Balance>(kBalanceNames, name);
}

QString balanceNames()
{
    return enumNames(kBalanceNames);
}

QString defaultApiKeyEnv(ApiKind api)
{
    return api == ApiKind::AnthropicMessages ? QStringLiteral("ANTHROPIC_API_KEY") : QStringLiteral("OPENAI_API_KEY");
}

QString TargetConfig::resolveApiKey() const
{
    if (!apiKey.isEmpty())
        return apiKey;
    const QString var = apiKeyEnv.isEmpty() ? defaultApiKeyEnv(api) : apiKeyEnv;
    return qEnvironmentVariable(var.toLocal8Bit().constData());
}

QString loadModeName(LoadMode mode)
{
    return mode == LoadMode::Rate ? QStringLiteral("rate") : QStringLiteral("concurrency");
}

QString arrivalName(Arrival arrival)
{
    return arrival == Arrival::Constant ? QStringLiteral("constant") : QStringLiteral("poisson");
}

std::optional<LoadMode> loadModeFromName(const QString &name)
{
    if (name == QLatin1String("concurrency"))
        return LoadMode::Concurrency;
    if (name == QLatin1String("rate"))
        return LoadMode::Rate;
    return std::nullopt;
}

std::optional<Arrival> arrivalFromName(const QString &name)
{
    if (name == QLatin1String("constant"))
        return Arrival::Constant;
    if (name == QLatin1String("poisson"))
        return Arrival::Poisson;
    return std::nullopt;
}

QString stageDefaultName(const StageConfig &stage)
{
    return (stage.mode == LoadMode::Rate ? QStringLiteral("r=") : QStringLiteral("c=")) + number(stage.level);
}

QList<StageConfig> effectiveStages(const LoadConfig &load)
{
    QList<StageConfig> stages = load.stages;
    if (stages.isEmpty()) {
        StageConfig only;
        only.mode = load.mode;
        only.level = load.mode == LoadMode::Rate ? load.rate : double(load.concurrency);
        stages << only;
    }
    for (StageConfig &s : stages) {
        if (s.durationMs <= 0 && s.requests <= 0) {
            s.durationMs = load.durationMs;
            s.requests = load.requests;
            if (s.durationMs <= 0 && s.requests <= 0)
                s.requests = kDefaultRequestsPerStage;
        }
        if (s.name.isEmpty())
            s.name = stageDefaultName(s);
    }
    return stages;
}

QStringList validate(const RunConfig &c)
{
    QStringList problems;
    if (c.target.url.isEmpty())
        problems << QStringLiteral("target.url (--url): missing; give the API base URL, e.g. http://127.0.0.1:8000/v1");
    else if (!isHttpUrl(c.target.url))
        problems << QStringLiteral("target.url (--url): '%1' is not an http:// or https:// URL with a host").arg(c.target.url);
    for (int i = 0; i < c.target.replicas.size(); ++i) {
        const QString &replica = c.target.replicas.at(i);
        if (!isHttpUrl(replica))
            problems << QStringLiteral("target.replicas[%1] (--url): '%2' is not an http:// or https:// URL with a host").arg(i).arg(replica);
        else if (c.target.instanceUrls().indexOf(replica) != i + 1)
            problems << QStringLiteral("target.replicas[%1] (--url): '%2' is listed twice; each instance once").arg(i).arg(replica);
    }
    if (c.target.model.trimmed().isEmpty())
        problems << QStringLiteral("target.model (--model): missing; name the model to request");
    for (const Header &h : c.target.headers) {
        if (!isValidHeaderName(h.name))
            problems << QStringLiteral("target.headers (--header): '%1' is not a valid header name").arg(h.name);
    }
    if (!c.target.caCertificate.isEmpty() && !QFileInfo(c.target.caCertificate).isReadable())
        problems << QStringLiteral("target.ca_cert (--ca-cert): cannot read '%1'").arg(c.target.caCertificate);
    if (const QString &t = c.target.tokenizer;
        !t.isEmpty() && t != QLatin1String("approx") && t != QLatin1String("server") && !QFileInfo(t).isReadable())
        problems << QStringLiteral("target.tokenizer (--tokenizer): cannot read '%1' (accepted: approx, server, a "
                                   "tokenizer.json or .tiktoken file, or a model folder)")
                        .arg(t);
    if (!c.target.extraBody.is_object())
        problems << QStringLiteral("target.extra_body: must be a JSON object");

    if (c.request.maxTokens < 1)
        problems << QStringLiteral("request.max_tokens (--max-tokens): must be at least 1 (got %1)").arg(c.request.maxTokens);
    if (c.request.temperature && (*c.request.temperature < 0 || *c.request.temperature > 2))
        problems << QStringLiteral("request.temperature (--temperature): must be between 0 and 2 (got %1)").arg(number(*c.request.temperature));
    if (c.request.topP && (*c.request.topP <= 0 || *c.request.topP > 1))
        problems << QStringLiteral("request.top_p (--top-p): must be in (0, 1] (got %1)").arg(number(*c.request.topP));

    if (c.prompt.promptTokens < 0)
        problems << QStringLiteral("prompt.prompt_tokens (--prompt-tokens): must be 0 or more (got %1)").arg(c.prompt.promptTokens);
    if (c.prompt.systemTokens < 0)
        problems << QStringLiteral("prompt.system_tokens (--system-tokens): must be 0 or more (got %1)").arg(c.prompt.systemTokens);
    if (c.prompt.sharedPrefixTokens < 0 || (c.prompt.promptTokens > 0 && c.prompt.sharedPrefixTokens > c.prompt.promptTokens))
        problems << QStringLiteral("prompt.shared_prefix_tokens: must be between 0 and prompt_tokens (got %1)").arg(c.prompt.sharedPrefixTokens);
    if (!c.prompt.promptFile.isEmpty()) {
        const QFileInfo info(c.prompt.promptFile);
        if (!info.isFile() || !info.isReadable())
            problems << QStringLiteral("prompt.prompt_file (--prompt-file): cannot read '%1'").arg(c.prompt.promptFile);
    }

    const LoadConfig &l = c.load;
    if (l.stages.isEmpty()) {
        if (l.mode == LoadMode::Concurrency && l.concurrency < 1)
            problems << QStringLiteral("load.concurrency (--concurrency): must be at least 1 (got %1)").arg(l.concurrency);
        if (l.mode == LoadMode::Rate && !(l.rate > 0))
            problems << QStringLiteral("load.rate (--rate): must be greater than 0 requests/s (got %1)").arg(number(l.rate));
    }
    for (int i = 0; i < l.stages.size(); ++i) {
        const StageConfig &s = l.stages.at(i);
        const QString where = QStringLiteral("load.stages[%1] (--stages)").arg(i);
        if (!(s.level > 0))
            problems << QStringLiteral("%1: level must be greater than 0 (got %2)").arg(where, number(s.level));
        if (s.mode == LoadMode::Concurrency && s.level != std::floor(s.level))
            problems << QStringLiteral("%1: concurrency must be a whole number of users (got %2)").arg(where, number(s.level));
        if (s.durationMs < 0 || s.requests < 0)
            problems << QStringLiteral("%1: duration and requests must not be negative").arg(where);
    }
    if (l.maxInFlight < 0)
        problems << QStringLiteral("load.max_in_flight (--max-in-flight): must be 0 (no cap) or more (got %1)").arg(l.maxInFlight);
    if (l.requests < 0)
        problems << QStringLiteral("load.requests (--requests): must be 0 or more (got %1)").arg(l.requests);
    if (l.durationMs < 0)
        problems << QStringLiteral("load.duration (--duration): must not be negative");
    if (l.warmupMs < 0 || l.warmupRequests < 0)
        problems << QStringLiteral("load.warmup (--warmup): must not be negative");
    if (l.timeoutMs <= 0)
        problems << QStringLiteral("load.timeout (--timeout): must be greater than 0");

    const auto checkSlo = [&problems](const std::optional<double> &v, const char *name) {
        if (v && !(*v > 0))
            problems << QStringLiteral("slo.%1 (--slo): must be greater than 0 ms (got %2)").arg(QLatin1String(name), number(*v));
    };
    checkSlo(c.slo.ttftMs, "ttft_ms");
    checkSlo(c.slo.tpotMs, "tpot_ms");
    checkSlo(c.slo.e2eMs, "e2e_ms");
    if (!(c.slo.target > 0 && c.slo.target <= 1))
        problems << QStringLiteral("slo.target (--slo-target): must be in (0, 1] (got %1)").arg(number(c.slo.target));
    return problems;
}

nlohmann::json toJson(const TargetConfig &t)
{
    nlohmann::json headers = nlohmann::json::object();
    for (const Header &h : t.headers)
        headers[toStd(h.name)] = toStd(h.value);
    nlohmann::json replicas = nlohmann::json::array();
    for (const QString &r : t.replicas)
        replicas.push_back(toStd(r));
    return {
        {"name", toStd(t.name)},
        {"api", toStd(apiKindName(t.api))},
        {"url", toStd(t.url)},
        {"replicas", replicas},
        {"balance", toStd(balanceName(t.balance))},
        {"model", toStd(t.model)},
        {"api_key_env", toStd(t.apiKeyEnv)},
        {"headers", headers},
        {"extra_body", t.extraBody},
        {"tls_verify", t.tlsVerify},
        {"ca_cert", toStd(t.caCertificate)},
        {"tokenizer", t.tokenizer.isEmpty() ? nlohmann::json() : nlohmann::json(toStd(t.tokenizer))},
    };
}

nlohmann::json toJson(const RunConfig &c)
{
    nlohmann::json variables = nlohmann::json::object();
    for (auto it = c.prompt.variables.cbegin(); it != c.prompt.variables.cend(); ++it)
        variables[toStd(it.key())] = toStd(it.value());
    nlohmann::json stages = nlohmann::json::array();
    for (const StageConfig &s : c.load.stages) {
        stages.push_back({{"name", toStd(s.name)},
                          {"mode", toStd(loadModeName(s.mode))},
                          {"level", s.level},
                          {"duration", durationToJson(s.durationMs)},
                          {"requests", s.requests}});
    }
    return {
        {"format", "tokenbench-config"},
        {"version", kFormatVersion},
        {"target", toJson(c.target)},
        {"request",
         {{"max_tokens", c.request.maxTokens},
          {"temperature", optionalToJson(c.request.temperature)},
          {"top_p", optionalToJson(c.request.topP)},
          {"stream", c.request.stream}}},
        {"prompt",
         {{"prompt_tokens", c.prompt.promptTokens},
          {"system_tokens", c.prompt.systemTokens},
          {"shared_prefix_tokens", c.prompt.sharedPrefixTokens},
          {"prompt_file", toStd(c.prompt.promptFile)},
          {"calibrate", c.prompt.calibrate},
          {"system", toStd(c.prompt.systemTemplate)},
          {"user", toStd(c.prompt.userTemplate)},
          {"variables", variables}}},
        {"load",
         {{"mode", toStd(loadModeName(c.load.mode))},
          {"concurrency", c.load.concurrency},
          {"rate", c.load.rate},
          {"arrival", toStd(arrivalName(c.load.arrival))},
          {"max_in_flight", c.load.maxInFlight},
          {"stages", stages},
          {"requests", c.load.requests},
          {"duration", durationToJson(c.load.durationMs)},
          {"warmup_duration", durationToJson(c.load.warmupMs)},
          {"warmup_requests", c.load.warmupRequests},
          {"timeout", durationToJson(c.load.timeoutMs)},
          {"seed", c.load.seed}}},
        {"slo",
         {{"ttft_ms", optionalToJson(c.slo.ttftMs)},
          {"tpot_ms", optionalToJson(c.slo.tpotMs)},
          {"e2e_ms", optionalToJson(c.slo.e2eMs)},
          {"target", c.slo.target},
          {"fail_on_slo", c.slo.failOnSlo}}},
        {"out", toStd(c.outDir)},
    };
}

std::optional<TargetConfig> targetFromJson(const nlohmann::json &json, QString *error)
{
    TargetConfig t;
    ObjectReader r(json, QStringLiteral("target"), error);
    r.string("name", t.name);
    r.enumeration("api", t.api, &apiKindFromName, apiKindNames());
    r.string("url", t.url);
    r.stringList("replicas", t.replicas);
    r.enumeration("balance", t.balance, &balanceFromName, balanceNames());
    r.string("model", t.model);
    r.string("api_key_env", t.apiKeyEnv);
    if (const auto *headers = r.find("headers")) {
        if (!headers->is_object())
            r.fail(r.field("headers"), QStringLiteral("must be an object of \"Name\": \"value\" pairs"));
        else {
            for (auto it = headers->begin(); it != headers->end(); ++it) {
                if (!it->is_string()) {
                    r.fail(r.field("headers") + QLatin1Char('.') + fromStd(it.key()), QStringLiteral("must be a string"));
                    break;
                }
                t.headers.append({fromStd(it.key()), fromStd(it->get<std::string>())});
            }
        }
    }
    if (const auto *extra = r.find("extra_body")) {
        if (extra->is_object())
            t.extraBody = *extra;
        else
            r.fail(r.field("extra_body"), QStringLiteral("must be a JSON object"));
    }
    r.boolean("tls_verify", t.tlsVerify);
    r.string("ca_cert", t.caCertificate);
    r.string("tokenizer", t.tokenizer);
    // A key in a config file would be a secret on disk: refuse it and say where keys go.
    if (r.find("api_key"))
        r.fail(r.field("api_key"), QStringLiteral("API keys are never read from files; set api_key_env to the name of an environment variable"));
    if (!r.finish())
        return std::nullopt;
    return t;
}

std::optional<RunConfig> runConfigFromJson(const nlohmann::json &json, QString *error)
{
    RunConfig c;
    ObjectReader top(json, QString(), error);
    QString format;
    top.string("format", format);
    if (!format.isEmpty() && format != QLatin1String("tokenbench-config"))
        top.fail(QStringLiteral("format"), QStringLiteral("'%1' is not a TokenBench configuration (expected \"tokenbench-config\")").arg(format));
    int version = kFormatVersion;
    top.integer("version", version);
    if (version > kFormatVersion)
        top.fail(QStringLiteral("version"), QStringLiteral("written by a newer TokenBench (format %1; this one reads up to %2)").arg(version).arg(kFormatVersion));
    if (const auto *target = top.find("target"); target && top.ok()) {
        if (auto t = targetFromJson(*target, error))
            c.target = *t;
        else
            return std::nullopt;
    }
    if (const auto *request = top.find("request"); request && top.ok()) {
        ObjectReader r(*request, QStringLiteral("request"), error);
        r.integer("max_tokens", c.request.maxTokens);
        r.optionalReal("temperature", c.request.temperature);
        r.optionalReal("top_p", c.request.topP);
        r.boolean("stream", c.request.stream);
        // Before tokenizers were per target, request.tokenizer could say "approx".
        QString legacy;
        r.string("tokenizer", legacy);
        if (!legacy.isEmpty() && legacy != QLatin1String("approx"))
            r.fail(r.field("tokenizer"), QStringLiteral("'%1': set target.tokenizer instead").arg(legacy));
        else if (c.target.tokenizer.isEmpty())
            c.target.tokenizer = legacy;
        if (!r.finish())
            return std::nullopt;
    }
    if (const auto *prompt = top.find("prompt"); prompt && top.ok()) {
        ObjectReader r(*prompt, QStringLiteral("prompt"), error);
        r.integer("prompt_tokens", c.prompt.promptTokens);
        r.integer("system_tokens", c.prompt.systemTokens);
        r.integer("shared_prefix_tokens", c.prompt.sharedPrefixTokens);
        r.string("prompt_file", c.prompt.promptFile);
        r.boolean("calibrate", c.prompt.calibrate);
        r.string("system", c.prompt.systemTemplate);
        r.string("user", c.prompt.userTemplate);
        if (const auto *vars = r.find("variables")) {
            if (!vars->is_object())
                r.fail(r.field("variables"), QStringLiteral("must be an object of \"name\": \"value\" pairs"));
            else {
                for (auto it = vars->begin(); it != vars->end(); ++it) {
                    if (it->is_string())
                        c.prompt.variables.insert(fromStd(it.key()), fromStd(it->get<std::string>()));
                    else
                        c.prompt.variables.insert(fromStd(it.key()), fromStd(it->dump()));
                }
            }
        }
        if (!r.finish())
            return std::nullopt;
    }
    if (const auto *load = top.find("load"); load && top.ok()) {
        ObjectReader r(*load, QStringLiteral("load"), error);
        const QString modes = QStringLiteral("concurrency|rate");
        r.enumeration("mode", c.load.mode, &loadModeFromName, modes);
        r.integer("concurrency", c.load.concurrency);
        r.real("rate", c.load.rate);
        r.enumeration("arrival", c.load.arrival, &arrivalFromName, QStringLiteral("constant|poisson"));
        r.integer("max_in_flight", c.load.maxInFlight);
        if (const auto *stages = r.find("stages")) {
            if (!stages->is_array())
                r.fail(r.field("stages"), QStringLiteral("must be an array of stages"));
            else {
                for (size_t i = 0; i < stages->size() && r.ok(); ++i) {
                    StageConfig s;
                    ObjectReader sr((*stages)[i], QStringLiteral("load.stages[%1]").arg(i), error);
                    sr.string("name", s.name);
                    sr.enumeration("mode", s.mode, &loadModeFromName, modes);
                    sr.real("level", s.level);
                    sr.duration("duration", s.durationMs);
                    sr.integer("requests", s.requests);
                    if (!sr.finish())
                        return std::nullopt;
                    c.load.stages << s;
                }
            }
        }
        r.integer("requests", c.load.requests);
        r.duration("duration", c.load.durationMs);
        r.duration("warmup_duration", c.load.warmupMs);
        r.integer("warmup_requests", c.load.warmupRequests);
        r.duration("timeout", c.load.timeoutMs);
        r.integer("seed", c.load.seed);
        if (!r.finish())
            return std::nullopt;
    }
    if (const auto *slo = top.find("slo"); slo && top.ok()) {
        ObjectReader r(*slo, QStringLiteral("slo"), error);
        r.optionalReal("ttft_ms", c.slo.ttftMs);
        r.optionalReal("tpot_ms", c.slo.tpotMs);
        r.optionalReal("e2e_ms", c.slo.e2eMs);
        r.real("target", c.slo.target);
        r.boolean("fail_on_slo", c.slo.failOnSlo);
        if (!r.finish())
            return std::nullopt;
    }
    top.string("out", c.outDir);
    if (!top.finish())
        return std::nullopt;
    return c;
}

std::optional<RunConfig> loadRunConfig(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read '%1': %2").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    nlohmann::json json = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (json.is_discarded()) {
        if (error)
            *error = QStringLiteral("'%1' is not valid JSON").arg(path);
        return std::nullopt;
    }
    QString why;
    auto config = runConfigFromJson(json, &why);
    if (!config && error)
        *error = QStringLiteral("%1: %2").arg(path, why);
    return config;
}

bool saveRunConfig(const RunConfig &config, const QString &path, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write '%1': %2").arg(path, file.errorString());
        return false;
    }
    const std::string text = toJson(config).dump(2) + "\n";
    file.write(text.data(), qint64(text.size()));
    if (!file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write '%1': %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

std::optional<qint64> parseDurationMs(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min|h)?\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const double value = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    double factor = 1000.0;
    if (unit == QLatin1String("ms"))
        factor = 1.0;
    else if (unit == QLatin1String("m") || unit == QLatin1String("min"))
        factor = 60000.0;
    else if (unit == QLatin1String("h"))
        factor = 3600000.0;
    return qint64(std::llround(value * factor));
}

QString formatDuration(qint64 ms)
{
    if (ms != 0 && ms % 3600000 == 0)
        return QString::number(ms / 3600000) + QLatin1Char('h');
    if (ms != 0 && ms % 60000 == 0)
        return QString::number(ms / 60000) + QLatin1Char('m');
    if (ms % 1000 == 0)
        return QString::number(ms / 1000) + QLatin1Char('s');
    return QString::number(ms) + QStringLiteral("ms");
}

namespace {

/// A stage's end after ':' in --stages and --sweep: a request count ("200") or a duration ("30s").
bool parseStageEnd(const QString &text, StageConfig &stage)
{
    bool isCount = false;
    const qint64 count = text.toLongLong(&isCount);
    if (isCount) {
        stage.requests = count;
        return true;
    }
    const auto ms = parseDurationMs(text);
    if (ms)
        stage.durationMs = *ms;
    return ms.has_value();
}

} // namespace

std::optional<QList<StageConfig>> parseStages(const QString &spec, QString *error)
{
    static const QRegularExpression re(QStringLiteral("^\\s*([cr])\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*(?::\\s*([^:]+?)\\s*)?$"));
    const auto fail = [error, &spec](const QString &why) {
        if (error)
            *error = QStringLiteral("malformed stages '%1': %2 (expected e.g. \"c=50:30s,c=100:30s\" or "
                                    "\"r=20:60s,r=100:500\"; c= users, r= requests/s, after ':' a duration or a request count)")
                         .arg(spec, why);
        return std::nullopt;
    };
    QList<StageConfig> stages;
    const QStringList parts = spec.split(QLatin1Char(','));
    for (const QString &part : parts) {
        const auto m = re.match(part);
        if (!m.hasMatch())
            return fail(QStringLiteral("cannot read '%1'").arg(part.trimmed()));
        StageConfig s;
        s.mode = m.captured(1) == QLatin1String("r") ? LoadMode::Rate : LoadMode::Concurrency;
        s.level = m.captured(2).toDouble();
        if (const QString end = m.captured(3); !end.isEmpty() && !parseStageEnd(end, s))
            return fail(QStringLiteral("'%1' is neither a duration nor a request count").arg(end));
        stages << s;
    }
    return stages;
}

std::optional<QList<StageConfig>> parseSweep(const QString &spec, QString *error)
{
    static const QRegularExpression re(QStringLiteral(
        "^\\s*([cr])\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*\\.\\.\\s*(\\d+(?:\\.\\d+)?)\\s*(?:x\\s*(\\d+))?\\s*(?::\\s*(\\S+)\\s*)?$"));
    constexpr int kMaxLevels = 50;
    const auto fail = [error, &spec](const QString &why) {
        if (error)
            *error = QStringLiteral("malformed sweep '%1': %2 (expected e.g. \"c=1..256\" (doubling), \"c=8..128x5\" or "
                                    "\"r=2..50x6:60s\": c= users, r= requests/s, FROM..TO, xN levels, after ':' a duration "
                                    "or a request count per stage)")
                         .arg(spec, why);
        return std::nullopt;
    };
    const auto m = re.match(spec);
    if (!m.hasMatch())
        return fail(QStringLiteral("cannot read it"));
    const LoadMode mode = m.captured(1) == QLatin1String("r") ? LoadMode::Rate : LoadMode::Concurrency;
    const double from = m.captured(2).toDouble();
    const double to = m.captured(3).toDouble();
    if (!(from > 0) || !(to > from))
        return fail(QStringLiteral("the levels must rise from a level above 0"));
    std::vector<double> levels;
    if (m.captured(4).isEmpty()) {
        for (double level = from; level < to && int(levels.size()) < kMaxLevels; level *= 2)
            levels.push_back(level);
        levels.push_back(to);
    } else {
        const int n = m.captured(4).toInt();
        if (n < 2 || n > kMaxLevels)
            return fail(QStringLiteral("x%1: between 2 and %2 levels").arg(n).arg(kMaxLevels));
        for (int i = 0; i < n; ++i)
            levels.push_back(from * std::pow(to / from, double(i) / double(n - 1)));
    }
    StageConfig end;
    if (const QString text = m.captured(5); !text.isEmpty() && !parseStageEnd(text, end))
        return fail(QStringLiteral("'%1' is neither a duration nor a request count").arg(text));
    QList<StageConfig> stages;
    for (double level : levels) {
        level = mode == LoadMode::Concurrency ? std::round(level) : QString::number(level, 'g', 3).toDouble();
        if (!stages.isEmpty() && stages.constLast().level >= level)
            continue;
        StageConfig s = end;
        s.mode = mode;
        s.level = level;
        stages << s;
    }
    if (stages.size() < 2)
        return fail(QStringLiteral("it gives fewer than 2 distinct levels"));
    return stages;
}

QString formatStages(const QList<StageConfig> &stages)
{
    QStringList parts;
    for (const StageConfig &s : stages) {
        QString part = stageDefaultName(s);
        if (s.durationMs > 0)
            part += QLatin1Char(':') + formatDuration(s.durationMs);
        else if (s.requests > 0)
            part += QLatin1Char(':') + QString::number(s.requests);
        parts << part;
    }
    return parts.join(QLatin1Char(','));
}

std::optional<SloConfig> parseSlo(const QString &spec, QString *error)
{
    SloConfig slo;
    for (const QString &part : spec.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const int eq = part.indexOf(QLatin1Char('='));
        const QString key = part.left(eq).trimmed();
        bool ok = false;
        const double value = eq > 0 ? part.mid(eq + 1).trimmed().toDouble(&ok) : 0.0;
        std::optional<double> *slot = nullptr;
        if (key == QLatin1String("ttft_ms"))
            slot = &slo.ttftMs;
        else if (key == QLatin1String("tpot_ms"))
            slot = &slo.tpotMs;
        else if (key == QLatin1String("e2e_ms"))
            slot = &slo.e2eMs;
        if (!slot || !ok || !(value > 0)) {
            if (error)
                *error = QStringLiteral("malformed SLO '%1' (expected e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000; keys: "
                                        "ttft_ms, tpot_ms, e2e_ms; values > 0)")
                             .arg(part.trimmed());
            return std::nullopt;
        }
        *slot = value;
    }
    return slo;
}

std::optional<Header> parseHeader(const QString &text, QString *error)
{
    const int colon = text.indexOf(QLatin1Char(':'));
    const QString name = text.left(colon).trimmed();
    if (colon <= 0 || !isValidHeaderName(name)) {
        if (error)
            *error = QStringLiteral("malformed header '%1' (expected 'Name: value')").arg(text);
        return std::nullopt;
    }
    return Header{name, text.mid(colon + 1).trimmed()};
}

} // namespace tb
