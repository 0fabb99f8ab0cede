#include "engine/requestbuilder.h"

#include <algorithm>

namespace tb {

namespace {

constexpr const char kAnthropicVersion[] = "2023-06-01";

} // namespace

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
    const QUrl url(target.url, QUrl::StrictMode);
    const bool tls = url.scheme() == QLatin1String("https");
    if (!url.isValid() || url.host().isEmpty() || (!tls && url.scheme() != QLatin1String("http"))) {
        if (error)
            *error = QStringLiteral("target.url (--url): '%1' is not an http:// or https:// URL with a host")
                         .arg(withoutUserInfo(target.url));
        return std::nullopt;
    }
    RequestBuilder b;
    b.m_api = target.api;
    b.m_request = request;
    b.m_model = target.model.toStdString();
    b.m_maxTokensKey = maxTokensKey(target, request.maxTokensField);
    b.m_extraBody = target.extraBody;
    b.m_endpoint = {url.host(),        quint16(url.port(tls ? 443 : 80)), tls, target.tlsVerify, target.caCertificate,
                    target.httpVersion};
    b.m_transport = effectiveTransport(target);
    switch (target.api) {
    case ApiKind::OpenAIChat:
        b.m_path = joinPath(url, "/chat/completions");
        break;
    case ApiKind::OpenAICompletions:
        b.m_path = joinPath(url, "/completions");
        break;
    case ApiKind::AnthropicMessages:
        b.m_path = joinPath(url, "/messages");
        break;
    }
    b.m_modelsPath = joinPath(url, "/models");

    b.m_requestUrl = url.adjusted(QUrl::RemoveUserInfo);
    QByteArray path = b.m_path;
    if (const qsizetype query = path.indexOf('?'); query >= 0)
        path.truncate(query);
    b.m_requestUrl.setPath(QString::fromLatin1(path));

    auto &list = b.m_headerList;
    list.append(qMakePair(QByteArray("User-Agent"), QByteArray("tokenbench")));
    // Compressed SSE would arrive in bursts, and timed wrong.
    list.append(qMakePair(QByteArray("Accept-Encoding"), QByteArray("identity")));
    list += targetHeaders(target);
    list.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    if (request.stream)
        list.append(qMakePair(QByteArray("Accept"), QByteArray("text/event-stream")));
    QByteArray h;
    const bool defaultPort = url.port() < 0;
    h += "Host: " + url.host(QUrl::FullyEncoded).toLatin1();
    if (!defaultPort)
        h += ':' + QByteArray::number(url.port());
    h += "\r\nConnection: keep-alive\r\n";
    // Without the last two: the models request (a GET) shares the rest.
    for (qsizetype i = 0; i < list.size() - (request.stream ? 2 : 1); ++i)
        h += list[i].first + ": " + list[i].second + "\r\n";
    b.m_headers = h;
    return b;
}

const char *RequestBuilder::maxTokensKey(const TargetConfig &target, MaxTokensField field)
{
    if (target.api == ApiKind::AnthropicMessages)
        return "max_tokens"; // its only name
    switch (field) {
    case MaxTokensField::MaxTokens:
        return "max_tokens";
    case MaxTokensField::MaxCompletionTokens:
        return "max_completion_tokens";
    case MaxTokensField::Auto:
        break;
    }
    if (target.api != ApiKind::OpenAIChat)
        return "max_tokens";
    const QString host = QUrl(target.url).host().toLower();
    const bool openAi = host == QLatin1String("api.openai.com") || host.endsWith(QLatin1String(".openai.azure.com"));
    return openAi ? "max_completion_tokens" : "max_tokens";
}

QList<QPair<QByteArray, QByteArray>> RequestBuilder::targetHeaders(const TargetConfig &target)
{
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
    if (target.api == ApiKind::AnthropicMessages) {
        if (!key.isEmpty())
            add("x-api-key", key);
        add("anthropic-version", QByteArray(kAnthropicVersion));
    } else if (!key.isEmpty() && url.userInfo().isEmpty()) {
        add("Authorization", "Bearer " + key);
    }
    for (const Header &header : target.headers)
        headers.append(qMakePair(header.name.toLatin1(), header.resolvedValue().toUtf8()));
    return headers;
}

nlohmann::json RequestBuilder::body(const Prompt &prompt) const
{
    nlohmann::json body = {{"model", m_model}, {m_maxTokensKey, m_request.maxTokens}, {"stream", m_request.stream}};
    if (m_request.temperature)
        body["temperature"] = *m_request.temperature;
    if (m_request.topP)
        body["top_p"] = *m_request.topP;
    switch (m_api) {
    case ApiKind::OpenAIChat: {
        nlohmann::json messages = nlohmann::json::array();
        if (!prompt.system.empty())
            messages.push_back({{"role", "system"}, {"content", prompt.system}});
        if (prompt.messages.is_array()) {
            for (const auto &m : prompt.messages)
                messages.push_back(m);
        } else {
            messages.push_back({{"role", "user"}, {"content", prompt.user}});
        }
        body["messages"] = std::move(messages);
        if (m_request.stream)
            body["stream_options"] = {{"include_usage", true}};
        break;
    }
    case ApiKind::OpenAICompletions: {
        std::string text = prompt.system;
        const auto append = [&text](const std::string &part) {
            if (!text.empty() && !part.empty())
                text += "\n\n";
            text += part;
        };
        if (prompt.messages.is_array()) {
            for (const auto &m : prompt.messages) {
                if (m["content"].is_string())
                    append(m["content"].get<std::string>());
            }
        } else {
            append(prompt.user);
        }
        body["prompt"] = std::move(text);
        if (m_request.stream)
            body["stream_options"] = {{"include_usage", true}};
        break;
    }
    case ApiKind::AnthropicMessages: {
        nlohmann::json messages = nlohmann::json::array();
        std::string system = prompt.system;
        if (prompt.messages.is_array()) {
            for (const auto &m : prompt.messages) {
                // Anthropic takes the system prompt beside the messages, not as one of them.
                if (m.value("role", "") == "system" && m["content"].is_string())
                    system += (system.empty() ? "" : "\n\n") + m["content"].get<std::string>();
                else
                    messages.push_back(m);
            }
        } else {
            messages.push_back({{"role", "user"}, {"content", prompt.user}});
        }
        if (!system.empty())
            body["system"] = std::move(system);
        body["messages"] = std::move(messages);
        break;
    }
    }
    if (m_extraBody.is_object() && !m_extraBody.empty())
        body.merge_patch(m_extraBody);
    return body;
}

QByteArray RequestBuilder::httpRequest(const Prompt &prompt) const
{
    const std::string json = body(prompt).dump();
    QByteArray r;
    r.reserve(qsizetype(m_path.size() + m_headers.size() + json.size() + 128));
    r += "POST " + m_path + " HTTP/1.1\r\n";
    r += m_headers;
    r += "Content-Type: application/json\r\n";
    if (m_request.stream)
        r += "Accept: text/event-stream\r\n";
    r += "Content-Length: " + QByteArray::number(qsizetype(json.size())) + "\r\n\r\n";
    r.append(json.data(), qsizetype(json.size()));
    return r;
}

QByteArray RequestBuilder::modelsRequest() const
{
    return "GET " + m_modelsPath + " HTTP/1.1\r\n" + m_headers + "Accept: application/json\r\n\r\n";
}

} // namespace tb
