#include "client/httpconnection.h"

namespace tb {

HttpConnection::HttpConnection(const Endpoint &endpoint, const RunClock &clock, SocketPoller *poller, QObject *parent)
    : StreamConnection(endpoint, clock, parent)
{
    m_stream = ByteStream::create(endpoint, clock, this, poller, this, Alpn::Http1);
}

HttpConnection::HttpConnection(const Endpoint &endpoint, const RunClock &clock, std::unique_ptr<ByteStream> open,
                               QObject *parent)
    : StreamConnection(endpoint, clock, parent)
    , m_connected(true)
    , m_idleSinceNs(clock.nowNs())
{
    m_stream = std::move(open);
    m_stream->handOver(this, this);
}

HttpConnection::~HttpConnection()
{
    m_sink = nullptr;
    m_stream->abort();
}

void HttpConnection::send(QByteArray request, ResponseSink *sink)
{
    m_sink = sink;
    m_parser.reset();
    m_sentReported = false;
    m_answeredEarly = false;
    m_answered = false;
    ++m_exchanges;
    if (m_connected) {
        m_stream->write(request);
        return;
    }
    m_request = std::move(request);
    openOnce();
}

void HttpConnection::abandon()
{
    m_sink = nullptr;
    m_broken = true;
    m_stream->abort();
}

bool HttpConnection::isReusable() const
{
    return !m_sink && !m_broken && m_keepAlive && m_connected && m_stream->isOpen();
}

void HttpConnection::streamOpened()
{
    m_connected = true;
    if (m_sink) {
        m_sink->connectionOpened();
        const QByteArray request = std::exchange(m_request, {});
        m_stream->write(request);
    }
}

void HttpConnection::streamHandshaking()
{
    if (m_sink)
        m_sink->connectionHandshaking();
}

void HttpConnection::streamWritten(std::int64_t stampNs)
{
    if (m_sink && !m_sentReported) {
        m_sentReported = true;
        m_sink->requestSent(stampNs);
    }
}

void HttpConnection::streamReceived(const char *data, std::size_t size, std::int64_t stampNs)
{
    if (!m_sink) {
        // Bytes nobody asked for on an idle connection: it is out of step, do not reuse it.
        m_broken = true;
        m_stream->abort();
        reportLost();
        return;
    }
    m_answered = true;
    std::size_t consumed = 0;
    ResponseSink *sink = m_sink;
    const auto result = m_parser.feed(
        data, size, &consumed,
        [this, sink, stampNs](const ResponseHead &head) {
            m_keepAlive = head.keepAlive;
            if (!m_sentReported) {
                // Answered before the request was all written (413 to a large body): the rest
                // of it must not go out, nor this connection be reused.
                m_sentReported = true;
                m_answeredEarly = true;
                sink->requestSent(stampNs);
            }
            sink->responseHead(head, stampNs);
        },
        [this, stampNs](const char *body, std::size_t bodySize) {
            if (m_sink)
                m_sink->responseBody(body, bodySize, stampNs);
        });
    if (!m_sink)
        return; // the sink abandoned the exchange while handling the data
    if (result == HttpResponseParser::Result::Error) {
        fail(RequestStatus::Protocol,
             QLatin1String(HttpResponseParser::kMalformed) + QString::fromStdString(m_parser.errorText()), stampNs,
             true);
        return;
    }
    if (result == HttpResponseParser::Result::Complete) {
        if (consumed < size)
            m_broken = true; // a server that sends past the end of its response cannot be trusted
        finishExchange(stampNs);
    }
}

void HttpConnection::finishExchange(std::int64_t stampNs)
{
    ResponseSink *sink = m_sink;
    m_sink = nullptr;
    m_idleSinceNs = stampNs;
    if (!m_keepAlive || m_broken || m_answeredEarly) {
        m_broken = true;
        m_stream->abort();
        reportLost();
    }
    sink->responseComplete(stampNs);
}

void HttpConnection::fail(RequestStatus status, const QString &message, std::int64_t stampNs, bool malformed)
{
    m_broken = true;
    ResponseSink *sink = m_sink;
    m_sink = nullptr;
    m_stream->abort();
    if (sink)
        sink->responseFailed(status, message, !malformed && m_parser.headReceived(), stampNs);
    reportLost();
}

void HttpConnection::reportLost()
{
    if (firstLoss())
        Q_EMIT connectionLost(this);
}

void HttpConnection::streamClosed(std::int64_t stampNs)
{
    m_connected = false;
    m_broken = true;
    if (m_sink && m_parser.closeCompletes()) {
        finishExchange(stampNs);
        reportLost();
        return;
    }
    lost(RequestStatus::Protocol,
         m_parser.headReceived() ? QStringLiteral("connection closed before the response was complete")
                                 : QStringLiteral("connection closed before any response"),
         stampNs);
}

void HttpConnection::streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs)
{
    m_connected = false;
    lost(status, message, stampNs);
}

void HttpConnection::lost(RequestStatus status, const QString &message, std::int64_t stampNs)
{
    m_broken = true;
    // Only a connection that carried a response before can have been closed "after" one; the
    // exchange sent on it again was then never read by the server, and may go again.
    const bool stale = m_sink && m_exchanges > 1 && !m_answered;
    m_closedAfterResponse = m_exchanges > 0 && (stale || (!m_sink && stampNs - m_idleSinceNs < kPromptCloseNs));
    if (!stale) {
        if (m_sink)
            fail(status, message, stampNs);
        reportLost();
        return;
    }
    ResponseSink *sink = std::exchange(m_sink, nullptr);
    m_stream->abort();
    sink->connectionStale(status, message, stampNs);
    reportLost();
}

} // namespace tb
