#include "engine/nativetransport.h"

#include "engine/h2connection.h"
#include "engine/httpconnection.h"
#include "engine/requestbuilder.h"

namespace tb {

namespace {

/// Servers commonly close idle keep-alive connections after 5 s (uvicorn, which serves vLLM);
/// reusing one just as it closes would fail a request for the client's sake, so retire them first.
constexpr std::int64_t kMaxIdleNs = 4'000'000'000;

} // namespace

NativeTransport::NativeTransport(const RunClock &clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
{
    m_poller.setParent(this); // moves to the worker thread with us
}

NativeTransport::~NativeTransport()
{
    // Every connection, including those already dropped (deleteLater) — before m_poller goes.
    qDeleteAll(findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly));
    qDeleteAll(findChildren<H2Connection *>(Qt::FindDirectChildrenOnly));
}

bool NativeTransport::speaksHttp2(const Endpoint &endpoint)
{
    return endpoint.httpVersion == HttpVersion::Http2 && !endpoint.tls && endpoint.proxy.direct;
}

void NativeTransport::send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink)
{
    if (speaksHttp2(exchange->endpoint())) {
        auto *e = static_cast<H2Exchange *>(exchange);
        e->connection()->send(e, builder, hop, sink);
        return;
    }
    static_cast<HttpConnection *>(exchange)->send(hop.message.isEmpty() ? builder.httpRequest(hop.json) : hop.message,
                                                  sink);
}

Exchange *NativeTransport::acquire(const Endpoint &endpoint)
{
    const std::int64_t now = m_clock.nowNs();
    if (speaksHttp2(endpoint)) {
        // The oldest connection with room: a load fills as few connections as it can.
        for (H2Connection *c : std::vector<H2Connection *>(m_h2)) {
            if (c->endpoint() == endpoint && c->load() == 0 && now - c->idleSinceNs() >= kMaxIdleNs)
                c->shutdown(); // drops it (connectionLost)
            else if (c->endpoint() == endpoint && c->canTakeMore())
                return c->acquire();
        }
        auto *c = new H2Connection(endpoint, m_clock, &m_poller, this);
        connect(c, &H2Connection::connectionLost, this, &NativeTransport::dropH2);
        m_h2.push_back(c);
        return c->acquire();
    }
    while (!m_idle.empty()) {
        HttpConnection *c = m_idle.back();
        m_idle.pop_back();
        if (c->endpoint() == endpoint && c->isReusable() && now - c->idleSinceNs() < kMaxIdleNs)
            return c;
        dropConnection(c);
    }
    auto *c = new HttpConnection(endpoint, m_clock, &m_poller, this);
    connect(c, &HttpConnection::connectionLost, this, &NativeTransport::dropConnection);
    m_connections.insert(c);
    return c;
}

void NativeTransport::release(Exchange *exchange)
{
    if (speaksHttp2(exchange->endpoint())) {
        auto *e = static_cast<H2Exchange *>(exchange);
        e->connection()->release(e);
        return;
    }
    auto *connection = static_cast<HttpConnection *>(exchange);
    if (connection->isReusable())
        m_idle.push_back(connection);
    else
        dropConnection(connection);
}

void NativeTransport::abandon(Exchange *exchange)
{
    if (speaksHttp2(exchange->endpoint())) {
        auto *e = static_cast<H2Exchange *>(exchange);
        e->connection()->release(e); // RST_STREAM for its stream only: the connection lives on
        return;
    }
    auto *connection = static_cast<HttpConnection *>(exchange);
    connection->abandon();
    dropConnection(connection);
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
