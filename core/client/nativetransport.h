#pragma once

#include "api/requestbuilder.h"
#include "client/transport.h"
#include "net/runclock.h"
#include "platform/socketpoller.h"
#include "workload/runplan.h"

#include <QObject>
#include <QSet>

#include <memory>
#include <vector>

namespace tb {

class AlpnConnection;
class H2Connection;
class HttpConnection;

/// TokenBench's own HTTP client: HTTP/1.1 (HttpConnection on epoll, QSslSocket for TLS) as a
/// keep-alive pool of connections, one exchange on each at a time; HTTP/2 (H2Connection,
/// libnghttp2) as a pool of connections, many exchanges on each — in clear by prior knowledge, over
/// TLS where the server picks h2 by ALPN. Over https with http_version auto, the first connection
/// to an endpoint (AlpnConnection) offers both, and the server's pick decides how that endpoint's
/// connections are pooled from then on.
class NativeTransport : public QObject, public Transport
{
    Q_OBJECT

public:
    /// Numbers its connections from `counters` (LiveCounters::nextConnection), shared by the run's
    /// workers.
    NativeTransport(const RunClock &clock, std::shared_ptr<LiveCounters> counters, QObject *parent = nullptr);
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
    /// Reads are held back (SocketPoller::limitReadDelay, io_uring's gathering) for at most this
    /// fraction of the exchanges' mean time, so closed-loop users lose at most 0.1% of their time
    /// to it: the full 0.5 ms against a simulator answering in 17 ms cost 1% of requests/s.
    static constexpr std::int64_t kReadDelayDivisor = 1000;
    void exchangesTake(std::int64_t meanNs) override { m_poller.limitReadDelay(meanNs / kReadDelayDivisor); }

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
    /// How an endpoint is spoken to: HTTP/1.1, HTTP/2, or what a first connection's ALPN says.
    enum class Wire { Http1, Http2, Negotiate };
    Wire wireOf(const Endpoint &endpoint) const;
    /// A first connection to `endpoint` with room for another request.
    AlpnConnection *negotiation(const Endpoint &endpoint);
    /// The server picked: its endpoint's pool gets the open connection, then the waiting requests.
    void negotiated(AlpnConnection *connection);
    void dropConnection(HttpConnection *connection);
    void dropH2(H2Connection *connection);
    void dropNegotiation(AlpnConnection *connection);

    RunClock m_clock;
    std::shared_ptr<LiveCounters> m_counters;
    QSet<HttpConnection *> m_connections;
    std::vector<HttpConnection *> m_idle;
    std::vector<KeepAlive> m_keepAlive; ///< per endpoint; few

    std::vector<H2Connection *> m_h2; ///< every live HTTP/2 connection, oldest first
    std::vector<AlpnConnection *> m_negotiating;
    /// What each https endpoint's server picked by ALPN (h2: true) on its first connection.
    std::vector<std::pair<Endpoint, bool>> m_picked;
    SocketPoller m_poller; ///< every plain-TCP connection of this transport
};

} // namespace tb
