#pragma once

#include "api/requestbuilder.h"
#include "client/streamconnection.h"
#include "client/transport.h"

#include <memory>
#include <string>
#include <vector>

namespace tb {

class AlpnConnection;
class SocketPoller;

/// A request waiting on an AlpnConnection's handshake, with everything it needs to be sent on the
/// connection the server's pick calls for.
class AlpnExchange final : public QObject, public Exchange
{
    Q_OBJECT

public:
    explicit AlpnExchange(AlpnConnection *connection);

    bool isConnected() const override { return false; }
    bool handshaking() const override;
    const Endpoint &endpoint() const override;
    std::uint64_t connectionNumber() const override;
    AlpnConnection *connection() const { return m_connection; }

private:
    friend class AlpnConnection;

    AlpnConnection *m_connection;
    ResponseSink *m_sink = nullptr; ///< null before send and once it ended or moved
    const RequestBuilder *m_builder = nullptr;
    // The hop, kept: a Hop only refers to what its sender holds while send() runs.
    Endpoint m_hopEndpoint;
    QUrl m_url;
    std::string m_json;
    bool m_post = true;
    bool m_credentials = true;
    QByteArray m_message;
};

/// The first connection to an https endpoint whose protocol is not known yet (http_version
/// auto): offers h2 and http/1.1 by ALPN, as curl does, and holds the requests that come while
/// its handshake runs. When the server has picked, its owner learns the pick (negotiated), makes
/// the connection that speaks it on the open stream (takeStream), and sends every waiting request
/// again through the transport (handOver): so the first connection's requests are never lost,
/// whichever the server picked, and an h2 server gets them all as streams of that connection.
class AlpnConnection : public StreamConnection
{
    Q_OBJECT

public:
    AlpnConnection(const Endpoint &endpoint, const RunClock &clock, SocketPoller *poller, QObject *parent = nullptr);
    ~AlpnConnection() override;

    bool handshaking() const { return m_stream && m_stream->handshaking(); }
    /// Still connecting, and room for another waiting request (as many as an HTTP/2 connection
    /// carries at first).
    bool canTakeMore() const;
    /// A new exchange waiting on this connection; canTakeMore() must hold.
    AlpnExchange *acquire();
    /// Keeps the exchange's request until the server has picked; the first one connects.
    void send(AlpnExchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink);
    /// The exchange ends before the handshake did (a deadline, Stop); the connection closes when
    /// none waits any more.
    void abandon(AlpnExchange *exchange);

    /// After negotiated: true when the server picked h2 (else http/1.1, or nothing: HTTP/1.1).
    bool pickedHttp2() const { return m_pickedHttp2; }
    /// After negotiated: the open stream, for the connection that speaks what was picked.
    std::unique_ptr<ByteStream> takeStream() { return std::move(m_stream); }
    /// After negotiated: sends every waiting request through `transport` (acquire, then send),
    /// telling each sink the exchange it moved to.
    void handOver(Transport &transport);

Q_SIGNALS:
    /// The TLS handshake is done and the server picked; emitted once (else connectionLost).
    void negotiated(tb::AlpnConnection *connection);
    /// Connecting failed (each waiting request heard why), or no request waits any more; the
    /// owner drops it. Emitted once.
    void connectionLost(tb::AlpnConnection *connection);

private:
    void streamOpened() override;
    void streamHandshaking() override;
    void streamWritten(std::int64_t stampNs) override;
    void streamReceived(const char *data, std::size_t size, std::int64_t stampNs) override;
    void streamClosed(std::int64_t stampNs) override;
    void streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs) override;

    /// Every waiting request fails with `status`, and the connection is lost.
    void failAll(RequestStatus status, const QString &message, std::int64_t stampNs);
    void reportLost();

    std::vector<AlpnExchange *> m_waiting;
    bool m_done = false; ///< negotiated or lost: takes no more requests
    bool m_pickedHttp2 = false;
};

} // namespace tb
