#pragma once

#include "config/runconfig.h"
#include "engine/promptsource.h"

#include <QByteArray>
#include <QUrl>

namespace tb {

/// Where a target's requests go: parsed once from its base URL.
struct Endpoint {
    QString host;
    quint16 port = 80;
    bool tls = false;
    bool verifyTls = true;
    QString caCertificate;
    HttpVersion httpVersion = HttpVersion::Auto;
    bool operator==(const Endpoint &) const = default;
};

/// Builds complete HTTP/1.1 request messages for one target: the request line and headers
/// (including credentials) are rendered once, so per request only the JSON body is made.
class RequestBuilder
{
public:
    /// nullopt with *error when the URL cannot be used.
    static std::optional<RequestBuilder> create(const TargetConfig &target, const RequestConfig &request,
                                                QString *error);

    const Endpoint &endpoint() const { return m_endpoint; }
    ApiKind api() const { return m_api; }
    bool streaming() const { return m_request.stream; }
    /// The path requests are posted to, e.g. "/v1/chat/completions".
    const QByteArray &path() const { return m_path; }

    /// The JSON body for a prompt (before the target's extra_body is merged in).
    nlohmann::json body(const Prompt &prompt) const;
    /// The transport that carries the target's requests: effectiveTransport(), never Auto.
    TransportKind transport() const { return m_transport; }
    /// The whole HTTP/1.1 request message.
    QByteArray httpRequest(const Prompt &prompt) const;
    /// What a transport that makes its own messages (qnam) needs: the URL requests are posted to,
    /// and every header httpRequest() carries but Host, Connection and Content-Length.
    const QUrl &requestUrl() const { return m_requestUrl; }
    const QList<QPair<QByteArray, QByteArray>> &requestHeaders() const { return m_headerList; }
    /// A GET request for {base}/models (connection test).
    QByteArray modelsRequest() const;

    /// The body field that carries the output cap. Anthropic has only max_tokens; otherwise an
    /// explicit choice wins. Auto: OpenAI's own chat
    /// API (api.openai.com, Azure OpenAI) takes max_completion_tokens — its o-series answer
    /// max_tokens with HTTP 400, and it refuses both at once; legacy completions, Anthropic and
    /// every other server get max_tokens, which OpenAI-compatible servers all read, while some
    /// (Ollama, TGI 3.0, llama.cpp before 2026) silently ignore max_completion_tokens.
    static const char *maxTokensKey(const TargetConfig &target, MaxTokensField field);

    /// The base URL's path joined with a suffix: "/v1" + "/models".
    static QByteArray joinPath(const QUrl &base, const char *suffix);
    /// The headers every request to the target carries: its credentials (Basic from the URL's
    /// userinfo, else Bearer; x-api-key and anthropic-version for Anthropic), then the user's extra
    /// headers (${env:NAME} values resolved), which replace a credential header of the same name.
    static QList<QPair<QByteArray, QByteArray>> targetHeaders(const TargetConfig &target);

private:
    RequestBuilder() = default;

    ApiKind m_api = ApiKind::OpenAIChat;
    RequestConfig m_request;
    std::string m_model;
    const char *m_maxTokensKey = "max_tokens";
    nlohmann::json m_extraBody;
    Endpoint m_endpoint;
    QByteArray m_path;
    QByteArray m_modelsPath;
    QByteArray m_headers; ///< everything after the request line except Content-Length
    QList<QPair<QByteArray, QByteArray>> m_headerList;
    QUrl m_requestUrl;
    TransportKind m_transport = TransportKind::Native;
};

} // namespace tb
