#pragma once

#include "engine/proxyresolver.h"
#include "engine/runclock.h"
#include "engine/transport.h"

#include <QHash>
#include <QObject>
#include <QSslConfiguration>

#include <vector>

class QNetworkAccessManager;

namespace tb {

class QnamExchange;
struct Endpoint;

/// Qt's QNetworkAccessManager as a transport: HTTP/2 (ALPN over https, prior knowledge in clear),
/// and whatever QNAM carries that the native client does not.
///
/// Qt 6.4's QNAM opens at most 6 HTTP/1.1 connections per host and queues the rest (no way to
/// raise it before 6.5), so this keeps as many managers as the load needs: each exchange goes to a
/// manager carrying fewer than its capacity to that origin — 6 for HTTP/1.1, kHttp2Streams for
/// HTTP/2 (one connection, many streams). Managers live on the worker's thread, used only there.
class QnamTransport : public QObject, public Transport
{
    Q_OBJECT

public:
    /// Streams one HTTP/2 connection (one manager) is given before another manager opens its own.
    static constexpr int kHttp2Streams = 100;
    static constexpr int kHttp1Connections = 6;

    QnamTransport(const RunClock &clock, QObject *parent = nullptr);
    ~QnamTransport() override;

    Exchange *acquire(const Endpoint &endpoint) override;
    void send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink) override;
    void release(Exchange *exchange) override;
    void abandon(Exchange *exchange) override;
    void closeIdle() override;

private:
    friend class QnamExchange;
    struct Manager {
        QNetworkAccessManager *nam = nullptr;
        ProxyChoice proxy;        ///< every connection of a manager goes through its one proxy (or none)
        QHash<QString, int> load; ///< exchanges in flight per origin
    };
    /// What the transport learnt of an origin: whether its answers came over HTTP/2.
    struct Origin {
        bool http2 = false;
    };
    static QString originKey(const Endpoint &endpoint);
    int capacity(const QString &origin) const;
    /// Exchanges in flight on `manager` to `origin`.
    int load(std::size_t manager, const QString &origin) const { return m_managers[manager].load.value(origin); }
    void dispose(QnamExchange *exchange);
    void learn(const QString &origin, bool http2);
    const QSslConfiguration &tlsFor(const Endpoint &endpoint);

    RunClock m_clock;
    std::vector<Manager> m_managers;
    QHash<QString, Origin> m_origins;
    QHash<QString, QSslConfiguration> m_tls; ///< per CA file and verification
    /// Every read lands here and is decoded in place before the next: one buffer for all.
    std::vector<char> m_readBuffer;
};

} // namespace tb
