#pragma once

#include "config/runconfig.h"
#include "net/proxyresolver.h"

#include <QSslConfiguration>

#include <optional>

class QNetworkAccessManager;
class QNetworkRequest;

namespace tb {

/// How a target's server is reached, the same on every path (docs/measuring.md "Transports"): the TLS
/// settings of --insecure and --ca-cert on both transports, and the requests made beside a run
/// (calibration probes, the model listing, the context-length check), which go through the proxy
/// the run's requests take.
class TargetAccess
{
public:
    /// TLS as the target asks for it. `verify` false (--insecure) checks neither the certificate
    /// chain nor the host name, as curl -k; `caCertificate`: a PEM file of more CAs to trust.
    static QSslConfiguration tls(bool verify, const QString &caCertificate);
    /// What a QNetworkAccessManager request asks for: over https h2 and HTTP/1.1 by ALPN (the
    /// server picks), or HTTP/1.1 alone; in clear HTTP/1.1, or h2c by prior knowledge.
    static void setHttpVersion(QNetworkRequest &request, bool tls, HttpVersion version);
    /// Prepares a request beside the run to request.url(): the target's TLS settings over https
    /// and, on `manager`, the proxy the target's requests to that URL take. nullopt with *error
    /// when the target's proxy setting cannot be used.
    static std::optional<ProxyChoice> prepare(QNetworkAccessManager &manager, QNetworkRequest &request,
                                              const TargetConfig &target, QString *error);
};

} // namespace tb
