#pragma once

#include "engine/epollpoller.h"
#include "engine/requestbuilder.h"
#include "engine/runclock.h"
#include "engine/transport.h"

#include <QObject>
#include <QSet>

#include <vector>

namespace tb {

class H2Connection;
class HttpConnection;

/// TokenBench's own HTTP client: HTTP/1.1 (HttpConnection on epoll, QSslSocket for TLS) as a
/// keep-alive pool of connections, one exchange on each at a time; HTTP/2 in clear by prior
/// knowledge (H2Connection, libnghttp2) as a pool of connections, many exchanges on each.
class NativeTransport : public QObject, public Transport
{
    Q_OBJECT

public:
    NativeTransport(const RunClock &clock, QObject *parent = nullptr);
    ~NativeTransport() override;

    Exchange *acquire(const Endpoint &endpoint, bool fresh) override;
    void send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink) override;
    void release(Exchange *exchange) override;
    void abandon(Exchange *exchange) override;
    void closeIdle() override;
    bool timesPhases() const override { return true; }

    /// Connections in a row an origin closed right after their response before the transport
    /// stops keeping its connections alive: one close is a timeout's chance, three are a habit.
    static constexpr int kClosesBeforeNoReuse = 3;

    /// The endpoints it speaks HTTP/2 to: HTTP/2 asked for, in clear and direct (h2c by prior
    /// knowledge; a proxy's absolute form has no HTTP/2).
    static bool speaksHttp2(const Endpoint &endpoint);

private:
    /// What the transport learnt of an origin's keep-alive over HTTP/1.1.
    struct KeepAlive {
        Endpoint endpoint;
        int closesInARow = 0; ///< connections closed right after a response, since one was reused
        bool reuse = true;    ///< false: every request gets a new connection
    };
    KeepAlive &keepAliveOf(const Endpoint &endpoint);
    /// The server closed `connection` right after a response (HttpConnection::closedAfterResponse).
    void closedAfterResponse(const Endpoint &endpoint);
    void connectionLost(HttpConnection *connection);
    void dropConnection(HttpConnection *connection);
    void dropH2(H2Connection *connection);

    RunClock m_clock;
    QSet<HttpConnection *> m_connections;
    std::vector<HttpConnection *> m_idle;
    std::vector<KeepAlive> m_keepAlive; ///< per endpoint; few

    std::vector<H2Connection *> m_h2; ///< every live HTTP/2 connection, oldest first
    EpollPoller m_poller;             ///< every plain-TCP connection of this transport
};

} // namespace tb
