#pragma once

#include "api/apidialect.h"
#include "api/prompt.h"
#include "config/runconfig.h"
#include "formats/jsonschema.h"
#include "net/endpoint.h"

#include <QByteArray>
#include <QUrl>

#include <memory>

namespace tb {

/// 301, 302, 303, 307, 308: the redirects the engine can follow.
bool isRedirect(int status);

/// A request re-sent after a redirect (RequestBuilder::redirect).
struct RedirectedRequest {
    QUrl url;
    Endpoint endpoint;
    QByteArray message;
    bool keepsBody = false;   ///< 307/308: the same method and body; else a GET without body
    bool credentials = false; ///< to the target's own origin: with its credential headers
};

/// Builds complete HTTP/1.1 request messages for one target: the request line and headers
/// (including credentials) are rendered once, so per request only the JSON body is made.
class RequestBuilder
{
public:
    /// nullopt with *error when the URL cannot be used.
    static std::optional<RequestBuilder> create(const TargetConfig &target, const RequestConfig &request,
                                                QString *error);
    /// What create() says of the request's files — the --response-format schema and the --tools
    /// file, read and checked — or "" when they can be used (or none is given): the GUI marks the
    /// field with the message the run would stop on.
    static QString requestFilesProblem(const RequestConfig &request);

    const Endpoint &endpoint() const { return m_endpoint; }
    ApiKind api() const { return m_dialect->kind(); }
    const ApiDialect &dialect() const { return *m_dialect; }
    bool streaming() const { return m_request.stream; }
    /// target.follow_redirects
    bool followsRedirects() const { return m_followRedirects; }
    /// The path requests are posted to, e.g. "/v1/chat/completions".
    const QByteArray &path() const { return m_path; }

    /// --response-format was given: each reply is checked (StreamDecoder::checkOutput).
    bool checksOutput() const { return m_checksOutput; }
    /// The schema replies are checked against; nullptr for json_object (any JSON).
    const JsonSchema *outputSchema() const { return m_outputSchema.get(); }
    /// --tools: the tools offered, whose calls are checked (StreamDecoder::checkToolCalls); nullptr: none.
    const ToolSet *toolSet() const { return m_tools.get(); }
    /// The JSON body for a prompt (before the target's extra_body is merged in), asking for
    /// `model` (one of a --model mix's, a dataset row's); empty: target.model.
    nlohmann::json body(const Prompt &prompt, std::string_view model = {}) const;
    /// The transport that carries the target's requests: effectiveTransport(), never Auto.
    TransportKind transport() const { return m_transport; }
    /// The whole HTTP/1.1 request message.
    QByteArray httpRequest(const Prompt &prompt) const;
    /// body(prompt) as sent: JSON text, with text that is not UTF-8 replaced.
    std::string bodyText(const Prompt &prompt, std::string_view model = {}) const;
    /// The same for a body already rendered (bodyText(prompt)).
    QByteArray httpRequest(const std::string &json) const;
    /// Where requests are posted: what a redirect's Location is resolved against.
    const QUrl &url() const { return m_url; }
    /// What a transport that makes its own messages (qnam) sends besides Host, Connection and
    /// Content-Length: every header httpRequest() carries, or without the target's credentials
    /// (a redirect to another origin); Content-Type and Accept only for a POST.
    QList<QPair<QByteArray, QByteArray>> requestHeaders(bool credentials, bool post) const;
    /// The request to send after `status` redirected the request for `from` to `location`
    /// (resolved against `from`): 307 and 308 keep the method and `json` body, 301, 302 and 303
    /// turn into a GET without body (what curl and browsers do with a POST); the target's
    /// credentials go only to the origin (scheme, host, port) they were configured for; the
    /// proxy is chosen again for the new host. nullopt with *error when it cannot be followed.
    std::optional<RedirectedRequest> redirect(const QUrl &from, const QByteArray &location, int status,
                                              const std::string &json, QString *error) const;

    /// The body field that carries the output cap: the dialect's (ApiDialect::maxTokensKey). An
    /// explicit choice wins where the API has both names; Auto: max_completion_tokens only for
    /// OpenAI's own chat API, max_tokens for every other server.
    static const char *maxTokensKey(const TargetConfig &target, MaxTokensField field);

    /// "host[:port]" as the Host header, an absolute-form request line and HTTP/2's :authority
    /// write it.
    static QByteArray hostPort(const QUrl &url);
    /// The path and query a request line (origin form) and HTTP/2's :path name.
    static QByteArray requestTarget(const QUrl &url);
    /// The base URL's path joined with a suffix: "/v1" + "/models".
    static QByteArray joinPath(const QUrl &base, const char *suffix);
    /// The headers every request to the target carries: its credentials (Basic from the URL's
    /// userinfo, then the dialect's: Bearer, or x-api-key and anthropic-version for Anthropic), then the user's extra
    /// headers (${env:NAME} values resolved), which replace a credential header of the same name.
    /// nullopt with *error (targetHeaderProblems()) when one cannot go on the wire: every request
    /// the target gets, on either transport or beside a run, takes its headers from here.
    static std::optional<QList<QPair<QByteArray, QByteArray>>> targetHeaders(const TargetConfig &target,
                                                                             QString *error);

private:
    RequestBuilder() = default;
    /// Reads the schema and the tools of `request` into this; false with *error as create() says it.
    bool loadRequestFiles(const RequestConfig &request, QString *error);

    const ApiDialect *m_dialect = nullptr;
    RequestConfig m_request;
    std::string m_model;
    const char *m_maxTokensKey = "max_tokens";
    nlohmann::json m_extraBody;
    bool m_checksOutput = false;
    std::shared_ptr<const JsonSchema> m_outputSchema; ///< shared by the copies a run's workers hold
    std::shared_ptr<const ToolSet> m_tools;           ///< shared by the copies a run's workers hold
    std::string m_schemaName;                         ///< json_schema.name: the schema file's base name
    Endpoint m_endpoint;
    QByteArray m_path;
    /// The request line and headers (everything but Content-Length) of a request for `url`
    /// through `endpoint`; `credentials`: with the target's credential headers.
    QByteArray head(const char *method, const QUrl &url, const Endpoint &endpoint, bool credentials) const;

    QUrl m_url;
    QString m_proxySetting;
    bool m_followRedirects = false;
    TransportKind m_transport = TransportKind::Native;
    QByteArray m_targetPrefix;      ///< "http://host:port" before the path when proxiedPlain()
    QByteArray m_headers;           ///< everything after the request line except Content-Length
    QByteArray m_commonHeaders;     ///< after Host: the headers any origin may see
    QByteArray m_credentialHeaders; ///< the target's credentials: for its own origin only
    QList<QPair<QByteArray, QByteArray>> m_commonHeaderList;     ///< m_commonHeaders but Connection, for qnam
    QList<QPair<QByteArray, QByteArray>> m_credentialHeaderList; ///< m_credentialHeaders, for qnam
};

} // namespace tb
