#include "engine/nativetransport.h"

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
}

void NativeTransport::send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink)
{
    static_cast<HttpConnection *>(exchange)->send(hop.message.isEmpty() ? builder.httpRequest(hop.json) : hop.message,
                                                  sink);
}

Exchange *NativeTransport::acquire(const Endpoint &endpoint)
{
    const std::int64_t now = m_clock.nowNs();
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
    auto *connection = static_cast<HttpConnection *>(exchange);
    if (connection->isReusable())
        m_idle.push_back(connection);
    else
        dropConnection(connection);
}

void NativeTransport::abandon(Exchange *exchange)
{
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

void NativeTransport::closeIdle()
{
    for (HttpConnection *c : std::vector<HttpConnection *>(m_idle.begin(), m_idle.end()))
        dropConnection(c);
}

} // namespace tb
