#include "api/requestbuilder.h"

#include <QFileInfo>

#include <algorithm>
#include <cctype>

namespace tb {

bool isRedirect(int status)
{
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

namespace {

/// The endpoint a URL's connections go to: host, port, TLS, and the proxy chosen for it.
std::optional<Endpoint> endpointFor(const QUrl &url, const TargetConfig &target, const QString &proxySetting,
                                    QString *error)
{
    const bool tls = url.scheme() == QLatin1String("https");
    Endpoint e{
        url.host(), quint16(url.port(tls ? 443 : 80)), tls, target.tlsVerify, target.caCertificate, target.httpVersion,
        {}};
    const auto proxy = ProxyResolver::resolve(url, proxySetting, error);
    if (!proxy)
        return std::nullopt;
    e.proxy = *proxy;
    return e;
}

/// OpenAI wants a schema's name of at most 64 letters, digits, '_' and '-': the file's base name so.
std::string schemaNameOf(const QString &file)
{
    std::string name = QFileInfo(file).completeBaseName().left(64).toStdString();
    for (char &c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-')
            c = '_';
    }
    return name.empty() ? std::string("output") : name;
}

bool sameOrigin(const QUrl &a, const QUrl &b)
{
    return a.scheme() == b.scheme() && a.host().compare(b.host(), Qt::CaseInsensitive) == 0 &&
           a.port(a.scheme() == QLatin1String("https") ? 443 : 80) ==
               b.port(b.scheme() == QLatin1String("https") ? 443 : 80);
}

} // namespace

QByteArray RequestBuilder::hostPort(const QUrl &url)
{
    QByteArray text = url.host(QUrl::FullyEncoded).toLatin1();
    if (text.contains(':'))
        text = '[' + text + ']';
    if (url.port() >= 0)
        text += ':' + QByteArray::number(url.port());
    return text;
}

QByteArray RequestBuilder::joinPath(const QUrl &base, const char *suffix)
{
    QByteArray path = base.path(QUrl::FullyEncoded).toLatin1();
    while (path.endsWith('/'))
        path.chop(1);
    path += suffix;
    if (base.hasQuery())
        path += '?' + base.query(QUrl::FullyEncoded).toLatin1();
    return path;
}

std::optional<RequestBuilder> RequestBuilder::create(const TargetConfig &target, const RequestConfig &request,
                                                     QString *error)
{
    if (const QString problem = httpUrlProblem(target.url); !problem.isEmpty()) {
        if (error)
            *error = QStringLiteral("target.url (--url): '%1' %2").arg(withoutUserInfo(target.url), problem);
        return std::nullopt;
    }
    const auto headers = targetHeaders(target, error);
    if (!headers)
        return std::nullopt;
    const QUrl url(target.url, QUrl::StrictMode);
    const bool tls = url.scheme() == QLatin1String("https");
    RequestBuilder b;
    b.m_dialect = &dialectFor(target.api);
    b.m_request = request;
    // Embeddings have no stream: request.stream (on by default) does not apply to them.
    b.m_request.stream = request.stream && b.m_dialect->generates();
    b.m_model = target.primaryModel().toStdString(); // a mix's requests name theirs (body())
    b.m_maxTokensKey = maxTokensKey(target, request.maxTokensField);
    b.m_extraBody = target.extraBody;
    // Structured output and tools: the files are read and checked once, before any request.
    if (!b.loadRequestFiles(request, error))
        return std::nullopt;
    b.m_proxySetting = target.proxy;
    b.m_followRedirects = target.followRedirects;
    b.m_transport = effectiveTransport(target);
    const auto endpoint = endpointFor(url, target, target.proxy, error);
    if (!endpoint)
        return std::nullopt;
    b.m_endpoint = *endpoint;
    if (target.httpVersion == HttpVersion::Http2 && b.m_transport == TransportKind::Native && !endpoint->proxy.direct &&
        !tls) {
        if (target.transport == TransportKind::Native) {
            if (error)
                *error = QString::fromLatin1(kNativeH2ProxyProblem);
            return std::nullopt;
        }
        b.m_transport = TransportKind::Qnam; // auto: h2c cannot cross the environment's proxy
    }
    b.m_path = joinPath(url, b.m_dialect->path());
    b.m_url = url;
    b.m_url.setUserInfo({});
    const qsizetype query = b.m_path.indexOf('?');
    b.m_url.setPath(QString::fromLatin1(query < 0 ? b.m_path : b.m_path.left(query)), QUrl::TolerantMode);
    // A proxy without a tunnel needs the whole URL to know where to go (RFC 9112 3.2.2).
    if (b.m_endpoint.proxiedPlain())
        b.m_targetPrefix = "http://" + hostPort(url);

    QByteArray common = "User-Agent: tokenbench\r\nConnection: keep-alive\r\n";
    common += "Accept-Encoding: identity\r\n"; // compressed SSE would arrive in bursts, and timed wrong
    b.m_commonHeaderList = {qMakePair(QByteArray("User-Agent"), QByteArray("tokenbench")),
                            qMakePair(QByteArray("Accept-Encoding"), QByteArray("identity"))};
    QByteArray credentials;
    for (const auto &[name, value] : *headers) {
        const bool credential = isCredentialHeader(QString::fromLatin1(name));
        (credential ? credentials : common) += name + ": " + value + "\r\n";
        (credential ? b.m_credentialHeaderList : b.m_commonHeaderList).append(qMakePair(name, value));
    }
    b.m_commonHeaders = common;
    b.m_credentialHeaders = credentials;
    b.m_headers = b.head("POST", b.m_url, b.m_endpoint, true);
    b.m_headers.remove(0, b.m_headers.indexOf("\r\n") + 2); // the request line is written per request
    return b;
}

bool RequestBuilder::loadRequestFiles(const RequestConfig &request, QString *error)
{
    // Structured output: the schema is read and checked once, before any request.
    const auto format = parseResponseFormat(request.responseFormat);
    m_checksOutput = format && format->kind != ResponseFormat::Kind::None;
    if (format && format->kind == ResponseFormat::Kind::JsonSchema) {
        QString why;
        const auto json = readSchemaFile(format->schemaFile, &why);
        auto schema = json ? JsonSchema::compile(*json, &why) : std::nullopt;
        if (json && !schema)
            why = format->schemaFile + QStringLiteral(": ") + why;
        if (!schema) {
            if (error)
                *error = QStringLiteral("request.response_format (--response-format): ") + why;
            return false;
        }
        m_outputSchema = std::make_shared<const JsonSchema>(*schema);
        m_schemaName = schemaNameOf(format->schemaFile);
    }
    // Tools: the file is read, and the choice checked against it, once before any request.
    if (!request.tools.isEmpty()) {
        QString why;
        auto tools = ToolSet::load(withHomeExpanded(request.tools),
                                   parseToolChoice(request.toolChoice).value_or(ToolChoice{}), &why);
        if (!tools) {
            if (error)
                *error = QStringLiteral("request.tools (--tools): ") + why;
            return false;
        }
        m_tools = std::make_shared<const ToolSet>(std::move(*tools));
    }
    return true;
}

QString RequestBuilder::requestFilesProblem(const RequestConfig &request)
{
    RequestBuilder b;
    QString error;
    return b.loadRequestFiles(request, &error) ? QString() : error;
}

QByteArray RequestBuilder::requestTarget(const QUrl &url)
{
    QByteArray pathAndQuery = url.path(QUrl::FullyEncoded).toLatin1();
    if (pathAndQuery.isEmpty())
        pathAndQuery = "/";
    if (url.hasQuery())
        pathAndQuery += '?' + url.query(QUrl::FullyEncoded).toLatin1();
    return pathAndQuery;
}

QByteArray RequestBuilder::head(const char *method, const QUrl &url, const Endpoint &endpoint, bool credentials) const
{
    const QByteArray pathAndQuery = requestTarget(url);
    const QByteArray authority = hostPort(url);
    QByteArray h = QByteArray(method) + ' ' + (endpoint.proxiedPlain() ? "http://" + authority : QByteArray()) +
                   pathAndQuery + " HTTP/1.1\r\n";
    h += "Host: " + authority + "\r\n";
    h += m_commonHeaders;
    if (credentials)
        h += m_credentialHeaders;
    if (endpoint.proxiedPlain()) {
        if (const QByteArray auth = endpoint.proxy.authorization(); !auth.isEmpty())
            h += "Proxy-Authorization: " + auth + "\r\n";
    }
    return h;
}

std::optional<RedirectedRequest> RequestBuilder::redirect(const QUrl &from, const QByteArray &location, int status,
                                                          const std::string &json, QString *error) const
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!isRedirect(status))
        return fail(QStringLiteral("HTTP %1 is not a redirect").arg(status));
    if (location.isEmpty())
        return fail(QStringLiteral("HTTP %1 without a Location").arg(status));
    QUrl to = from.resolved(QUrl(QString::fromLatin1(location), QUrl::StrictMode));
    to.setFragment({});
    if (!to.isValid() || to.host().isEmpty() ||
        (to.scheme() != QLatin1String("http") && to.scheme() != QLatin1String("https")))
        return fail(QStringLiteral("HTTP %1 to '%2': not an http:// or https:// URL")
                        .arg(status)
                        .arg(withoutUserInfo(QString::fromLatin1(location.left(200)))));
    // userinfo in a Location would be credentials the target never gave us to send.
    to.setUserInfo({});
    TargetConfig settings;
    settings.tlsVerify = m_endpoint.verifyTls;
    settings.caCertificate = m_endpoint.caCertificate;
    settings.httpVersion = m_endpoint.httpVersion;
    QString why;
    const auto endpoint = endpointFor(to, settings, m_proxySetting, &why);
    if (!endpoint)
        return fail(why);
    RedirectedRequest r;
    r.url = to;
    r.endpoint = *endpoint;
    r.keepsBody = status == 307 || status == 308;
    r.credentials = sameOrigin(to, m_url);
    const bool credentials = r.credentials;
    if (r.keepsBody) {
        r.message = head("POST", to, r.endpoint, credentials) + "Content-Type: application/json\r\n";
        if (m_request.stream)
            r.message += "Accept: text/event-stream\r\n";
        r.message += "Content-Length: " + QByteArray::number(qsizetype(json.size())) + "\r\n\r\n";
        r.message.append(json.data(), qsizetype(json.size()));
    } else {
        r.message = head("GET", to, r.endpoint, credentials) + "\r\n";
    }
    return r;
}

QList<QPair<QByteArray, QByteArray>> RequestBuilder::requestHeaders(bool credentials, bool post) const
{
    QList<QPair<QByteArray, QByteArray>> headers = m_commonHeaderList;
    if (credentials)
        headers += m_credentialHeaderList;
    if (post) {
        headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        if (m_request.stream)
            headers.append(qMakePair(QByteArray("Accept"), QByteArray("text/event-stream")));
    }
    return headers;
}

const char *RequestBuilder::maxTokensKey(const TargetConfig &target, MaxTokensField field)
{
    return dialectFor(target.api).maxTokensKey(target, field);
}

std::optional<QList<QPair<QByteArray, QByteArray>>> RequestBuilder::targetHeaders(const TargetConfig &target,
                                                                                  QString *error)
{
    if (const QStringList problems = targetHeaderProblems(target); !problems.isEmpty()) {
        if (error)
            *error = problems.first();
        return std::nullopt;
    }
    QList<QPair<QByteArray, QByteArray>> headers;
    const auto given = [&target](const char *name) {
        return std::any_of(target.headers.begin(), target.headers.end(), [name](const Header &h) {
            return h.name.compare(QLatin1String(name), Qt::CaseInsensitive) == 0;
        });
    };
    const auto add = [&headers, &given](const char *name, const QByteArray &value) {
        if (!given(name))
            headers.append(qMakePair(QByteArray(name), value));
    };
    const QByteArray key = target.resolveApiKey().toUtf8();
    // userinfo in the URL is HTTP Basic credentials (a proxy in front of the server); it takes the
    // Authorization header from an API key that may only be set in the environment by chance.
    const QUrl url(target.url);
    const QByteArray basic =
        (url.userName(QUrl::FullyDecoded) + QLatin1Char(':') + url.password(QUrl::FullyDecoded)).toUtf8().toBase64();
    if (!url.userInfo().isEmpty())
        add("Authorization", "Basic " + basic);
    dialectFor(target.api).addCredentials(key, !url.userInfo().isEmpty(), add);
    for (const Header &header : target.headers)
        headers.append(qMakePair(header.name.toLatin1(), header.resolvedValue().toUtf8()));
    return headers;
}

nlohmann::json RequestBuilder::body(const Prompt &prompt, std::string_view model) const
{
    const int maxTokens = prompt.maxTokens > 0 ? prompt.maxTokens : m_request.maxTokens;
    nlohmann::json body = {{"model", model.empty() ? m_model : std::string(model)}};
    if (m_dialect->generates()) {
        body[m_maxTokensKey] = maxTokens;
        body["stream"] = m_request.stream;
        if (m_request.temperature)
            body["temperature"] = *m_request.temperature;
        if (m_request.topP)
            body["top_p"] = *m_request.topP;
    }
    m_dialect->writeBody(body, prompt, m_request.stream);
    if (m_checksOutput)
        m_dialect->writeResponseFormat(body, m_outputSchema ? m_outputSchema->json() : nlohmann::json(), m_schemaName);
    if (m_tools)
        m_dialect->writeTools(body, *m_tools);
    if (m_extraBody.is_object() && !m_extraBody.empty())
        body.merge_patch(m_extraBody);
    return body;
}

QByteArray RequestBuilder::httpRequest(const Prompt &prompt) const
{
    return httpRequest(bodyText(prompt));
}

std::string RequestBuilder::bodyText(const Prompt &prompt, std::string_view model) const
{
    // A conversation's history holds the server's replies: text that is not UTF-8 is replaced,
    // not a reason to throw.
    return body(prompt, model).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

QByteArray RequestBuilder::httpRequest(const std::string &json) const
{
    QByteArray r;
    r.reserve(qsizetype(m_path.size() + m_headers.size() + json.size() + 256));
    r += "POST " + m_targetPrefix + m_path + " HTTP/1.1\r\n";
    r += m_headers;
    r += "Content-Type: application/json\r\n";
    if (m_request.stream)
        r += "Accept: text/event-stream\r\n";
    r += "Content-Length: " + QByteArray::number(qsizetype(json.size())) + "\r\n\r\n";
    r.append(json.data(), qsizetype(json.size()));
    return r;
}

} // namespace tb
