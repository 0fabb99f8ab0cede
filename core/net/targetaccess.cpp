#include "net/targetaccess.h"

#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QSslCertificate>
#include <QSslSocket>

namespace tb {

QSslConfiguration TargetAccess::tls(bool verify, const QString &caCertificate)
{
    QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
    if (!verify)
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
    if (!caCertificate.isEmpty())
        tls.addCaCertificates(caCertificates(caCertificate, nullptr)); // validation said why, if any
    return tls;
}

void TargetAccess::setHttpVersion(QNetworkRequest &request, bool tls, HttpVersion version)
{
    // Over TLS QNAM offers h2 and HTTP/1.1 when allowed (its "direct" there, h2 alone, fails
    // every request against nginx in Qt 6.4); in clear only prior knowledge, never Upgrade.
    request.setAttribute(QNetworkRequest::Http2AllowedAttribute, tls && version != HttpVersion::Http1);
    request.setAttribute(QNetworkRequest::Http2DirectAttribute, !tls && version == HttpVersion::Http2);
}

std::optional<ProxyChoice> TargetAccess::prepare(QNetworkAccessManager &manager, QNetworkRequest &request,
                                                 const TargetConfig &target, QString *error)
{
    auto proxy = ProxyResolver::resolve(request.url(), target.proxy, error);
    if (!proxy)
        return std::nullopt;
    manager.setProxy(proxy->networkProxy());
    if (request.url().scheme() == QLatin1String("https"))
        request.setSslConfiguration(tls(target.tlsVerify, target.caCertificate));
    return proxy;
}

} // namespace tb
