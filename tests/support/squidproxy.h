#pragma once

// Debian's squid as the HTTPS_PROXY, started by a test (tst_tlsgateway).

#include "support/serverprocess.h"

#include <QByteArrayList>
#include <QMap>

/// squid as an HTTP proxy on 127.0.0.1: CONNECT tunnels to 127.0.0.1's ports (and to names its own
/// hosts file maps there: names only the proxy can resolve, as in a network reached through it),
/// no cache, in the foreground (no daemon), its logs and pid in `dir`. It runs as the current
/// user; as root (which squid refuses to stay) as nobody, who then owns `dir`.
class SquidProxy
{
public:
    /// `hosts`: name → address, squid's hosts file. false with *why when squid did not come up.
    bool start(const QString &squid, const QString &dir, const QMap<QString, QString> &hosts, QString *why);
    /// "http://127.0.0.1:PORT"
    QString url() const;
    /// The access log so far: one line a request, "METHOD URL STATUS" ("CONNECT 127.0.0.1:8443 200").
    QByteArrayList accessLog() const;

private:
    ServerProcess m_process;
    QString m_dir;
    quint16 m_port = 0;
};
