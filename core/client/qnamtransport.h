#pragma once

#include "client/transport.h"
#include "net/proxyresolver.h"
#include "net/runclock.h"

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
/// Qt 6.4's QNAM opens at most 6 HTTP/1.1 connections per connection-cache key and queues the rest
/// (no way to raise it before 6.5). Every manager delivers its replies from a thread of its own, so
/// managers are few: in clear, one manager holds up to kHttp1Pools such pools to an origin, told
/// apart by the request's peer verify name (part of QNAM's key, unused without TLS); over https
/// (where that name is the certificate's) a manager holds one pool of 6, and over HTTP/2 one
/// connection of kHttp2Streams streams. Each exchange goes to the first pool with room, and a new
/// manager opens when none has. Managers live on the worker's thread, used only there.
class QnamTransport : public QObject, public Transport
{
    Q_OBJECT

public:
    /// Streams one HTTP/2 connection (one manager) is given before another manager opens its own.
    static constexpr int kHttp2Streams = 100;
    static constexpr int kHttp1Connections = 6;
    /// HTTP/1.1 pools of kHttp1Connections one manager (one QNAM thread) carries in clear: more
    /// threads cost wake-ups, fewer leave one thread so many sockets that its reads queue (64
    /// pools gave a stamping lag p99 of 57-86 ms at 200 streams where 8 gave 9-18 ms).
    static constexpr int kHttp1Pools = 8;

    explicit QnamTransport(const RunClock &clock, QObject *parent = nullptr);
    ~QnamTransport() override;

    /// QNAM picks connections itself: `fresh` cannot be honoured (QNAM resends a request whose
    /// kept-alive connection closed unanswered on its own, without saying so).
    Exchange *acquire(const Endpoint &endpoint, bool fresh) override;
    void send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink) override;
    void release(Exchange *exchange) override;
    void abandon(Exchange *exchange) override;
    void closeIdle() override;
    bool timesPhases() const override { return false; }

private:
    friend class QnamExchange;
    struct Manager {
        QNetworkAccessManager *nam = nullptr;
        ProxyChoice proxy;                     ///< every connection of a manager goes through its one proxy (or none)
        QHash<QString, std::vector<int>> load; ///< exchanges in flight per origin, per pool
    };
    /// What the transport learnt of an origin: whether its answers came over HTTP/2.
    struct Origin {
        bool http2 = false;
    };
    static QString originKey(const Endpoint &endpoint);
    /// Exchanges one pool carries to `origin`.
    int capacity(const QString &origin) const;
    /// Pools a manager keeps to the endpoint's origin (more than one only in clear over HTTP/1.1).
    static int pools(const Endpoint &endpoint);
    /// Exchanges in flight on `manager`'s `pool` to `origin`.
    int load(std::size_t manager, int pool, const QString &origin) const;
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
