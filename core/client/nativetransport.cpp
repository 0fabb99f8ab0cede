#include "client/nativetransport.h"

#include "api/requestbuilder.h"
#include "client/alpnconnection.h"
#include "client/h2connection.h"
#include "client/httpconnection.h"

namespace tb {

namespace {

/// Servers commonly close idle keep-alive connections after 5 s (uvicorn, which serves vLLM);
/// reusing one just as it closes would fail a request for the client's sake, so retire them first.
constexpr std::int64_t kMaxIdleNs = 4'000'000'000;

} // namespace

NativeTransport::NativeTransport(const RunClock &clock, std::shared_ptr<LiveCounters> counters, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_counters(std::move(counters))
{
    m_poller.setParent(this); // moves to the worker thread with us
}

NativeTransport::~NativeTransport()
{
    // Every connection, including those already dropped (deleteLater) — before m_poller goes.
    qDeleteAll(findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly));
    qDeleteAll(findChildren<H2Connection *>(Qt::FindDirectChildrenOnly));
    qDeleteAll(findChildren<AlpnConnection *>(Qt::FindDirectChildrenOnly));
}

NativeTransport::Wire NativeTransport::wireOf(const Endpoint &endpoint) const
{
    if (!endpoint.tls) // h2c by prior knowledge only direct: a proxy's absolute form has no HTTP/2
        return endpoint.httpVersion == HttpVersion::Http2 && endpoint.proxy.direct ? Wire::Http2 : Wire::Http1;
    if (endpoint.httpVersion != HttpVersion::Auto)
        return endpoint.httpVersion == HttpVersion::Http2 ? Wire::Http2 : Wire::Http1;
    for (const auto &[e, http2] : m_picked) {
        if (e == endpoint)
            return http2 ? Wire::Http2 : Wire::Http1;
    }
    return Wire::Negotiate;
}

void NativeTransport::send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink)
{
    if (auto *e = dynamic_cast<AlpnExchange *>(exchange)) {
        e->connection()->send(e, builder, hop, sink);
        return;
    }
    if (auto *e = dynamic_cast<H2Exchange *>(exchange)) {
        e->connection()->send(e, builder, hop, sink);
        return;
    }
    static_cast<HttpConnection *>(exchange)->send(hop.message.isEmpty() ? builder.httpRequest(hop.json) : hop.message,
                                                  sink);
}

Exchange *NativeTransport::acquire(const Endpoint &endpoint, bool fresh)
{
    const std::int64_t now = m_clock.nowNs();
    const Wire wire = wireOf(endpoint);
    if (wire == Wire::Negotiate)
        return negotiation(endpoint)->acquire();
    if (wire == Wire::Http2) {
        // The oldest connection with room: a load fills as few connections as it can.
        for (H2Connection *c : std::vector<H2Connection *>(m_h2)) {
            if (c->endpoint() == endpoint && c->load() == 0 &&
                (now - c->idleSinceNs() >= kMaxIdleNs || c->closedByPeer()))
                c->shutdown(); // drops it (connectionLost)
            else if (c->endpoint() == endpoint && c->canTakeMore() && !fresh)
                return c->acquire();
        }
        auto *c = new H2Connection(endpoint, m_clock, &m_poller, this);
        c->setNumber(m_counters->nextConnection());
        connect(c, &H2Connection::connectionLost, this, &NativeTransport::dropH2);
        m_h2.push_back(c);
        return c->acquire();
    }
    // The newest idle connection to the endpoint; those that went stale meanwhile are dropped.
    for (std::size_t i = m_idle.size(); i-- > 0 && !fresh;) {
        HttpConnection *c = m_idle[i];
        if (!(c->endpoint() == endpoint))
            continue;
        m_idle.erase(m_idle.begin() + std::ptrdiff_t(i));
        if (c->isReusable() && now - c->idleSinceNs() < kMaxIdleNs) {
            // Closed by the server while this thread was busy: caught here, not by a request.
            const ByteStream::Unread unread = c->unread();
            if (unread == ByteStream::Unread::Nothing)
                return c;
            if (unread == ByteStream::Unread::End && now - c->idleSinceNs() < HttpConnection::kPromptCloseNs)
                closedAfterResponse(endpoint);
        }
        dropConnection(c);
    }
    auto *c = new HttpConnection(endpoint, m_clock, &m_poller, this);
    c->setNumber(m_counters->nextConnection());
    connect(c, &HttpConnection::connectionLost, this, &NativeTransport::connectionLost);
    m_connections.insert(c);
    return c;
}

void NativeTransport::release(Exchange *exchange)
{
    if (auto *e = dynamic_cast<AlpnExchange *>(exchange)) {
        e->connection()->abandon(e); // it never had an answer to complete
        return;
    }
    if (auto *e = dynamic_cast<H2Exchange *>(exchange)) {
        e->connection()->release(e);
        return;
    }
    auto *connection = static_cast<HttpConnection *>(exchange);
    KeepAlive &keepAlive = keepAliveOf(connection->endpoint());
    if (connection->exchanges() > 1)
        keepAlive.closesInARow = 0; // kept alive, and answered again
    if (connection->isReusable() && keepAlive.reuse)
        m_idle.push_back(connection);
    else
        dropConnection(connection);
}

NativeTransport::KeepAlive &NativeTransport::keepAliveOf(const Endpoint &endpoint)
{
    for (KeepAlive &k : m_keepAlive) {
        if (k.endpoint == endpoint)
            return k;
    }
    return m_keepAlive.emplace_back(KeepAlive{endpoint});
}

void NativeTransport::closedAfterResponse(const Endpoint &endpoint)
{
    KeepAlive &keepAlive = keepAliveOf(endpoint);
    if (++keepAlive.closesInARow >= kClosesBeforeNoReuse)
        keepAlive.reuse = false;
}

void NativeTransport::connectionLost(HttpConnection *connection)
{
    if (connection->closedAfterResponse())
        closedAfterResponse(connection->endpoint());
    dropConnection(connection);
}

void NativeTransport::abandon(Exchange *exchange)
{
    if (auto *e = dynamic_cast<AlpnExchange *>(exchange)) {
        e->connection()->abandon(e);
        return;
    }
    if (auto *e = dynamic_cast<H2Exchange *>(exchange)) {
        e->connection()->release(e); // RST_STREAM for its stream only: the connection lives on
        return;
    }
    auto *connection = static_cast<HttpConnection *>(exchange);
    connection->abandon();
    dropConnection(connection);
}

AlpnConnection *NativeTransport::negotiation(const Endpoint &endpoint)
{
    for (AlpnConnection *c : m_negotiating) {
        if (c->endpoint() == endpoint && c->canTakeMore())
            return c;
    }
    auto *c = new AlpnConnection(endpoint, m_clock, &m_poller, this);
    c->setNumber(m_counters->nextConnection());
    connect(c, &AlpnConnection::negotiated, this, &NativeTransport::negotiated);
    connect(c, &AlpnConnection::connectionLost, this, &NativeTransport::dropNegotiation);
    m_negotiating.push_back(c);
    return c;
}

void NativeTransport::negotiated(AlpnConnection *connection)
{
    const Endpoint &endpoint = connection->endpoint();
    const bool http2 = connection->pickedHttp2();
    std::erase_if(m_picked, [&endpoint](const auto &picked) { return picked.first == endpoint; });
    m_picked.emplace_back(endpoint, http2);
    // Pooled as an idle connection would be, so the waiting requests' acquire() takes it first.
    if (http2) {
        auto *c = new H2Connection(endpoint, m_clock, connection->takeStream(), this);
        c->setNumber(connection->number());
        connect(c, &H2Connection::connectionLost, this, &NativeTransport::dropH2);
        m_h2.push_back(c);
    } else {
        auto *c = new HttpConnection(endpoint, m_clock, connection->takeStream(), this);
        c->setNumber(connection->number());
        connect(c, &HttpConnection::connectionLost, this, &NativeTransport::connectionLost);
        m_connections.insert(c);
        m_idle.push_back(c);
    }
    std::erase(m_negotiating, connection);
    connection->handOver(*this);
    connection->deleteLater();
}

void NativeTransport::dropNegotiation(AlpnConnection *connection)
{
    if (std::erase(m_negotiating, connection) > 0)
        connection->deleteLater();
}

void NativeTransport::dropConnection(HttpConnection *connection)
{
    if (m_connections.remove(connection)) {
        std::erase(m_idle, connection);
        connection->deleteLater();
    }
}

void NativeTransport::dropH2(H2Connection *connection)
{
    if (std::erase(m_h2, connection) > 0)
        connection->deleteLater();
}

void NativeTransport::closeIdle()
{
    for (HttpConnection *c : std::vector<HttpConnection *>(m_idle.begin(), m_idle.end()))
        dropConnection(c);
    for (H2Connection *c : std::vector<H2Connection *>(m_h2)) {
        if (c->load() == 0)
            c->shutdown(); // GOAWAY; drops it (connectionLost)
    }
}

} // namespace tb
