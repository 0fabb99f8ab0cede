#include "config/runconfig.h"

#include "config/configfield.h"
#include "config/connectionlimits.h"
#include "config/enumnames.h"
#include "config/inputfile.h"
#include "config/modelmix.h"
#include "config/runconfig_p.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace tb {

namespace {

constexpr qint64 kDefaultRequestsPerStage = 100;

constexpr EnumName<ApiKind> kApiNames[] = {
    {ApiKind::OpenAIChat, "openai-chat"},
    {ApiKind::OpenAICompletions, "openai-completions"},
    {ApiKind::AnthropicMessages, "anthropic-messages"},
    {ApiKind::OpenAIResponses, "openai-responses"},
    {ApiKind::OpenAIEmbeddings, "openai-embeddings"},
    {ApiKind::Rerank, "rerank"},
    {ApiKind::Score, "score"},
};

constexpr EnumName<Balance> kBalanceNames[] = {
    {Balance::RoundRobin, "round-robin"},
    {Balance::LeastInFlight, "least-in-flight"},
    {Balance::Random, "random"},
};

constexpr EnumName<TransportKind> kTransportNames[] = {
    {TransportKind::Auto, "auto"},
    {TransportKind::Native, "native"},
    {TransportKind::Qnam, "qnam"},
};

constexpr EnumName<HttpVersion> kHttpVersionNames[] = {
    {HttpVersion::Auto, "auto"},
    {HttpVersion::Http1, "1.1"},
    {HttpVersion::Http2, "2"},
};

constexpr EnumName<MaxTokensField> kMaxTokensFieldNames[] = {
    {MaxTokensField::Auto, "auto"},
    {MaxTokensField::MaxTokens, "max_tokens"},
    {MaxTokensField::MaxCompletionTokens, "max_completion_tokens"},
};

constexpr EnumName<LoadMode> kLoadModeNames[] = {
    {LoadMode::Concurrency, "concurrency"},
    {LoadMode::Rate, "rate"},
};

constexpr EnumName<Arrival> kArrivalNames[] = {
    {Arrival::Constant, "constant"},
    {Arrival::Poisson, "poisson"},
};

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

/// A rate below 1 as people write it: "0.00001", not "1e-05".
QString rateText(double rate)
{
    return QString::number(rate, 'f', std::max(0, int(std::ceil(-std::log10(rate)))));
}

} // namespace

QString controlCharacterProblem(QStringView text)
{
    qsizetype end = text.size();
    while (end > 0 && (text[end - 1] == u'\r' || text[end - 1] == u'\n'))
        --end;
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (c == u'\r' || c == u'\n')
            return i >= end ? QStringLiteral(
                                  "ends with a line break (CR or LF), as text read from a file often does; remove it")
                            : QStringLiteral("contains a line break (CR or LF)");
        if ((c.unicode() < 0x20 && c != u'\t') || c.unicode() == 0x7f)
            return QStringLiteral("contains a control character (U+%1)").arg(c.unicode(), 4, 16, QLatin1Char('0'));
    }
    return {};
}

QString httpUrlProblem(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
        url.host().isEmpty())
        return QStringLiteral("is not an http:// or https:// URL with a host");
    // QUrl takes port 0, to which no connection can be made: said now, not at the first request.
    if (url.port() == 0)
        return QStringLiteral("has port 0; a port is from 1 to 65535");
    return {};
}

namespace {

/// targetHeaderProblems() with the field each is about.
QList<ConfigProblem> headerProblems(const TargetConfig &target)
{
    QList<ConfigProblem> problems;
    if (const QString problem = controlCharacterProblem(target.resolveApiKey()); !problem.isEmpty()) {
        // Where the key came from, never the key.
        if (target.apiKey.isEmpty())
            problems << ConfigProblem{ConfigFieldId::TargetApiKeyEnv,
                                      QStringLiteral("target.api_key_env (--api-key-env): the API key in %1 %2")
                                          .arg(target.apiKeyVariable(), problem)};
        else
            problems << ConfigProblem{ConfigFieldId::TargetApiKey,
                                      QStringLiteral("target.api_key: the API key typed in %1").arg(problem)};
    }
    if (target.headers.size() > limits::kMaxHeaders)
        problems << ConfigProblem{ConfigFieldId::TargetHeaders,
                                  QStringLiteral("target.headers (--header): %1 headers; at most %2")
                                      .arg(target.headers.size())
                                      .arg(limits::kMaxHeaders)};
    for (const Header &h : target.headers) {
        if (const QString problem = headerProblem(h); !problem.isEmpty())
            problems << ConfigProblem{
                ConfigFieldId::TargetHeaders,
                QStringLiteral("target.headers (--header): '%1' %2").arg(h.name.left(64), problem)};
    }
    return problems;
}

QStringList messagesOf(const QList<ConfigProblem> &problems)
{
    QStringList messages;
    for (const ConfigProblem &p : problems)
        messages << p.message;
    return messages;
}

} // namespace

QStringList targetHeaderProblems(const TargetConfig &target)
{
    return messagesOf(headerProblems(target));
}

bool isValidHeaderName(const QString &name)
{
    static const QRegularExpression token(QStringLiteral("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"));
    return token.match(name).hasMatch();
}

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
    if (const QString problem = controlCharacterProblem(h.value); !problem.isEmpty())
        return QStringLiteral("has a value that ") + problem;
    if (h.value == QLatin1String(kRedacted))
        return QStringLiteral("has no value: credentials are never saved; give it as ${env:VARIABLE} or type it again");
    const QString var = headerEnvReference(h.value);
    if (var.isEmpty())
        return {};
    if (!qEnvironmentVariableIsSet(var.toLocal8Bit().constData()))
        return QStringLiteral("refers to the environment variable %1, which is not set").arg(var);
    if (const QString problem = controlCharacterProblem(h.resolvedValue()); !problem.isEmpty())
        return QStringLiteral("refers to the environment variable %1, whose value ").arg(var) + problem;
    return {};
}

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

QList<QSslCertificate> caCertificates(const QString &path, QString *why)
{
    QString problem;
    const auto bytes = readInputFile(path, kMaxConfigFileBytes, &problem);
    if (!bytes) {
        if (why)
            *why = QStringLiteral("cannot read '%1': %2").arg(path, problem);
        return {};
    }
    QList<QSslCertificate> certificates = QSslCertificate::fromData(*bytes, QSsl::Pem);
    if (certificates.isEmpty() && why)
        *why = QStringLiteral("'%1' holds no PEM certificate (-----BEGIN CERTIFICATE-----)").arg(path);
    return certificates;
}

QString withHomeExpanded(const QString &path)
{
    if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        return QDir::homePath() + path.mid(1);
    return path;
}

QString apiKindName(ApiKind api)
{
    return enumName(kApiNames, api);
}

std::optional<ApiKind> apiKindFromName(const QString &name)
{
    return enumFromName<ApiKind>(kApiNames, name);
}

bool apiGenerates(const QString &name)
{
    const auto api = apiKindFromName(name);
    return !api || apiGenerates(*api);
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

QString transportKindName(TransportKind kind)
{
    return enumName(kTransportNames, kind);
}

std::optional<TransportKind> transportKindFromName(const QString &name)
{
    return enumFromName<TransportKind>(kTransportNames, name);
}

QString transportKindNames()
{
    return enumNames(kTransportNames);
}

TransportKind effectiveTransport(const TargetConfig &target)
{
    if (target.transport != TransportKind::Auto)
        return target.transport;
    // Native speaks HTTP/2 over TLS (ALPN, through a proxy's tunnel too) and in clear by prior
    // knowledge when direct; h2c through a proxy is qnam's. A proxy from the environment is known
    // only to the request builder, which moves such a target to qnam too.
    const bool proxied = !target.proxy.isEmpty() && target.proxy != QLatin1String("none");
    const bool clear = QUrl(target.url).scheme() != QLatin1String("https");
    return target.httpVersion == HttpVersion::Http2 && clear && proxied ? TransportKind::Qnam : TransportKind::Native;
}

QString httpVersionName(HttpVersion version)
{
    return enumName(kHttpVersionNames, version);
}

std::optional<HttpVersion> httpVersionFromName(const QString &name)
{
    return enumFromName<HttpVersion>(kHttpVersionNames, name);
}

QString httpVersionNames()
{
    return enumNames(kHttpVersionNames);
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

QString checkOpenFiles(const RunConfig &config, int workerThreads)
{
    return checkConnectionLimits(config, workerThreads, ConnectionLimits::ofThisProcess());
}

QString TargetConfig::primaryModel() const
{
    if (!model.contains(u','))
        return model;
    const auto mix = ModelMix::parse(model, nullptr);
    return mix ? mix->names().constFirst() : model;
}

QString TargetConfig::apiKeyVariable() const
{
    return apiKeyEnv.isEmpty() ? defaultApiKeyEnv(api) : apiKeyEnv;
}

QString TargetConfig::resolveApiKey() const
{
    if (!apiKey.isEmpty())
        return apiKey;
    return qEnvironmentVariable(apiKeyVariable().toLocal8Bit().constData());
}

QString loadModeName(LoadMode mode)
{
    return enumName(kLoadModeNames, mode);
}

QString arrivalName(Arrival arrival)
{
    return enumName(kArrivalNames, arrival);
}

std::optional<LoadMode> loadModeFromName(const QString &name)
{
    return enumFromName<LoadMode>(kLoadModeNames, name);
}

std::optional<Arrival> arrivalFromName(const QString &name)
{
    return enumFromName<Arrival>(kArrivalNames, name);
}

QString loadModeNames()
{
    return enumNames(kLoadModeNames);
}

QString arrivalNames()
{
    return enumNames(kArrivalNames);
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

QList<ConfigProblem> configProblems(const RunConfig &c)
{
    QList<ConfigProblem> problems;
    const auto add = [&problems](ConfigFieldId field, const QString &message) {
        problems << ConfigProblem{field, message};
    };
    // A whole number out of its row's range, worded from the table.
    const auto outOfRange = [&add](ConfigFieldId id, qint64 value) {
        const ConfigField &f = configField(id);
        if (value >= qint64(f.minimum) && value <= qint64(f.maximum))
            return false;
        add(id, QStringLiteral("%1: must be from %2%3 to %4 (got %5)")
                    .arg(f.label())
                    .arg(qint64(f.minimum))
                    .arg(*f.zeroMeans ? QStringLiteral(" (%1)").arg(QLatin1String(f.zeroMeans)) : QString())
                    .arg(qint64(f.maximum))
                    .arg(value));
        return true;
    };
    // Only "~/" is expanded (withHomeExpanded()); another user's home is not looked up.
    if (c.outDir.startsWith(QLatin1Char('~')))
        add(ConfigFieldId::OutDir,
            QStringLiteral("out (--out): '%1': only a leading '~/' is expanded (to your home directory); "
                           "write the full path")
                .arg(c.outDir.left(256)));
    if (c.target.url.isEmpty())
        add(ConfigFieldId::TargetUrl,
            QStringLiteral("target.url (--url): missing; give the API base URL, e.g. http://127.0.0.1:8000/v1"));
    else if (const QString problem = httpUrlProblem(c.target.url); !problem.isEmpty())
        add(ConfigFieldId::TargetUrl,
            QStringLiteral("target.url (--url): '%1' %2").arg(withoutUserInfo(c.target.url), problem));
    for (int i = 0; i < c.target.replicas.size(); ++i) {
        const QString &replica = c.target.replicas.at(i);
        if (const QString problem = httpUrlProblem(replica); !problem.isEmpty())
            add(ConfigFieldId::TargetReplicas,
                QStringLiteral("target.replicas[%1] (--url): '%2' %3").arg(i).arg(withoutUserInfo(replica), problem));
        else if (c.target.instanceUrls().indexOf(replica) != i + 1)
            add(ConfigFieldId::TargetReplicas,
                QStringLiteral("target.replicas[%1] (--url): '%2' is listed twice; each instance once")
                    .arg(i)
                    .arg(withoutUserInfo(replica)));
    }
    // Names go into request bodies and onto the console: the value itself is not echoed, as a raw
    // NUL or escape sequence would reach the terminal.
    if (QString why; !ModelMix::parse(c.target.model, &why))
        add(ConfigFieldId::TargetModel, QStringLiteral("target.model (--model): ") + why);
    if (const QString problem = controlCharacterProblem(c.target.name); !problem.isEmpty())
        add(ConfigFieldId::TargetName, QStringLiteral("target.name (--name): the name ") + problem);
    problems << headerProblems(c.target);
    if (!c.target.caCertificate.isEmpty()) {
        if (QString why; caCertificates(c.target.caCertificate, &why).isEmpty())
            add(ConfigFieldId::TargetCaCert, QStringLiteral("target.ca_cert (--ca-cert): ") + why);
    }
    if (c.target.transport == TransportKind::Native && c.target.httpVersion == HttpVersion::Http2 &&
        QUrl(c.target.url).scheme() != QLatin1String("https") && !c.target.proxy.isEmpty() &&
        c.target.proxy != QLatin1String("none"))
        add(ConfigFieldId::TargetHttpVersion, QString::fromLatin1(kNativeH2ProxyProblem));
    if (const QString &t = c.target.tokenizer;
        !t.isEmpty() && t != QLatin1String("approx") && t != QLatin1String("server") && !QFileInfo(t).isReadable())
        add(ConfigFieldId::TargetTokenizer,
            QStringLiteral("target.tokenizer (--tokenizer): cannot read '%1' (accepted: approx, server, a "
                           "tokenizer.json or .tiktoken file, or a model folder)")
                .arg(t));
    // Never echoed: a URL may carry credentials.
    if (const QString problem = httpUrlProblem(c.target.serverMetricsUrl);
        !c.target.serverMetricsUrl.isEmpty() && !problem.isEmpty())
        add(ConfigFieldId::TargetServerMetricsUrl,
            QStringLiteral("target.server_metrics_url (--server-metrics): the URL ") + problem);
    else if (!QUrl(c.target.serverMetricsUrl).userInfo().isEmpty())
        add(ConfigFieldId::TargetServerMetricsUrl,
            QStringLiteral(
                "target.server_metrics_url (--server-metrics): credentials in the URL would be written to run.json; "
                "give the URL without them"));
    if (const QString problem = httpUrlProblem(c.target.gpuMetricsUrl);
        !c.target.gpuMetricsUrl.isEmpty() && !problem.isEmpty())
        add(ConfigFieldId::TargetGpuMetricsUrl,
            QStringLiteral("target.gpu_metrics_url (--gpu-metrics): the URL ") + problem);
    else if (!QUrl(c.target.gpuMetricsUrl).userInfo().isEmpty())
        add(ConfigFieldId::TargetGpuMetricsUrl,
            QStringLiteral(
                "target.gpu_metrics_url (--gpu-metrics): credentials in the URL would be written to run.json; "
                "give the URL without them"));
    const auto checkPrice = [&](const std::optional<double> &price, ConfigFieldId id) {
        const ConfigField &f = configField(id);
        if (price && !(*price >= f.minimum && *price <= f.maximum))
            add(id, QStringLiteral("%1: %2, from 0 to %3 (got %4)")
                        .arg(f.label(), QLatin1String(f.unit), number(f.maximum), number(*price)));
    };
    checkPrice(c.target.pricing.inputPerM, ConfigFieldId::PriceInput);
    checkPrice(c.target.pricing.cachedInputPerM, ConfigFieldId::PriceCachedInput);
    checkPrice(c.target.pricing.outputPerM, ConfigFieldId::PriceOutput);
    checkPrice(c.target.energyPricePerKwh, ConfigFieldId::PricePerKwh);
    if (!c.target.extraBody.is_object())
        add(ConfigFieldId::TargetExtraBody, QStringLiteral("target.extra_body: must be a JSON object"));
    else if (nestsDeeperThan(c.target.extraBody, limits::kMaxJsonDepth - 2))
        add(ConfigFieldId::TargetExtraBody,
            QStringLiteral("target.extra_body: nests deeper than %1 levels").arg(limits::kMaxJsonDepth - 2));
    // Several choices interleave in one stream: their tokens would be counted as one response's.
    else if (const auto n = c.target.extraBody.find("n"); n != c.target.extraBody.end() && *n != 1)
        add(ConfigFieldId::TargetExtraBody,
            QStringLiteral("target.extra_body.n: only 1 choice per request is measured (got %1); remove \"n\"")
                .arg(fromStd(n->dump()).left(40)));

    outOfRange(ConfigFieldId::MaxTokens, c.request.maxTokens);
    if (c.request.temperature && !(*c.request.temperature >= 0 && *c.request.temperature <= 2))
        add(ConfigFieldId::Temperature,
            QStringLiteral("request.temperature (--temperature): must be between 0 and 2 (got %1)")
                .arg(number(*c.request.temperature)));
    if (c.request.topP && !(*c.request.topP > 0 && *c.request.topP <= 1))
        add(ConfigFieldId::TopP,
            QStringLiteral("request.top_p (--top-p): must be in (0, 1] (got %1)").arg(number(*c.request.topP)));

    outOfRange(ConfigFieldId::ToolResultTokens, c.request.toolResultTokens);

    // Embeddings and rerank: a batch of inputs, not a generation; nothing streams and no reply
    // comes back.
    if (!outOfRange(ConfigFieldId::BatchSize, c.request.batchSize) && c.request.batchSize > 1 &&
        apiGenerates(c.target.api))
        add(ConfigFieldId::BatchSize,
            QStringLiteral("request.batch_size (--batch-size): is the inputs of one embeddings, rerank or score "
                           "request; it needs --api openai-embeddings, rerank or score (got %1 with %2)")
                .arg(c.request.batchSize)
                .arg(apiKindName(c.target.api)));
    if (!apiGenerates(c.target.api) && c.load.turns > 1)
        add(ConfigFieldId::Turns, QStringLiteral("load.turns (--turns): --api %1 answers with no reply to carry into "
                                                 "a next turn")
                                      .arg(apiKindName(c.target.api)));

    // Images: only the APIs with image input take them; their bytes are bounded per request.
    if (!outOfRange(ConfigFieldId::Images, c.prompt.images) && c.prompt.images > 0) {
        const auto size = parseImageSize(c.prompt.imageSize);
        if (!apiTakesMessages(c.target.api))
            add(ConfigFieldId::Images,
                QStringLiteral("prompt.images (--images): %1 takes no image input; use openai-chat, openai-responses "
                               "or anthropic-messages")
                    .arg(apiKindName(c.target.api)));
        else if (c.load.turns > 1)
            add(ConfigFieldId::Images,
                QStringLiteral("prompt.images (--images): not with conversations (--turns %1): a turn would carry "
                               "every earlier turn's images again")
                    .arg(c.load.turns));
        if (!size)
            add(ConfigFieldId::ImageSize,
                QStringLiteral("prompt.image_size (--image-size): '%1' is not WxH with each side from %2 to %3")
                    .arg(c.prompt.imageSize.left(40))
                    .arg(limits::kMinImageSide)
                    .arg(limits::kMaxImageSide));
        else if (qint64(c.prompt.images) * size->first * size->second * 3 > limits::kMaxImageRawBytes)
            add(ConfigFieldId::ImageSize,
                QStringLiteral("prompt.image_size (--image-size): %1 images of %2x%3 are %4 MiB of pixels a request; "
                               "at most %5 MiB")
                    .arg(c.prompt.images)
                    .arg(size->first)
                    .arg(size->second)
                    .arg(number(double(qint64(c.prompt.images) * size->first * size->second * 3) / (1 << 20)))
                    .arg(limits::kMaxImageRawBytes >> 20));
    }

    outOfRange(ConfigFieldId::PromptTokens, c.prompt.promptTokens);
    if (!outOfRange(ConfigFieldId::SystemTokens, c.prompt.systemTokens) &&
        qint64(c.prompt.promptTokens) + c.prompt.systemTokens > limits::kMaxPromptTokens)
        add(ConfigFieldId::SystemTokens,
            QStringLiteral("prompt.system_tokens (--system-tokens): with prompt_tokens %1 tokens a request; at most %2")
                .arg(qint64(c.prompt.promptTokens) + c.prompt.systemTokens)
                .arg(limits::kMaxPromptTokens));
    if (c.prompt.salt.size() > 256)
        add(ConfigFieldId::Salt,
            QStringLiteral("prompt.salt (--prompt-salt): at most 256 characters (got %1)").arg(c.prompt.salt.size()));
    if (c.prompt.sharedPrefixTokens < 0 ||
        (c.prompt.promptTokens > 0 && c.prompt.sharedPrefixTokens > c.prompt.promptTokens))
        add(ConfigFieldId::SharedPrefixTokens,
            QStringLiteral("prompt.shared_prefix_tokens: must be between 0 and prompt_tokens (got %1)")
                .arg(c.prompt.sharedPrefixTokens));
    if (!c.prompt.promptFile.isEmpty()) {
        const QFileInfo info(c.prompt.promptFile);
        if (!info.isFile() || !info.isReadable())
            add(ConfigFieldId::PromptFile,
                QStringLiteral("prompt.prompt_file (--prompt-file): cannot read '%1'").arg(c.prompt.promptFile));
    }

    QStringList workloadFiles;
    const auto checkWorkloadFile = [&](const QString &path, ConfigFieldId id) {
        if (path.isEmpty())
            return;
        const QString label = configField(id).label();
        workloadFiles << label;
        const QFileInfo info(path);
        if (!info.isFile() || !info.isReadable())
            add(id, QStringLiteral("%1: cannot read '%2'").arg(label, path));
    };
    checkWorkloadFile(c.prompt.dataset, ConfigFieldId::Dataset);
    checkWorkloadFile(c.load.trace, ConfigFieldId::Trace);
    if (!c.prompt.promptFile.isEmpty())
        workloadFiles.prepend(configField(ConfigFieldId::PromptFile).label());
    if (workloadFiles.size() > 1)
        add(c.prompt.promptFile.isEmpty() ? ConfigFieldId::Dataset : ConfigFieldId::PromptFile,
            QStringLiteral("%1: one workload file at a time").arg(workloadFiles.join(QStringLiteral(" and "))));
    const auto checkRange = [&](int min, int max, ConfigFieldId id) {
        if (min < 0 || max < 0 || (max > 0 && min > max))
            add(id, QStringLiteral("%1: must be MIN..MAX with 0 <= MIN <= MAX (got %2..%3)")
                        .arg(configField(id).label())
                        .arg(min)
                        .arg(max));
    };
    checkRange(c.prompt.promptLenMin, c.prompt.promptLenMax, ConfigFieldId::DatasetPromptLen);
    checkRange(c.prompt.outputLenMin, c.prompt.outputLenMax, ConfigFieldId::DatasetOutputLen);
    outOfRange(ConfigFieldId::DatasetSample, c.prompt.datasetSample);
    if (!c.load.trace.isEmpty() && !c.load.stages.isEmpty())
        add(ConfigFieldId::Trace,
            QStringLiteral("load.trace (--trace): a trace is its own schedule; remove load.stages (--stages/--sweep)"));
    if (!(c.load.timeScale > 0 && c.load.timeScale <= 1000))
        add(ConfigFieldId::TimeScale,
            QStringLiteral("load.time_scale (--time-scale): must be greater than 0 and at most 1000 (got %1)")
                .arg(number(c.load.timeScale)));

    const LoadConfig &l = c.load;
    if (l.stages.isEmpty() && l.trace.isEmpty()) {
        if (l.mode == LoadMode::Concurrency)
            outOfRange(ConfigFieldId::Concurrency, l.concurrency);
        if (l.mode == LoadMode::Rate && !(l.rate >= limits::kMinRate && l.rate <= limits::kMaxRate))
            add(ConfigFieldId::Rate, QStringLiteral("load.rate (--rate): must be from %1 to %2 requests/s (got %3)")
                                         .arg(rateText(limits::kMinRate), number(limits::kMaxRate), number(l.rate)));
    }
    if (l.stages.size() > limits::kMaxStages)
        add(ConfigFieldId::Stages, QStringLiteral("load.stages (--stages): %1 stages; at most %2")
                                       .arg(l.stages.size())
                                       .arg(limits::kMaxStages));
    for (int i = 0; i < l.stages.size() && i < limits::kMaxStages; ++i) {
        const StageConfig &s = l.stages.at(i);
        const QString where = QStringLiteral("load.stages[%1] (--stages)").arg(i);
        const auto stageProblem = [&](const QString &message) { add(ConfigFieldId::Stages, message); };
        if (const QString problem = controlCharacterProblem(s.name); !problem.isEmpty())
            stageProblem(QStringLiteral("%1: the name ").arg(where) + problem);
        const double maxLevel = s.mode == LoadMode::Concurrency ? double(limits::kMaxConcurrency) : limits::kMaxRate;
        if (s.mode == LoadMode::Rate && !(s.level >= limits::kMinRate && s.level <= maxLevel))
            stageProblem(QStringLiteral("%1: a rate must be from %2 to %3 requests/s (got %4)")
                             .arg(where, rateText(limits::kMinRate), number(maxLevel), number(s.level)));
        else if (!(s.level > 0 && s.level <= maxLevel))
            stageProblem(QStringLiteral("%1: level must be greater than 0 and at most %2 (got %3)")
                             .arg(where, number(maxLevel), number(s.level)));
        else if (s.mode == LoadMode::Concurrency && s.level != std::floor(s.level))
            stageProblem(
                QStringLiteral("%1: concurrency must be a whole number of users (got %2)").arg(where, number(s.level)));
        if (s.durationMs < 0 || s.requests < 0 || s.durationMs > limits::kMaxDurationMs ||
            s.requests > limits::kMaxRequests)
            stageProblem(QStringLiteral("%1: duration and requests must not be negative, at most %2 and %3 requests")
                             .arg(where, formatDuration(limits::kMaxDurationMs))
                             .arg(limits::kMaxRequests));
        if (s.promptTokens > 0 && (!c.prompt.promptFile.isEmpty() || !c.prompt.dataset.isEmpty() || !l.trace.isEmpty()))
            stageProblem(QStringLiteral("%1: a context sweep's prompt size needs synthetic prompts; remove the prompt "
                                        "file, dataset or trace")
                             .arg(where));
        if (s.promptTokens < 0 || s.promptTokens > limits::kMaxPromptTokens)
            stageProblem(QStringLiteral("%1: prompt_tokens must be from 0 (the run's prompts) to %2 (got %3)")
                             .arg(where)
                             .arg(limits::kMaxPromptTokens)
                             .arg(s.promptTokens));
    }
    outOfRange(ConfigFieldId::MaxInFlight, l.maxInFlight);
    outOfRange(ConfigFieldId::Requests, l.requests);
    if (l.durationMs < 0 || l.durationMs > limits::kMaxDurationMs)
        add(ConfigFieldId::Duration, QStringLiteral("load.duration (--duration): must be from 0 to %1")
                                         .arg(formatDuration(limits::kMaxDurationMs)));
    if (l.warmupMs < 0 || l.warmupRequests < 0 || l.warmupMs > limits::kMaxDurationMs ||
        l.warmupRequests > limits::kMaxRequests)
        add(l.warmupMs < 0 || l.warmupMs > limits::kMaxDurationMs ? ConfigFieldId::WarmupDuration
                                                                  : ConfigFieldId::WarmupRequests,
            QStringLiteral("load.warmup (--warmup): must not be negative, at most %1 or %2 requests")
                .arg(formatDuration(limits::kMaxDurationMs))
                .arg(limits::kMaxRequests));
    if (l.sliceMs < 0 || l.sliceMs > limits::kMaxDurationMs)
        add(ConfigFieldId::Slice, QStringLiteral("load.slice (--slice): must be from 0 (off) to %1")
                                      .arg(formatDuration(limits::kMaxDurationMs)));
    if (!parseHeadlineWindow(l.window))
        add(ConfigFieldId::Window,
            QStringLiteral("load.window (--window): '%1' is not all, steady or a duration (e.g. 30s) of at most %2")
                .arg(l.window.left(40), formatDuration(limits::kMaxDurationMs)));
    if (!(l.cancelRate >= 0 && l.cancelRate <= 1))
        add(ConfigFieldId::CancelRate, QStringLiteral("load.cancel_rate (--cancel-rate): must be from 0 to 1"));
    if ((l.cancelRate > 0 || !l.cancelAfter.isEmpty()) && !parseCancelAfter(l.cancelAfter))
        add(ConfigFieldId::CancelAfter,
            QStringLiteral("load.cancel_after (--cancel-after): '%1' is not a duration (e.g. 200ms) or "
                           "first-token+D of at most %2; --cancel-rate needs it")
                .arg(l.cancelAfter.left(40), formatDuration(limits::kMaxDurationMs)));
    if (l.timeoutMs <= 0 || l.timeoutMs > limits::kMaxDurationMs)
        add(ConfigFieldId::Timeout, QStringLiteral("load.timeout (--timeout): must be greater than 0 and at most %1")
                                        .arg(formatDuration(limits::kMaxDurationMs)));
    if (problems.isEmpty()) {
        if (const QString files = checkOpenFiles(c, 0); !files.isEmpty())
            add(ConfigFieldId::Concurrency, QStringLiteral("load.concurrency (--concurrency): ") + files);
    }
    if (l.connectTimeoutMs <= 0)
        add(ConfigFieldId::ConnectTimeout,
            QStringLiteral("load.connect_timeout (--connect-timeout): must be greater than 0"));
    outOfRange(ConfigFieldId::Turns, l.turns);
    if (l.thinkTimeMs < 0 || l.thinkTimeMs > limits::kMaxDurationMs)
        add(ConfigFieldId::ThinkTime, QStringLiteral("load.think_time (--think-time): must be from 0 to %1")
                                          .arg(formatDuration(limits::kMaxDurationMs)));
    else if (l.thinkTimeMs > 0 && l.turns < 2)
        add(ConfigFieldId::ThinkTime,
            QStringLiteral("load.think_time (--think-time): is the pause between a conversation's turns; it needs "
                           "--turns 2 or more"));

    const auto checkSlo = [&](const std::optional<double> &v, ConfigFieldId id) {
        if (v && !(*v > 0 && std::isfinite(*v)))
            add(id, QStringLiteral("%1 (--slo): must be greater than 0 ms (got %2)")
                        .arg(configField(id).path(), number(*v)));
    };
    checkSlo(c.slo.ttftMs, ConfigFieldId::SloTtft);
    checkSlo(c.slo.tpotMs, ConfigFieldId::SloTpot);
    checkSlo(c.slo.e2eMs, ConfigFieldId::SloE2e);
    // Without a threshold every request is good: the run could never fail on it.
    if (c.slo.failOnSlo && c.slo.isEmpty())
        add(ConfigFieldId::FailOnSlo,
            QStringLiteral("slo.fail_on_slo (--fail-on-slo): needs thresholds to judge by; give --slo "
                           "(slo.ttft_ms, slo.tpot_ms or slo.e2e_ms)"));
    if (!(c.slo.target > 0 && c.slo.target <= 1))
        add(ConfigFieldId::SloTarget,
            QStringLiteral("slo.target (--slo-target): must be in (0, 1] (got %1)").arg(number(c.slo.target)));
    if (!(c.quality.redundancyThreshold >= 0 && c.quality.redundancyThreshold <= 1))
        add(ConfigFieldId::RedundancyThreshold,
            QStringLiteral("quality.redundancy_threshold (--redundancy-threshold): must be from 0 to 1 (got %1)")
                .arg(number(c.quality.redundancyThreshold)));
    // Structured output
    if (const auto format = parseResponseFormat(c.request.responseFormat); !format)
        add(ConfigFieldId::ResponseFormat,
            QStringLiteral("request.response_format (--response-format): '%1' is not json_object or json_schema:FILE")
                .arg(c.request.responseFormat.left(60)));
    else if (format->kind == ResponseFormat::Kind::JsonObject && c.target.api == ApiKind::AnthropicMessages)
        add(ConfigFieldId::ResponseFormat,
            QStringLiteral("request.response_format (--response-format): Anthropic's messages API has no JSON mode "
                           "without a schema (output_config.format takes json_schema only); give json_schema:FILE"));
    // Tool calling: the file itself is read and checked with the request body (RequestBuilder).
    const bool offersTools = !c.request.tools.isEmpty();
    if (offersTools && !apiTakesMessages(c.target.api))
        add(ConfigFieldId::Tools, QStringLiteral("request.tools (--tools): the %1 API has no tools; use openai-chat, "
                                                 "openai-responses or anthropic-messages")
                                      .arg(apiKindName(c.target.api)));
    if (!parseToolChoice(c.request.toolChoice))
        add(ConfigFieldId::ToolChoice,
            QStringLiteral("request.tool_choice (--tool-choice): '%1' is not auto, required, none or a tool name "
                           "(letters, digits, '_' and '-', at most 64)")
                .arg(c.request.toolChoice.left(60)));
    else if (!c.request.toolChoice.isEmpty() && !offersTools)
        add(ConfigFieldId::ToolChoice,
            QStringLiteral(
                "request.tool_choice (--tool-choice): chooses among the tools of --tools; give --tools FILE"));
    return problems;
}

std::optional<std::pair<int, int>> parseImageSize(const QString &text)
{
    const QStringList sides = text.split(QLatin1Char('x'));
    if (sides.size() != 2)
        return std::nullopt;
    bool wOk = false;
    bool hOk = false;
    const int w = sides[0].toInt(&wOk);
    const int h = sides[1].toInt(&hOk);
    const auto inRange = [](int side) { return side >= limits::kMinImageSide && side <= limits::kMaxImageSide; };
    if (!wOk || !hOk || !inRange(w) || !inRange(h))
        return std::nullopt;
    return std::make_pair(w, h);
}

std::optional<ToolChoice> parseToolChoice(const QString &text)
{
    if (text.isEmpty())
        return ToolChoice{};
    if (text == QLatin1String("auto"))
        return ToolChoice{ToolChoice::Kind::Auto, {}};
    if (text == QLatin1String("required"))
        return ToolChoice{ToolChoice::Kind::Required, {}};
    if (text == QLatin1String("none"))
        return ToolChoice{ToolChoice::Kind::None, {}};
    if (text.size() > 64)
        return std::nullopt;
    for (const QChar c : text) {
        if (!(c.isLetterOrNumber() && c.unicode() < 128) && c != QLatin1Char('_') && c != QLatin1Char('-'))
            return std::nullopt;
    }
    return ToolChoice{ToolChoice::Kind::Named, text.toStdString()};
}

std::optional<ResponseFormat> parseResponseFormat(const QString &text)
{
    static const QString schemaPrefix = QStringLiteral("json_schema:");
    if (text.isEmpty())
        return ResponseFormat{};
    if (text == QLatin1String("json_object"))
        return ResponseFormat{ResponseFormat::Kind::JsonObject, {}};
    if (text.startsWith(schemaPrefix) && text.size() > schemaPrefix.size())
        return ResponseFormat{ResponseFormat::Kind::JsonSchema, withHomeExpanded(text.mid(schemaPrefix.size()))};
    return std::nullopt;
}

std::optional<nlohmann::json> readSchemaFile(const QString &path, QString *why)
{
    QString problem;
    const auto bytes = readInputFile(path, kMaxSchemaFileBytes, &problem);
    std::optional<nlohmann::json> json = bytes ? parseJsonBounded(*bytes, &problem) : std::nullopt;
    if (!json && why)
        *why = QStringLiteral("%1: %2").arg(path, problem);
    return json;
}

QStringList validate(const RunConfig &config)
{
    return messagesOf(configProblems(config));
}

} // namespace tb
