#include "editors/modellister.h"

#include "api/requestbuilder.h"
#include "net/targetaccess.h"

#include <QNetworkReply>
#include <QNetworkRequest>

namespace tb {

namespace {

// A test connection answers in well under this, or the user wants to know that it did not.
constexpr int kTimeoutMs = 15000;
constexpr qsizetype kMaxErrorBody = 300;

/// The server's own words for an error: error.message (OpenAI, Anthropic), error (string) or the
/// start of the body.
QString serverMessage(const QByteArray &body)
{
    const auto json = nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
    if (json.is_object()) {
        const auto error = json.find("error");
        if (error != json.end() && error->is_string())
            return fromStd(error->get<std::string>());
        if (error != json.end() && error->is_object() && error->contains("message") && (*error)["message"].is_string())
            return fromStd((*error)["message"].get<std::string>());
    }
    QString text = QString::fromUtf8(body.left(kMaxErrorBody)).simplified();
    if (body.size() > kMaxErrorBody)
        text += QStringLiteral("…");
    return text;
}

} // namespace

ModelLister::ModelLister(QObject *parent)
    : QObject(parent)
{}

ModelLister::~ModelLister()
{
    cancel();
}

QUrl ModelLister::modelsUrl(const QString &baseUrl)
{
    QString base = baseUrl.trimmed();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    return QUrl(base + QStringLiteral("/models"), QUrl::StrictMode);
}

std::optional<QStringList> ModelLister::parseModels(const QByteArray &body)
{
    const auto json = nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
    if (!json.is_object())
        return std::nullopt;
    const auto pick = [&json](const char *list, const char *key) -> std::optional<QStringList> {
        const auto it = json.find(list);
        if (it == json.end() || !it->is_array())
            return std::nullopt;
        QStringList names;
        for (const auto &entry : *it) {
            if (entry.is_object() && entry.contains(key) && entry[key].is_string())
                names << fromStd(entry[key].get<std::string>());
        }
        return names;
    };
    if (auto names = pick("data", "id"))
        return names;
    return pick("models", "name");
}

void ModelLister::list(const TargetConfig &target)
{
    cancel();
    const QUrl url = modelsUrl(target.url);
    if (!url.isValid() || url.host().isEmpty()) {
        Q_EMIT listFailed(tr("'%1' is not a valid base URL").arg(target.url));
        return;
    }
    QNetworkRequest request(url);
    // The run's proxy and TLS settings (--insecure, --ca-cert), and its HTTP versions, so the test
    // reports what a run would negotiate.
    QString why;
    const auto proxy = TargetAccess::prepare(m_nam, request, target, &why);
    if (!proxy) {
        Q_EMIT listFailed(why);
        return;
    }
    m_proxy = proxy->direct ? QString() : proxy->describe();
    m_protocol.clear();
    request.setTransferTimeout(kTimeoutMs);
    TargetAccess::setHttpVersion(request, url.scheme() == QLatin1String("https"), target.httpVersion);
    request.setRawHeader("Accept", "application/json");
    // The same credentials and headers as the engine's requests.
    const auto headers = RequestBuilder::targetHeaders(target, &why);
    if (!headers) {
        Q_EMIT listFailed(why);
        return;
    }
    for (const auto &[name, value] : *headers)
        request.setRawHeader(name, value);
    m_elapsed.start();
    m_reply = m_nam.get(request);
    connect(m_reply, &QNetworkReply::finished, this, [this, reply = m_reply.data()] { finished(reply); });
}

void ModelLister::cancel()
{
    if (QNetworkReply *reply = m_reply) {
        m_reply = nullptr;
        reply->disconnect(this);
        reply->abort();
        reply->deleteLater();
    }
}

void ModelLister::finished(QNetworkReply *reply)
{
    reply->deleteLater();
    if (reply != m_reply)
        return;
    m_reply = nullptr;
    const qint64 elapsed = m_elapsed.elapsed();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    if (status > 0)
        m_protocol = reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool() ? QStringLiteral("HTTP/2")
                                                                                       : QStringLiteral("HTTP/1.1");
    if (status == 0) {
        // No HTTP answer at all. Our own cancel() disconnects first, so a cancellation seen here is
        // the transfer timeout.
        const bool timedOut =
            reply->error() == QNetworkReply::OperationCanceledError || reply->error() == QNetworkReply::TimeoutError;
        const QString why = timedOut ? tr("no answer within %1 s").arg(kTimeoutMs / 1000) : reply->errorString();
        Q_EMIT listFailed(m_proxy.isEmpty()
                              ? tr("Cannot reach %1: %2").arg(reply->url().toString(), why)
                              : tr("Cannot reach %1 through proxy %2: %3").arg(reply->url().toString(), m_proxy, why));
        return;
    }
    if (status < 200 || status > 299) {
        const QString message = serverMessage(body);
        Q_EMIT listFailed(message.isEmpty()
                              ? tr("HTTP %1 from %2").arg(status).arg(reply->url().toString())
                              : tr("HTTP %1 from %2: %3").arg(status).arg(reply->url().toString(), message));
        return;
    }
    const auto models = parseModels(body);
    if (!models) {
        Q_EMIT listFailed(tr("%1 answered, but not with a model list (expected {\"data\": [{\"id\": …}]})")
                              .arg(reply->url().toString()));
        return;
    }
    Q_EMIT modelsListed(*models, elapsed);
}

} // namespace tb
