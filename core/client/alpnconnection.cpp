#include "client/alpnconnection.h"

#include "client/h2connection.h"

namespace tb {

AlpnExchange::AlpnExchange(AlpnConnection *connection)
    : QObject(connection)
    , m_connection(connection)
{}

bool AlpnExchange::handshaking() const
{
    return m_connection->handshaking();
}

const Endpoint &AlpnExchange::endpoint() const
{
    return m_connection->endpoint();
}

std::uint64_t AlpnExchange::connectionNumber() const
{
    return m_connection->number();
}

AlpnConnection::AlpnConnection(const Endpoint &endpoint, const RunClock &clock, SocketPoller *poller, QObject *parent)
    : StreamConnection(endpoint, clock, parent)
{
    m_stream = ByteStream::create(endpoint, clock, this, poller, this, alpnFor(endpoint.httpVersion));
}

AlpnConnection::~AlpnConnection()
{
    if (m_stream)
        m_stream->abort();
}

bool AlpnConnection::canTakeMore() const
{
    return !m_done && m_waiting.size() < std::size_t(H2Connection::kMaxStreams);
}

AlpnExchange *AlpnConnection::acquire()
{
    auto *e = new AlpnExchange(this);
    m_waiting.push_back(e);
    return e;
}

void AlpnConnection::send(AlpnExchange *e, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink)
{
    e->m_sink = sink;
    e->m_builder = &builder;
    e->m_hopEndpoint = hop.endpoint;
    e->m_url = hop.url;
    e->m_json = hop.json;
    e->m_post = hop.post;
    e->m_credentials = hop.credentials;
    e->m_message = hop.message;
    openOnce();
}

void AlpnConnection::abandon(AlpnExchange *e)
{
    e->m_sink = nullptr;
    std::erase(m_waiting, e);
    e->deleteLater();
    if (m_waiting.empty() && !m_done) {
        // Nobody waits for it (a connect deadline, Stop): a connection that slow is not kept.
        m_done = true;
        m_stream->abort();
        reportLost();
    }
}

void AlpnConnection::handOver(Transport &transport)
{
    const std::vector<AlpnExchange *> waiting = std::exchange(m_waiting, {});
    for (AlpnExchange *e : waiting) {
        // One that an earlier one's sink ended meanwhile (Stop) has no sink any more.
        ResponseSink *sink = std::exchange(e->m_sink, nullptr);
        if (!sink)
            continue;
        Exchange *next = transport.acquire(e->m_hopEndpoint, false);
        sink->exchangeMoved(next);
        if (next->isConnected()) // on the connection this handshake opened: its connecting is over
            sink->connectionOpened();
        transport.send(next, *e->m_builder,
                       Hop{e->m_hopEndpoint, e->m_url, e->m_json, e->m_post, e->m_credentials, e->m_message}, sink);
    }
}

void AlpnConnection::streamOpened()
{
    m_done = true;
    m_pickedHttp2 = m_stream->negotiatedProtocol() == "h2";
    Q_EMIT negotiated(this);
}

void AlpnConnection::streamHandshaking()
{
    const std::vector<AlpnExchange *> waiting = m_waiting;
    for (AlpnExchange *e : waiting) {
        if (e->m_sink)
            e->m_sink->connectionHandshaking();
    }
}

void AlpnConnection::streamWritten(std::int64_t)
{
    // Nothing is written before the handshake ends, and the stream has another owner after it.
}

void AlpnConnection::streamReceived(const char *, std::size_t, std::int64_t)
{
    // As for writes: what the server sends after the handshake goes to the stream's next owner.
}

void AlpnConnection::streamClosed(std::int64_t stampNs)
{
    failAll(RequestStatus::Tls, QStringLiteral("connection closed during the TLS handshake"), stampNs);
}

void AlpnConnection::streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs)
{
    failAll(status, message, stampNs);
}

void AlpnConnection::failAll(RequestStatus status, const QString &message, std::int64_t stampNs)
{
    m_done = true;
    m_stream->abort();
    const std::vector<AlpnExchange *> waiting = std::exchange(m_waiting, {});
    for (AlpnExchange *e : waiting) {
        if (ResponseSink *sink = std::exchange(e->m_sink, nullptr))
            sink->responseFailed(status, message, false, stampNs);
        e->deleteLater();
    }
    reportLost();
}

void AlpnConnection::reportLost()
{
    if (firstLoss())
        Q_EMIT connectionLost(this);
}

} // namespace tb
