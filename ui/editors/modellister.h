#pragma once

#include "config/runconfig.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QUrl>

namespace tb {

/// "Test connection": asks a target for its models (GET {url}/models with the target's key and
/// headers) without blocking the GUI thread. One request at a time; a new one cancels the last.
class ModelLister : public QObject
{
    Q_OBJECT

public:
    explicit ModelLister(QObject *parent = nullptr);
    ~ModelLister() override;

    void list(const TargetConfig &target);
    void cancel();
    bool isBusy() const { return m_reply != nullptr; }
    /// The proxy that carries the current or last listing ("http://proxy:3128 (HTTPS_PROXY)");
    /// empty when it went direct. The target's own proxy rules decide, as for its runs.
    const QString &proxy() const { return m_proxy; }
    /// What the last listing negotiated: "HTTP/1.1" or "HTTP/2" (ALPN over https, prior knowledge
    /// in clear when target.http_version is 2); empty before an answer.
    const QString &protocol() const { return m_protocol; }

    /// {base}/models, whether or not the base URL ends in '/'.
    static QUrl modelsUrl(const QString &baseUrl);
    /// Model ids from an OpenAI ("data": [{"id"}]), Anthropic (the same) or Ollama ("models":
    /// [{"name"}]) listing; std::nullopt when the body is none of these.
    static std::optional<QStringList> parseModels(const QByteArray &body);

Q_SIGNALS:
    void modelsListed(const QStringList &models, qint64 elapsedMs);
    void listFailed(const QString &error);

private:
    void finished(QNetworkReply *reply);

    QNetworkAccessManager m_nam;
    QPointer<QNetworkReply> m_reply;
    QElapsedTimer m_elapsed;
    QString m_proxy;
    QString m_protocol;
};

} // namespace tb
