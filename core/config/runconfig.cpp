#include "config/runconfig.h"

#include "config/enumnames.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSslCertificate>
#include <QThread>
#include <QUrl>

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tb {

namespace {

constexpr int kFormatVersion = 1;
constexpr qint64 kDefaultRequestsPerStage = 100;

constexpr EnumName<ApiKind> kApiNames[] = {
    {ApiKind::OpenAIChat, "openai-chat"},
    {ApiKind::OpenAICompletions, "openai-completions"},
    {ApiKind::AnthropicMessages, "anthropic-messages"},
    {ApiKind::OpenAIResponses, "openai-responses"},
};

constexpr EnumName<Balance> kBalanceNames[] = {
    {Balance::RoundRobin, "round-robin"},
    {Balance::LeastInFlight, "least-in-flight"},
    {Balance::Random, "random"},
};

constexpr EnumName<MaxTokensField> kMaxTokensFieldNames[] = {
    {MaxTokensField::Auto, "auto"},
    {MaxTokensField::MaxTokens, "max_tokens"},
    {MaxTokensField::MaxCompletionTokens, "max_completion_tokens"},
};

QString number(double v)
{
    return QString::number(v, 'g', 12);
}

/// A JSON value quoted in a message: short, whatever was written.
QString shown(const nlohmann::json &v)
{
    QString text = fromStd(v.dump());
    if (text.size() > 40)
        text = text.left(39) + QChar(0x2026);
    return text;
}

/// Descriptors a run holds besides its sockets: the worker threads' event descriptors (epoll,
/// wake-ups), files it writes, and a margin for Qt and the tokenizer.
constexpr qint64 kFilesPerWorker = 4;
constexpr qint64 kReservedFiles = 64;

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

    /// A whole number in [minimum, maximum]; anything else (a fraction, a value the type cannot
    /// hold) is an error, never a wrapped-around value.
    template<typename Int>
    void integer(const char *key, Int &out, Int minimum = std::numeric_limits<Int>::min(),
                 Int maximum = std::numeric_limits<Int>::max())
    {
        const auto *v = find(key);
        if (!v)
            return;
        // Integers are read as integers: a 64-bit seed does not survive a trip through double.
        std::optional<Int> value;
        if (v->is_number_unsigned()) {
            if (const auto u = v->get<std::uint64_t>(); std::in_range<Int>(u))
                value = Int(u);
        } else if (v->is_number_integer()) {
            if (const auto i = v->get<std::int64_t>(); std::in_range<Int>(i))
                value = Int(i);
        } else if (v->is_number_float()) {
            // Beyond 2^53 a double is no longer the number that was written.
            const double d = v->get<double>();
            if (std::floor(d) == d && std::abs(d) <= 9007199254740992.0 && std::in_range<Int>(std::int64_t(d)))
                value = Int(std::int64_t(d));
        }
        if (value && *value >= minimum && *value <= maximum)
            out = *value;
        else
            fail(field(key), QStringLiteral("must be a whole number from %1 to %2 (got %3)")
                                 .arg(minimum)
                                 .arg(maximum)
                                 .arg(shown(*v)));
    }

    void real(const char *key, double &out)
    {
        if (const auto *v = find(key)) {
            if (v->is_number() && std::isfinite(v->get<double>()))
                out = v->get<double>();
            else
                fail(field(key), QStringLiteral("must be a finite number (got %1)").arg(shown(*v)));
        }
    }

    void optionalReal(const char *key, std::optional<double> &out)
    {
        out.reset();
        if (const auto *v = find(key)) {
            if (v->is_number() && std::isfinite(v->get<double>()))
                out = v->get<double>();
            else
                fail(field(key), QStringLiteral("must be a finite number or null (got %1)").arg(shown(*v)));
        }
    }

    /// Durations: "30s"-style strings or a number of seconds, at most limits::kMaxDurationMs;
    /// `positive`: 0 is refused (null is how "not set" is written).
    void duration(const char *key, qint64 &out, bool positive)
    {
        if (const auto *v = find(key)) {
            std::optional<qint64> ms;
            if (v->is_number()) {
                const double s = v->get<double>();
                if (s >= 0 && s * 1000.0 <= double(limits::kMaxDurationMs))
                    ms = qint64(std::llround(s * 1000.0));
            } else if (v->is_string()) {
                ms = parseDurationMs(fromStd(v->get<std::string>()));
            }
            if (ms && (!positive || *ms > 0))
                out = *ms;
            else
                fail(field(key),
                     QStringLiteral("must be a duration such as \"500ms\", \"30s\", \"5m\" or a number of seconds, "
                                    "%1at most %2 (got %3)")
                         .arg(positive ? QStringLiteral("above 0 and ") : QString(),
                              formatDuration(limits::kMaxDurationMs), shown(*v)));
        }
    }

    void stringList(const char *key, QStringList &out)
    {
        if (const auto *v = find(key)) {
            const bool strings = v->is_array() && std::all_of(v->begin(), v->end(),
                                                              [](const nlohmann::json &e) { return e.is_string(); });
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
                fail(field(key), QStringLiteral("unknown value %1 (accepted: %2)").arg(fromStd(v->dump()), accepted));
        }
    }

    /// Call last: reports the first key nobody asked for.
    bool finish()
    {
        if (m_ok && m_json.is_object()) {
            for (auto it = m_json.begin(); it != m_json.end(); ++it) {
                if (!m_seen.contains(fromStd(it.key()))) {
                    fail(field(it.key().c_str()),
                         QStringLiteral("unknown key (accepted: %1)").arg(m_seen.join(QStringLiteral(", "))));
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
    return url.isValid() && (url.scheme() == QLatin1String("http") || url.scheme() == QLatin1String("https")) &&
           !url.host().isEmpty();
}

bool isValidHeaderName(const QString &name)
{
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
    return token.match(name).hasMatch();
}

/// Why a header value cannot go on the wire as given; empty when it can. CR and LF would end the
/// header and start another (header injection); other control characters are refused by servers.
QString headerValueProblem(const QString &value)
{
    for (const QChar c : value) {
        if (c == QLatin1Char('\r') || c == QLatin1Char('\n'))
            return QStringLiteral("contains a line break (CR or LF): one header per --header");
        if ((c.unicode() < 0x20 && c != QLatin1Char('\t')) || c.unicode() == 0x7f)
            return QStringLiteral("contains a control character (U+%1)").arg(c.unicode(), 4, 16, QLatin1Char('0'));
    }
    return {};
}

/// Headers the engine writes itself (message framing, the connection): a second copy from the user
/// would make the request ambiguous, so they are refused.
bool isEngineOwnedHeader(const QString &name)
{
    static const QStringList owned{
        QStringLiteral("host"),       QStringLiteral("content-length"), QStringLiteral("transfer-encoding"),
        QStringLiteral("connection"), QStringLiteral("keep-alive"),     QStringLiteral("upgrade"),
        QStringLiteral("te"),         QStringLiteral("trailer"),        QStringLiteral("expect")};
    return owned.contains(name.toLower());
}

/// Nesting deeper than `limit` below `json` (stops descending there, so it cannot overflow).
bool nestsDeeperThan(const nlohmann::json &json, int limit)
{
    if (!json.is_structured())
        return false;
    if (limit <= 0)
        return true;
    return std::any_of(json.begin(), json.end(),
                       [limit](const nlohmann::json &child) { return nestsDeeperThan(child, limit - 1); });
}

/// First pass over JSON text: checks nesting before a tree is built (nlohmann's parser itself is
/// iterative, but copying, comparing or dumping a deep tree recurses). Names the key where it is
/// too deep by its first two levels ("target.extra_body").
class DepthCheck final : public nlohmann::json_sax<nlohmann::json>
{
public:
    QString error;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override { return enter(); }
    bool end_object() override { return leave(); }
    bool start_array(std::size_t) override { return enter(); }
    bool end_array() override { return leave(); }
    bool key(string_t &key) override
    {
        if (!m_keys.empty())
            m_keys.back() = key;
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) override
    {
        // The parser's own words say where it stopped; drop its "[json.exception…] " prefix.
        QString why = QString::fromUtf8(e.what());
        error = QStringLiteral("not valid JSON: %1").arg(why.mid(why.indexOf(QStringLiteral("] ")) + 2));
        return false;
    }

private:
    bool enter()
    {
        if (int(m_keys.size()) >= limits::kMaxJsonDepth) {
            QStringList path;
            for (const std::string &k : m_keys) {
                if (!k.empty() && path.size() < 2)
                    path << fromStd(k);
            }
            error = (path.isEmpty() ? QString() : path.join(QLatin1Char('.')) + QStringLiteral(": ")) +
                    QStringLiteral("nests deeper than %1 levels").arg(limits::kMaxJsonDepth);
            return false;
        }
        m_keys.emplace_back();
        return true;
    }
    bool leave()
    {
        m_keys.pop_back();
        return true;
    }

    std::vector<std::string> m_keys;
};

/// Why a header cannot be sent as configured; empty when it can.
QString headerProblem(const Header &h)
{
    if (!isValidHeaderName(h.name))
        return QStringLiteral("is not a valid header name");
    if (isEngineOwnedHeader(h.name))
        return QStringLiteral(
            "is one TokenBench sets itself (Host, Content-Length, Transfer-Encoding, Connection, Keep-Alive, "
            "Upgrade, TE, Trailer, Expect): it cannot be given");
    if (h.name.size() + h.value.size() > limits::kMaxHeaderBytes)
        return QStringLiteral("is longer than %1 bytes").arg(limits::kMaxHeaderBytes);
    if (const QString problem = headerValueProblem(h.value); !problem.isEmpty())
        return QStringLiteral("has a value that ") + problem;
    if (h.value == QLatin1String(kRedacted))
        return QStringLiteral("has no value: credentials are never saved; give it as ${env:VARIABLE} or type it again");
    const QString var = headerEnvReference(h.value);
    if (var.isEmpty())
        return {};
    if (!qEnvironmentVariableIsSet(var.toLocal8Bit().constData()))
        return QStringLiteral("refers to the environment variable %1, which is not set").arg(var);
    if (const QString problem = headerValueProblem(h.resolvedValue()); !problem.isEmpty())
        return QStringLiteral("refers to the environment variable %1, whose value ").arg(var) + problem;
    return {};
}

} // namespace

QString Header::resolvedValue() const
{
    const QString var = headerEnvReference(value);
    return var.isEmpty() ? value : qEnvironmentVariable(var.toLocal8Bit().constData());
}

bool isCredentialHeader(const QString &name)
{
    static const QRegularExpression credential(QStringLiteral("auth|key|token|secret|passw|cookie|session|credential"),
                                               QRegularExpression::CaseInsensitiveOption);
    return credential.match(name).hasMatch();
}

QString headerEnvReference(const QString &value)
{
    static const QRegularExpression reference(QStringLiteral("^\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)\\}$"));
    return reference.match(value.trimmed()).captured(1);
}

QString withoutUserInfo(const QString &url)
{
    // On the text, not through QUrl: a URL QUrl refuses must not keep its password in the message
    // that says so.
    static const QRegularExpression userInfo(QStringLiteral("^(\\s*[A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@"));
    QString stripped = url;
    return stripped.replace(userInfo, QStringLiteral("\\1"));
}

QString maskSecrets(QString text, const QStringList &secrets)
{
    constexpr qsizetype kMinCutPart = 4;
    const QChar ellipsis(0x2026);
    // Longest first: a secret containing another is masked whole.
    QStringList longestFirst = secrets;
    std::sort(longestFirst.begin(), longestFirst.end(),
              [](const QString &a, const QString &b) { return a.size() > b.size(); });
    for (const QString &secret : std::as_const(longestFirst)) {
        // A value of a few characters (an "X-Session-Id: 1") is no secret, and masking it would
        // garble every message ("HTTP 40***").
        if (secret.size() < kMinCutPart)
            continue;
        text.replace(secret, QStringLiteral("***"));
        // Messages are shortened with "…": the key's first characters may end one.
        const qsizetype end = text.endsWith(ellipsis) ? text.size() - 1 : text.size();
        for (qsizetype n = secret.size() - 1; n >= kMinCutPart; --n) {
            if (QStringView(text).left(end).endsWith(QStringView(secret).left(n))) {
                text.replace(end - n, n, QStringLiteral("***"));
                break;
            }
        }
    }
    return text;
}

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

QString maxTokensFieldName(MaxTokensField field)
{
    return enumName(kMaxTokensFieldNames, field);
}

std::optional<MaxTokensField> maxTokensFieldFromName(const QString &name)
{
    return enumFromName<MaxTokensField>(kMaxTokensFieldNames, name);
}

QString maxTokensFieldNames()
{
    return enumNames(kMaxTokensFieldNames);
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

TargetConfig redacted(const TargetConfig &target)
{
    TargetConfig t = target;
    t.apiKey.clear();
    t.url = withoutUserInfo(t.url);
    for (QString &replica : t.replicas)
        replica = withoutUserInfo(replica);
    t.proxy = withoutUserInfo(t.proxy);
    for (Header &h : t.headers) {
        if (isCredentialHeader(h.name) && headerEnvReference(h.value).isEmpty())
            h.value = QLatin1String(kRedacted);
    }
    return t;
}

RunConfig redacted(const RunConfig &config)
{
    RunConfig c = config;
    c.target = redacted(config.target);
    return c;
}

QStringList secretsOf(const TargetConfig &target)
{
    QStringList secrets{target.resolveApiKey()};
    for (const Header &h : target.headers) {
        if (isCredentialHeader(h.name))
            secrets << h.resolvedValue();
    }
    QStringList urls = target.instanceUrls() << target.proxy;
    for (const char *name : kProxyVariables)
        urls << qEnvironmentVariable(name);
    for (const QString &text : std::as_const(urls)) {
        // A proxy URL may come without its scheme ("user:pw@proxy:3128").
        const QUrl url(text.contains(QLatin1String("://")) ? text : QStringLiteral("http://") + text);
        if (url.password().isEmpty())
            continue;
        secrets << url.password(QUrl::FullyDecoded) << url.password(QUrl::FullyEncoded)
                << QString::fromLatin1(
                       (url.userName(QUrl::FullyDecoded) + QLatin1Char(':') + url.password(QUrl::FullyDecoded))
                           .toUtf8()
                           .toBase64());
    }
    secrets.removeAll(QString());
    secrets.removeDuplicates();
    return secrets;
}

qint64 raiseOpenFileLimit()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return std::numeric_limits<qint64>::max();
    if (limit.rlim_cur < limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            limit = raised;
    }
    return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<qint64>::max() : qint64(limit.rlim_cur);
}

QString checkOpenFiles(const RunConfig &config, int workerThreads)
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
        return {};
    // Every request in flight holds a socket: the most users of any stage, or the open-loop cap
    // (an uncapped open loop has no bound to check in advance).
    qint64 sockets = 0;
    for (const StageConfig &s : effectiveStages(config.load))
        sockets =
            std::max(sockets, s.mode == LoadMode::Concurrency ? qint64(s.level) : qint64(config.load.maxInFlight));
    const qint64 workers = workerThreads > 0 ? workerThreads : std::max(2, QThread::idealThreadCount());
    const qint64 needed = sockets + workers * kFilesPerWorker + kReservedFiles;
    if (needed <= qint64(limit.rlim_cur))
        return {};
    return QStringLiteral(
               "%1 connections and %2 worker threads need about %3 open files, more than this process may open (%4, "
               "RLIMIT_NOFILE; raise it with 'ulimit -n')")
        .arg(sockets)
        .arg(workers)
        .arg(needed)
        .arg(qint64(limit.rlim_cur));
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
    if (stage.promptTokens > 0)
        return QStringLiteral("p=") + QString::number(stage.promptTokens);
    return (stage.mode == LoadMode::Rate ? QStringLiteral("r=") : QStringLiteral("c=")) + number(stage.level);
}

bool isContextSweep(const QList<StageConfig> &stages)
{
    return std::any_of(stages.begin(), stages.end(), [](const StageConfig &s) { return s.promptTokens > 0; });
}

QList<StageConfig> effectiveStages(const LoadConfig &load)
{
    if (!load.trace.isEmpty()) {
        // The trace is the schedule: one open-loop stage until its last entry (or an earlier
        // --requests / --duration); the level is not a rate, the entries' times are.
        StageConfig trace;
        trace.name = QStringLiteral("trace");
        trace.mode = LoadMode::Rate;
        trace.level = 0;
        trace.durationMs = load.durationMs;
        trace.requests = load.requests;
        return {trace};
    }
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
        problems << QStringLiteral("target.url (--url): '%1' is not an http:// or https:// URL with a host")
                        .arg(withoutUserInfo(c.target.url));
    for (int i = 0; i < c.target.replicas.size(); ++i) {
        const QString &replica = c.target.replicas.at(i);
        if (!isHttpUrl(replica))
            problems << QStringLiteral(
                            "target.replicas[%1] (--url): '%2' is not an http:// or https:// URL with a host")
                            .arg(i)
                            .arg(withoutUserInfo(replica));
        else if (c.target.instanceUrls().indexOf(replica) != i + 1)
            problems << QStringLiteral("target.replicas[%1] (--url): '%2' is listed twice; each instance once")
                            .arg(i)
                            .arg(withoutUserInfo(replica));
    }
    if (c.target.model.trimmed().isEmpty())
        problems << QStringLiteral("target.model (--model): missing; name the model to request");
    if (c.target.headers.size() > limits::kMaxHeaders)
        problems << QStringLiteral("target.headers (--header): %1 headers; at most %2")
                        .arg(c.target.headers.size())
                        .arg(limits::kMaxHeaders);
    for (const Header &h : c.target.headers) {
        if (const QString problem = headerProblem(h); !problem.isEmpty())
            problems << QStringLiteral("target.headers (--header): '%1' %2").arg(h.name.left(64), problem);
    }
    if (!c.target.caCertificate.isEmpty()) {
        if (!QFileInfo(c.target.caCertificate).isReadable())
            problems << QStringLiteral("target.ca_cert (--ca-cert): cannot read '%1'").arg(c.target.caCertificate);
        else if (QSslCertificate::fromPath(c.target.caCertificate, QSsl::Pem).isEmpty())
            problems << QStringLiteral(
                            "target.ca_cert (--ca-cert): '%1' holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
                            .arg(c.target.caCertificate);
    }
    if (const QString &t = c.target.tokenizer;
        !t.isEmpty() && t != QLatin1String("approx") && t != QLatin1String("server") && !QFileInfo(t).isReadable())
        problems << QStringLiteral("target.tokenizer (--tokenizer): cannot read '%1' (accepted: approx, server, a "
                                   "tokenizer.json or .tiktoken file, or a model folder)")
                        .arg(t);
    // Never echoed: a URL may carry credentials.
    if (!c.target.serverMetricsUrl.isEmpty() && !isHttpUrl(c.target.serverMetricsUrl))
        problems << QStringLiteral(
            "target.server_metrics_url (--server-metrics): not an http:// or https:// URL with a host");
    else if (!QUrl(c.target.serverMetricsUrl).userInfo().isEmpty())
        problems << QStringLiteral(
            "target.server_metrics_url (--server-metrics): credentials in the URL would be written to run.json; "
            "give the URL without them");
    const auto checkPrice = [&](const std::optional<double> &price, const char *key, const char *flag) {
        if (price && !(*price >= 0 && *price <= kMaxPricePerM))
            problems << QStringLiteral("target.pricing.%1 (%2): USD per 1M tokens, from 0 to %3 (got %4)")
                            .arg(QLatin1String(key), QLatin1String(flag), number(kMaxPricePerM), number(*price));
    };
    checkPrice(c.target.pricing.inputPerM, "input_per_1m", "--price-input");
    checkPrice(c.target.pricing.cachedInputPerM, "cached_input_per_1m", "--price-cached-input");
    checkPrice(c.target.pricing.outputPerM, "output_per_1m", "--price-output");
    if (!c.target.extraBody.is_object())
        problems << QStringLiteral("target.extra_body: must be a JSON object");
    else if (nestsDeeperThan(c.target.extraBody, limits::kMaxJsonDepth - 2))
        problems << QStringLiteral("target.extra_body: nests deeper than %1 levels").arg(limits::kMaxJsonDepth - 2);
    // Several choices interleave in one stream: their tokens would be counted as one response's.
    else if (const auto n = c.target.extraBody.find("n"); n != c.target.extraBody.end() && *n != 1)
        problems << QStringLiteral("target.extra_body.n: only 1 choice per request is measured (got %1); remove \"n\"")
                        .arg(fromStd(n->dump()).left(40));

    if (c.request.maxTokens < 1 || c.request.maxTokens > limits::kMaxTokens)
        problems << QStringLiteral("request.max_tokens (--max-tokens): must be from 1 to %1 (got %2)")
                        .arg(limits::kMaxTokens)
                        .arg(c.request.maxTokens);
    if (c.request.temperature && !(*c.request.temperature >= 0 && *c.request.temperature <= 2))
        problems << QStringLiteral("request.temperature (--temperature): must be between 0 and 2 (got %1)")
                        .arg(number(*c.request.temperature));
    if (c.request.topP && !(*c.request.topP > 0 && *c.request.topP <= 1))
        problems << QStringLiteral("request.top_p (--top-p): must be in (0, 1] (got %1)").arg(number(*c.request.topP));

    if (c.prompt.promptTokens < 0 || c.prompt.promptTokens > limits::kMaxPromptTokens)
        problems << QStringLiteral("prompt.prompt_tokens (--prompt-tokens): must be from 0 to %1 (got %2)")
                        .arg(limits::kMaxPromptTokens)
                        .arg(c.prompt.promptTokens);
    if (c.prompt.systemTokens < 0 || c.prompt.systemTokens > limits::kMaxPromptTokens)
        problems << QStringLiteral("prompt.system_tokens (--system-tokens): must be from 0 to %1 (got %2)")
                        .arg(limits::kMaxPromptTokens)
                        .arg(c.prompt.systemTokens);
    else if (qint64(c.prompt.promptTokens) + c.prompt.systemTokens > limits::kMaxPromptTokens)
        problems << QStringLiteral(
                        "prompt.system_tokens (--system-tokens): with prompt_tokens %1 tokens a request; at most %2")
                        .arg(qint64(c.prompt.promptTokens) + c.prompt.systemTokens)
                        .arg(limits::kMaxPromptTokens);
    if (c.prompt.salt.size() > 256)
        problems
            << QStringLiteral("prompt.salt (--prompt-salt): at most 256 characters (got %1)").arg(c.prompt.salt.size());
    if (c.prompt.sharedPrefixTokens < 0 ||
        (c.prompt.promptTokens > 0 && c.prompt.sharedPrefixTokens > c.prompt.promptTokens))
        problems << QStringLiteral("prompt.shared_prefix_tokens: must be between 0 and prompt_tokens (got %1)")
                        .arg(c.prompt.sharedPrefixTokens);
    if (!c.prompt.promptFile.isEmpty()) {
        const QFileInfo info(c.prompt.promptFile);
        if (!info.isFile() || !info.isReadable())
            problems << QStringLiteral("prompt.prompt_file (--prompt-file): cannot read '%1'").arg(c.prompt.promptFile);
    }

    QStringList workloadFiles;
    const auto checkWorkloadFile = [&](const QString &path, const char *field) {
        if (path.isEmpty())
            return;
        workloadFiles << QLatin1String(field);
        const QFileInfo info(path);
        if (!info.isFile() || !info.isReadable())
            problems << QStringLiteral("%1: cannot read '%2'").arg(QLatin1String(field), path);
    };
    checkWorkloadFile(c.prompt.dataset, "prompt.dataset (--dataset)");
    checkWorkloadFile(c.load.trace, "load.trace (--trace)");
    if (!c.prompt.promptFile.isEmpty())
        workloadFiles.prepend(QStringLiteral("prompt.prompt_file (--prompt-file)"));
    if (workloadFiles.size() > 1)
        problems << QStringLiteral("%1: one workload file at a time").arg(workloadFiles.join(QStringLiteral(" and ")));
    const auto checkRange = [&](int min, int max, const char *field) {
        if (min < 0 || max < 0 || (max > 0 && min > max))
            problems << QStringLiteral("%1: must be MIN..MAX with 0 <= MIN <= MAX (got %2..%3)")
                            .arg(QLatin1String(field))
                            .arg(min)
                            .arg(max);
    };
    checkRange(c.prompt.promptLenMin, c.prompt.promptLenMax, "prompt.dataset_prompt_len (--dataset-prompt-len)");
    checkRange(c.prompt.outputLenMin, c.prompt.outputLenMax, "prompt.dataset_output_len (--dataset-output-len)");
    if (c.prompt.datasetSample < 0 || c.prompt.datasetSample > limits::kMaxRequests)
        problems << QStringLiteral("prompt.dataset_sample (--dataset-sample): must be from 0 (all) to %1 (got %2)")
                        .arg(limits::kMaxRequests)
                        .arg(c.prompt.datasetSample);
    if (!c.load.trace.isEmpty() && !c.load.stages.isEmpty())
        problems << QStringLiteral(
            "load.trace (--trace): a trace is its own schedule; remove load.stages (--stages/--sweep)");
    if (!(c.load.timeScale > 0 && c.load.timeScale <= 1000))
        problems << QStringLiteral("load.time_scale (--time-scale): must be greater than 0 and at most 1000 (got %1)")
                        .arg(number(c.load.timeScale));

    const LoadConfig &l = c.load;
    if (l.stages.isEmpty() && l.trace.isEmpty()) {
        if (l.mode == LoadMode::Concurrency && (l.concurrency < 1 || l.concurrency > limits::kMaxConcurrency))
            problems << QStringLiteral("load.concurrency (--concurrency): must be from 1 to %1 (got %2)")
                            .arg(limits::kMaxConcurrency)
                            .arg(l.concurrency);
        if (l.mode == LoadMode::Rate && !(l.rate > 0 && l.rate <= limits::kMaxRate))
            problems << QStringLiteral("load.rate (--rate): must be greater than 0 and at most %1 requests/s (got %2)")
                            .arg(number(limits::kMaxRate), number(l.rate));
    }
    if (l.stages.size() > limits::kMaxStages)
        problems << QStringLiteral("load.stages (--stages): %1 stages; at most %2")
                        .arg(l.stages.size())
                        .arg(limits::kMaxStages);
    for (int i = 0; i < l.stages.size() && i < limits::kMaxStages; ++i) {
        const StageConfig &s = l.stages.at(i);
        const QString where = QStringLiteral("load.stages[%1] (--stages)").arg(i);
        const double maxLevel = s.mode == LoadMode::Concurrency ? double(limits::kMaxConcurrency) : limits::kMaxRate;
        if (!(s.level > 0 && s.level <= maxLevel))
            problems << QStringLiteral("%1: level must be greater than 0 and at most %2 (got %3)")
                            .arg(where, number(maxLevel), number(s.level));
        else if (s.mode == LoadMode::Concurrency && s.level != std::floor(s.level))
            problems << QStringLiteral("%1: concurrency must be a whole number of users (got %2)")
                            .arg(where, number(s.level));
        if (s.durationMs < 0 || s.requests < 0 || s.durationMs > limits::kMaxDurationMs ||
            s.requests > limits::kMaxRequests)
            problems << QStringLiteral("%1: duration and requests must not be negative, at most %2 and %3 requests")
                            .arg(where, formatDuration(limits::kMaxDurationMs))
                            .arg(limits::kMaxRequests);
        if (s.promptTokens > 0 && (!c.prompt.promptFile.isEmpty() || !c.prompt.dataset.isEmpty() || !l.trace.isEmpty()))
            problems << QStringLiteral("%1: a context sweep's prompt size needs synthetic prompts; remove the prompt "
                                       "file, dataset or trace")
                            .arg(where);
        if (s.promptTokens < 0 || s.promptTokens > limits::kMaxPromptTokens)
            problems << QStringLiteral("%1: prompt_tokens must be from 0 (the run's prompts) to %2 (got %3)")
                            .arg(where)
                            .arg(limits::kMaxPromptTokens)
                            .arg(s.promptTokens);
    }
    if (l.maxInFlight < 0 || l.maxInFlight > limits::kMaxConcurrency)
        problems << QStringLiteral("load.max_in_flight (--max-in-flight): must be from 0 (no cap) to %1 (got %2)")
                        .arg(limits::kMaxConcurrency)
                        .arg(l.maxInFlight);
    if (l.requests < 0 || l.requests > limits::kMaxRequests)
        problems << QStringLiteral("load.requests (--requests): must be from 0 to %1 (got %2)")
                        .arg(limits::kMaxRequests)
                        .arg(l.requests);
    if (l.durationMs < 0 || l.durationMs > limits::kMaxDurationMs)
        problems << QStringLiteral("load.duration (--duration): must be from 0 to %1")
                        .arg(formatDuration(limits::kMaxDurationMs));
    if (l.warmupMs < 0 || l.warmupRequests < 0 || l.warmupMs > limits::kMaxDurationMs ||
        l.warmupRequests > limits::kMaxRequests)
        problems << QStringLiteral("load.warmup (--warmup): must not be negative, at most %1 or %2 requests")
                        .arg(formatDuration(limits::kMaxDurationMs))
                        .arg(limits::kMaxRequests);
    if (l.timeoutMs <= 0 || l.timeoutMs > limits::kMaxDurationMs)
        problems << QStringLiteral("load.timeout (--timeout): must be greater than 0 and at most %1")
                        .arg(formatDuration(limits::kMaxDurationMs));
    if (problems.isEmpty()) {
        if (const QString files = checkOpenFiles(c, 0); !files.isEmpty())
            problems << QStringLiteral("load.concurrency (--concurrency): ") + files;
    }
    if (l.connectTimeoutMs <= 0)
        problems << QStringLiteral("load.connect_timeout (--connect-timeout): must be greater than 0");
    if (l.turns < 0 || l.turns > limits::kMaxTurns)
        problems << QStringLiteral("load.turns (--turns): must be from 0 to %1 (got %2)")
                        .arg(limits::kMaxTurns)
                        .arg(l.turns);
    if (l.thinkTimeMs < 0 || l.thinkTimeMs > limits::kMaxDurationMs)
        problems << QStringLiteral("load.think_time (--think-time): must be from 0 to %1")
                        .arg(formatDuration(limits::kMaxDurationMs));
    else if (l.thinkTimeMs > 0 && l.turns < 2)
        problems << QStringLiteral(
            "load.think_time (--think-time): is the pause between a conversation's turns; it needs "
            "--turns 2 or more");

    const auto checkSlo = [&problems](const std::optional<double> &v, const char *name) {
        if (v && !(*v > 0 && std::isfinite(*v)))
            problems << QStringLiteral("slo.%1 (--slo): must be greater than 0 ms (got %2)")
                            .arg(QLatin1String(name), number(*v));
    };
    checkSlo(c.slo.ttftMs, "ttft_ms");
    checkSlo(c.slo.tpotMs, "tpot_ms");
    checkSlo(c.slo.e2eMs, "e2e_ms");
    if (!(c.slo.target > 0 && c.slo.target <= 1))
        problems << QStringLiteral("slo.target (--slo-target): must be in (0, 1] (got %1)").arg(number(c.slo.target));
    return problems;
}

nlohmann::json toJson(const TargetConfig &target)
{
    const TargetConfig t = redacted(target);
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
        {"server_metrics", t.serverMetrics},
        {"server_metrics_url", toStd(t.serverMetricsUrl)},
        {"proxy", toStd(t.proxy)},
        {"follow_redirects", t.followRedirects},
        {"pricing",
         {{"input_per_1m", optionalToJson(t.pricing.inputPerM)},
          {"cached_input_per_1m", optionalToJson(t.pricing.cachedInputPerM)},
          {"output_per_1m", optionalToJson(t.pricing.outputPerM)},
          {"source", toStd(t.pricing.source)}}},
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
        if (s.promptTokens > 0)
            stages.back()["prompt_tokens"] = s.promptTokens;
    }
    return {
        {"format", "tokenbench-config"},
        {"version", kFormatVersion},
        {"target", toJson(c.target)},
        {"request",
         {{"max_tokens", c.request.maxTokens},
          {"max_tokens_field", toStd(maxTokensFieldName(c.request.maxTokensField))},
          {"temperature", optionalToJson(c.request.temperature)},
          {"top_p", optionalToJson(c.request.topP)},
          {"stream", c.request.stream}}},
        {"prompt",
         {{"prompt_tokens", c.prompt.promptTokens},
          {"system_tokens", c.prompt.systemTokens},
          {"shared_prefix_tokens", c.prompt.sharedPrefixTokens},
          {"prompt_file", toStd(c.prompt.promptFile)},
          {"dataset", toStd(c.prompt.dataset)},
          {"dataset_sample", c.prompt.datasetSample},
          {"dataset_prompt_len", toStd(formatLengthRange(c.prompt.promptLenMin, c.prompt.promptLenMax))},
          {"dataset_output_len", toStd(formatLengthRange(c.prompt.outputLenMin, c.prompt.outputLenMax))},
          {"max_tokens_from_dataset", c.prompt.outputLenAsMaxTokens},
          {"skip_bad_lines", c.prompt.skipBadLines},
          {"calibrate", c.prompt.calibrate},
          {"salt", c.prompt.salt.isEmpty() ? nlohmann::json() : nlohmann::json(toStd(c.prompt.salt))},
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
          {"connect_timeout", durationToJson(c.load.connectTimeoutMs)},
          {"seed", c.load.seed},
          {"turns", c.load.turns},
          {"think_time", c.load.thinkTimeMs > 0
                             ? nlohmann::json(toStd(formatThinkTime(c.load.thinkTimeMs, c.load.thinkTimeExponential)))
                             : nlohmann::json()},
          {"trace", toStd(c.load.trace)},
          {"time_scale", c.load.timeScale}}},
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
        else if (headers->size() > std::size_t(limits::kMaxHeaders))
            r.fail(r.field("headers"),
                   QStringLiteral("%1 headers; at most %2").arg(headers->size()).arg(limits::kMaxHeaders));
        else {
            for (auto it = headers->begin(); it != headers->end(); ++it) {
                if (!it->is_string()) {
                    r.fail(r.field("headers") + QLatin1Char('.') + fromStd(it.key()),
                           QStringLiteral("must be a string"));
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
    r.boolean("server_metrics", t.serverMetrics);
    r.string("server_metrics_url", t.serverMetricsUrl);
    r.string("proxy", t.proxy);
    r.boolean("follow_redirects", t.followRedirects);
    if (const auto *pricing = r.find("pricing"); pricing && r.ok()) {
        ObjectReader p(*pricing, r.field("pricing"), error);
        p.optionalReal("input_per_1m", t.pricing.inputPerM);
        p.optionalReal("cached_input_per_1m", t.pricing.cachedInputPerM);
        p.optionalReal("output_per_1m", t.pricing.outputPerM);
        p.string("source", t.pricing.source);
        if (!p.finish())
            return std::nullopt;
    }
    // A key in a config file would be a secret on disk: refuse it and say where keys go.
    if (r.find("api_key"))
        r.fail(r.field("api_key"),
               QStringLiteral(
                   "API keys are never read from files; set api_key_env to the name of an environment variable"));
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
        top.fail(QStringLiteral("format"),
                 QStringLiteral("'%1' is not a TokenBench configuration (expected \"tokenbench-config\")").arg(format));
    int version = kFormatVersion;
    top.integer("version", version);
    if (version > kFormatVersion)
        top.fail(QStringLiteral("version"),
                 QStringLiteral("written by a newer TokenBench (format %1; this one reads up to %2)")
                     .arg(version)
                     .arg(kFormatVersion));
    if (const auto *target = top.find("target"); target && top.ok()) {
        if (auto t = targetFromJson(*target, error))
            c.target = *t;
        else
            return std::nullopt;
    }
    if (const auto *request = top.find("request"); request && top.ok()) {
        ObjectReader r(*request, QStringLiteral("request"), error);
        r.integer("max_tokens", c.request.maxTokens, 1, limits::kMaxTokens);
        r.enumeration("max_tokens_field", c.request.maxTokensField, &maxTokensFieldFromName, maxTokensFieldNames());
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
        r.integer("prompt_tokens", c.prompt.promptTokens, 0, limits::kMaxPromptTokens);
        r.integer("system_tokens", c.prompt.systemTokens, 0, limits::kMaxPromptTokens);
        r.integer("shared_prefix_tokens", c.prompt.sharedPrefixTokens, 0, limits::kMaxPromptTokens);
        r.string("prompt_file", c.prompt.promptFile);
        r.string("dataset", c.prompt.dataset);
        r.integer("dataset_sample", c.prompt.datasetSample, qint64(0), limits::kMaxRequests);
        const auto range = [&](const char *key, int &min, int &max) {
            QString text, why;
            r.string(key, text);
            if (text.isEmpty())
                return;
            if (const auto parsed = parseLengthRange(text, &why))
                std::tie(min, max) = *parsed;
            else
                r.fail(r.field(key), why);
        };
        range("dataset_prompt_len", c.prompt.promptLenMin, c.prompt.promptLenMax);
        range("dataset_output_len", c.prompt.outputLenMin, c.prompt.outputLenMax);
        r.boolean("max_tokens_from_dataset", c.prompt.outputLenAsMaxTokens);
        r.boolean("skip_bad_lines", c.prompt.skipBadLines);
        r.boolean("calibrate", c.prompt.calibrate);
        r.string("salt", c.prompt.salt);
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
        r.integer("concurrency", c.load.concurrency, 1, limits::kMaxConcurrency);
        r.real("rate", c.load.rate);
        r.enumeration("arrival", c.load.arrival, &arrivalFromName, QStringLiteral("constant|poisson"));
        r.integer("max_in_flight", c.load.maxInFlight, 0, limits::kMaxConcurrency);
        if (const auto *stages = r.find("stages")) {
            if (!stages->is_array())
                r.fail(r.field("stages"), QStringLiteral("must be an array of stages"));
            else if (stages->size() > std::size_t(limits::kMaxStages))
                r.fail(r.field("stages"),
                       QStringLiteral("%1 stages; at most %2").arg(stages->size()).arg(limits::kMaxStages));
            else {
                for (size_t i = 0; i < stages->size() && r.ok(); ++i) {
                    StageConfig s;
                    ObjectReader sr((*stages)[i], QStringLiteral("load.stages[%1]").arg(i), error);
                    sr.string("name", s.name);
                    sr.enumeration("mode", s.mode, &loadModeFromName, modes);
                    sr.real("level", s.level);
                    sr.duration("duration", s.durationMs, true);
                    sr.integer("requests", s.requests, qint64(0), limits::kMaxRequests);
                    sr.integer("prompt_tokens", s.promptTokens, 0, limits::kMaxPromptTokens);
                    if (!sr.finish())
                        return std::nullopt;
                    c.load.stages << s;
                }
            }
        }
        r.integer("requests", c.load.requests, qint64(0), limits::kMaxRequests);
        r.duration("duration", c.load.durationMs, true);
        r.duration("warmup_duration", c.load.warmupMs, false);
        r.integer("warmup_requests", c.load.warmupRequests, qint64(0), limits::kMaxRequests);
        r.duration("timeout", c.load.timeoutMs, true);
        r.duration("connect_timeout", c.load.connectTimeoutMs, true);
        r.integer("seed", c.load.seed);
        r.integer("turns", c.load.turns, 0, limits::kMaxTurns);
        if (const auto *think = r.find("think_time")) {
            const auto parsed = think->is_string() ? parseThinkTime(fromStd(think->get<std::string>())) : std::nullopt;
            if (parsed && parsed->ms <= limits::kMaxDurationMs) {
                c.load.thinkTimeMs = parsed->ms;
                c.load.thinkTimeExponential = parsed->exponential;
            } else {
                r.fail(
                    r.field("think_time"),
                    QStringLiteral("must be a duration such as \"2s\", or \"exp:2s\" for exponential think times with "
                                   "that mean, at most %1 (got %2)")
                        .arg(formatDuration(limits::kMaxDurationMs), shown(*think)));
            }
        }
        r.string("trace", c.load.trace);
        r.real("time_scale", c.load.timeScale);
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
    QString why;
    const auto json = parseJsonBounded(bytes, &why);
    if (!json) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return std::nullopt;
    }
    auto config = runConfigFromJson(*json, &why);
    if (!config && error)
        *error = QStringLiteral("%1: %2").arg(path, why);
    return config;
}

std::optional<nlohmann::json> parseJsonBounded(const QByteArray &text, QString *error)
{
    DepthCheck check;
    if (!nlohmann::json::sax_parse(text.constData(), text.constData() + text.size(), &check)) {
        if (error)
            *error = check.error;
        return std::nullopt;
    }
    return nlohmann::json::parse(text.constData(), text.constData() + text.size());
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

std::optional<ThinkTime> parseThinkTime(const QString &text)
{
    QString duration = text.trimmed();
    const bool exponential = duration.startsWith(QLatin1String("exp:"));
    if (exponential)
        duration = duration.mid(4);
    const auto ms = parseDurationMs(duration);
    if (!ms)
        return std::nullopt;
    return ThinkTime{*ms, exponential};
}

QString formatThinkTime(qint64 ms, bool exponential)
{
    return (exponential ? QStringLiteral("exp:") : QString()) + formatDuration(ms);
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
    if (!(value * factor <= double(limits::kMaxDurationMs)))
        return std::nullopt;
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
/// Zero is refused: a stage that ends after no time or no request would be skipped unseen.
bool parseStageEnd(const QString &text, StageConfig &stage)
{
    bool isCount = false;
    const qint64 count = text.toLongLong(&isCount);
    if (isCount) {
        stage.requests = count;
        return count > 0 && count <= limits::kMaxRequests;
    }
    const auto ms = parseDurationMs(text);
    if (ms)
        stage.durationMs = *ms;
    return ms && *ms > 0;
}

} // namespace

std::optional<QList<StageConfig>> parseStages(const QString &spec, QString *error)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*([cr])\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*(?::\\s*([^:]+?)\\s*)?$"));
    const auto fail = [error, &spec](const QString &why) {
        if (error)
            *error = QStringLiteral(
                         "malformed stages '%1': %2 (expected e.g. \"c=50:30s,c=100:30s\" or "
                         "\"r=20:60s,r=100:500\"; c= users, r= requests/s, after ':' a duration or a request count)")
                         .arg(spec.size() > 80 ? spec.left(79) + QChar(0x2026) : spec, why);
        return std::nullopt;
    };
    QList<StageConfig> stages;
    if (spec.count(QLatin1Char(',')) >= limits::kMaxStages)
        return fail(QStringLiteral("more than %1 stages").arg(limits::kMaxStages));
    const QStringList parts = spec.split(QLatin1Char(','));
    for (const QString &part : parts) {
        const auto m = re.match(part);
        if (!m.hasMatch())
            return fail(QStringLiteral("cannot read '%1'").arg(part.trimmed()));
        StageConfig s;
        s.mode = m.captured(1) == QLatin1String("r") ? LoadMode::Rate : LoadMode::Concurrency;
        s.level = m.captured(2).toDouble();
        if (const QString end = m.captured(3); !end.isEmpty() && !parseStageEnd(end, s))
            return fail(QStringLiteral("'%1' is neither a duration above 0 nor a request count from 1 to %2")
                            .arg(end)
                            .arg(limits::kMaxRequests));
        stages << s;
    }
    return stages;
}

std::optional<QList<StageConfig>> parseSweep(const QString &spec, QString *error, const StageConfig &fixedLoad)
{
    static const QRegularExpression re(QStringLiteral("^\\s*([crp])\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*\\.\\.\\s*(\\d+(?:\\."
                                                      "\\d+)?)\\s*(?:x\\s*(\\d+))?\\s*(?::\\s*(\\S+)\\s*)?$"));
    constexpr int kMaxLevels = 50;
    const auto fail = [error, &spec](const QString &why) {
        if (error)
            *error = QStringLiteral(
                         "malformed sweep '%1': %2 (expected e.g. \"c=1..256\" (doubling), \"c=8..128x5\", "
                         "\"r=2..50x6:60s\" or \"p=256..16384x6\": c= users, r= requests/s, p= prompt tokens at "
                         "the run's load, FROM..TO, xN levels, after ':' a duration or a request count per stage)")
                         .arg(spec, why);
        return std::nullopt;
    };
    const auto m = re.match(spec);
    if (!m.hasMatch())
        return fail(QStringLiteral("cannot read it"));
    const bool prompts = m.captured(1) == QLatin1String("p");
    const LoadMode mode = prompts                               ? fixedLoad.mode
                          : m.captured(1) == QLatin1String("r") ? LoadMode::Rate
                                                                : LoadMode::Concurrency;
    const double from = m.captured(2).toDouble();
    const double to = m.captured(3).toDouble();
    if (!(from > 0) || !(to > from))
        return fail(QStringLiteral("the levels must rise from a level above 0"));
    if (prompts && (from < 1 || to > limits::kMaxPromptTokens))
        return fail(QStringLiteral("prompt sizes must be from 1 to %1 tokens").arg(limits::kMaxPromptTokens));
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
        return fail(QStringLiteral("'%1' is neither a duration above 0 nor a request count from 1 to %2")
                        .arg(text)
                        .arg(limits::kMaxRequests));
    QList<StageConfig> stages;
    for (double level : levels) {
        level =
            mode == LoadMode::Concurrency || prompts ? std::round(level) : QString::number(level, 'g', 3).toDouble();
        StageConfig s = end;
        s.mode = mode;
        s.level = prompts ? fixedLoad.level : level;
        s.promptTokens = prompts ? int(level) : 0;
        if (!stages.isEmpty() &&
            (prompts ? double(stages.constLast().promptTokens) : stages.constLast().level) >= level)
            continue;
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
    if (isContextSweep(stages)) {
        // The load a context sweep holds, once in front: "c=4 p=256:20,p=1024:20".
        StageConfig load = stages.first();
        load.promptTokens = 0;
        return stageDefaultName(load) + QLatin1Char(' ') + parts.join(QLatin1Char(','));
    }
    return parts.join(QLatin1Char(','));
}

std::optional<std::pair<int, int>> parseLengthRange(const QString &text, QString *error)
{
    const QString t = text.trimmed();
    const qsizetype dots = t.indexOf(QLatin1String(".."));
    const QString low = dots < 0 ? t : t.left(dots);
    const QString high = dots < 0 ? t : t.mid(dots + 2);
    const auto bound = [](const QString &s) -> std::optional<int> {
        if (s.isEmpty())
            return 0;
        bool ok = false;
        const int v = s.toInt(&ok);
        return ok && v >= 0 && v <= limits::kMaxPromptTokens + limits::kMaxTokens ? std::optional<int>(v)
                                                                                  : std::nullopt;
    };
    const auto min = bound(low), max = bound(high);
    if (t.isEmpty() || !min || !max || (*max > 0 && *min > *max)) {
        if (error)
            *error =
                QStringLiteral("'%1' is not a token range MIN..MAX (e.g. 4..1024, 4.., ..2048)").arg(text.left(32));
        return std::nullopt;
    }
    return std::pair{*min, *max};
}

QString formatLengthRange(int min, int max)
{
    if (min == 0 && max == 0)
        return {};
    return (min > 0 ? QString::number(min) : QString()) + QStringLiteral("..") +
           (max > 0 ? QString::number(max) : QString());
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
            // Only the first word: a line without ':' may be a credential ("Authorization Bearer sk-…").
            *error = QStringLiteral("malformed header '%1…' (expected 'Name: value')")
                         .arg(text.trimmed().section(QLatin1Char(' '), 0, 0).left(32));
        return std::nullopt;
    }
    Header header{name, text.mid(colon + 1).trimmed()};
    if (const QString problem = headerProblem(header); !problem.isEmpty()) {
        if (error)
            *error = QStringLiteral("header '%1' %2").arg(name.left(64), problem);
        return std::nullopt;
    }
    return header;
}

} // namespace tb
