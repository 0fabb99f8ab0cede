#pragma once

#include "config/runconfig.h"
#include "net/proxyresolver.h"

#include <QString>

namespace tb {

/// Where a target's requests go: parsed once from its base URL.
struct Endpoint {
    QString host;
    quint16 port = 80;
    bool tls = false;
    bool verifyTls = true;
    QString caCertificate;
    HttpVersion httpVersion = HttpVersion::Auto;
    ProxyChoice proxy; ///< direct, or the http:// proxy that carries the connection (CONNECT for tls)
    /// Through a proxy without a tunnel: requests name their whole URL (absolute form).
    bool proxiedPlain() const { return !proxy.direct && !tls; }
    bool operator==(const Endpoint &) const = default;
};

} // namespace tb
