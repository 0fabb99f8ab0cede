#pragma once

#include "api/requestbuilder.h"
#include "client/streamconnection.h"
#include "client/transport.h"
#include "metrics/requestrecord.h"
#include "net/httpresponseparser.h"

namespace tb {

/// One HTTP/1.1 client connection on the thread that created it, carrying one exchange at a time
/// and kept alive between exchanges.
///
/// Why not QNetworkAccessManager: Qt 6.4's QNAM opens at most 6 connections per host (no way to
/// raise it before 6.5), delivers data through an internal thread that coarsens timestamps, and
/// costs 50–70 µs CPU per SSE event. Here bytes come from a ByteStream that stamps them on arrival
/// and are parsed in place.
class HttpConnection : public StreamConnection, public Exchange
{
    Q_OBJECT

public:
    /// Plain-TCP connections register with `poller`, the thread's SocketPoller.
    HttpConnection(const Endpoint &endpoint, const RunClock &clock, SocketPoller *poller, QObject *parent = nullptr);
    /// On a stream already open, where the server picked http/1.1 (or nothing) by ALPN.
    HttpConnection(const Endpoint &endpoint, const RunClock &clock, std::unique_ptr<ByteStream> open,
                   QObject *parent = nullptr);
    ~HttpConnection() override;

    const Endpoint &endpoint() const override { return m_endpoint; }
    std::uint64_t connectionNumber() const override { return number(); }

    /// Starts an exchange: connects first if needed, writes `request`, reports to `sink`.
    void send(QByteArray request, ResponseSink *sink);
    /// Abandons the exchange in progress (timeout, cancel): closes the connection; the sink hears
    /// nothing more, and the connection is not reusable afterwards.
    void abandon();

    /// Idle, connected and allowed to carry another exchange.
    bool isReusable() const;
    /// What arrived on it unread (ByteStream::unread): asked before an idle connection carries
    /// another exchange, which would take a closed connection's end, or stray bytes, for its answer.
    ByteStream::Unread unread() const { return m_stream->unread(); }
    /// The server closed it after a response, before another exchange was answered on it: idle
    /// within kPromptCloseNs of that response, or under an exchange it never answered (stale).
    bool closedAfterResponse() const { return m_closedAfterResponse; }
    /// A close this soon after a response is the server's habit (llama.cpp closes after every
    /// streamed response), not an idle timeout.
    static constexpr std::int64_t kPromptCloseNs = 1'000'000'000;
    bool isConnected() const override { return m_connected; }
    bool handshaking() const override { return m_stream->handshaking(); }
    /// When the last exchange ended (run clock), for dropping connections idle too long.
    std::int64_t idleSinceNs() const { return m_idleSinceNs; }
    /// Total exchanges carried (1 = fresh connection).
    int exchanges() const { return m_exchanges; }

Q_SIGNALS:
    /// The server closed the connection, or it failed; the owner should drop it. Emitted once.
    void connectionLost(tb::HttpConnection *connection);

private:
    void streamOpened() override;
    void streamHandshaking() override;
    void streamWritten(std::int64_t stampNs) override;
    void streamReceived(const char *data, std::size_t size, std::int64_t stampNs) override;
    void streamClosed(std::int64_t stampNs) override;
    void streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs) override;

    /// `malformed`: the response broke HTTP's rules (not cut off).
    void fail(RequestStatus status, const QString &message, std::int64_t stampNs, bool malformed = false);
    void finishExchange(std::int64_t stampNs);
    /// The server closed or reset the connection: stale for an exchange sent on it again and not
    /// answered at all, a failure otherwise.
    void lost(RequestStatus status, const QString &message, std::int64_t stampNs);
    void reportLost();

    ResponseSink *m_sink = nullptr;
    QByteArray m_request;
    HttpResponseParser m_parser;
    bool m_connected = false;
    bool m_sentReported = false;
    bool m_answeredEarly = false; ///< the response began before the whole request was written
    bool m_keepAlive = true;
    bool m_broken = false;
    bool m_answered = false; ///< a byte of the current exchange's response arrived
    bool m_closedAfterResponse = false;
    int m_exchanges = 0;
    std::int64_t m_idleSinceNs = 0;
};

} // namespace tb
