#pragma once

// Debian's nginx as an HTTP/2-only TLS gateway, started by a test (tst_tlsgateway).

#include "support/serverprocess.h"

#include <QByteArrayList>
#include <QUrl>

/// nginx in front of an HTTP/1.1 upstream (the simulator): each site is a TLS server on its own
/// port of 127.0.0.1, most speaking HTTP/2 only, as gateways that dropped HTTP/1.1 do. nginx 1.22
/// cannot refuse http/1.1 by ALPN (its listen ... http2 always takes http/1.1 too), so a request
/// that came in HTTP/1.1 is closed without an answer (nginx's 444): what a client that offered
/// only http/1.1 used to get. Responses are not buffered (SSE streams through). Runs as the
/// current user in the foreground (no master process); its files are in `dir`.
class NginxGateway
{
public:
    struct Site {
        quint16 port = 0;
        QString certificate; ///< PEM files
        QString key;
        bool http2Only = true; ///< false: HTTP/1.1 only (no h2 offered back by ALPN)
    };

    /// false with *why when nginx did not come up.
    bool start(const QString &nginx, const QString &dir, const QUrl &upstream, const QList<Site> &sites, QString *why);
    /// The access log so far: one line a request, "PORT PROTOCOL METHOD URI STATUS"
    /// ("8443 HTTP/2.0 POST /v1/chat/completions 200").
    QByteArrayList accessLog() const;

    /// A self-signed certificate `name`.crt with its key `name`.key in `dir`, made by the openssl
    /// program for `subjectAltName` ("IP:127.0.0.1", "DNS:gateway.example").
    static bool makeCertificate(const QString &openssl, const QString &dir, const QString &name,
                                const QString &subjectAltName, QString *why);

private:
    ServerProcess m_process;
    QString m_dir;
};
