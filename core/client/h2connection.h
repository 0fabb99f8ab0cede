#pragma once

#include "api/requestbuilder.h"
#include "client/streamconnection.h"
#include "client/transport.h"
#include "net/httpresponseparser.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

struct nghttp2_session;

namespace tb {

class H2Connection;
struct H2Callbacks;

/// One request on an H2Connection: an HTTP/2 stream, as the worker's deadlines see it.
class H2Exchange final : public QObject, public Exchange
{
    Q_OBJECT

public:
    explicit H2Exchange(H2Connection *connection);

    bool isConnected() const override;
    bool handshaking() const override;
    const Endpoint &endpoint() const override;
    std::uint64_t connectionNumber() const override;
    H2Connection *connection() const { return m_connection; }

private:
    friend class H2Connection;
    friend struct H2Callbacks;

    H2Connection *m_connection;
    ResponseSink *m_sink = nullptr; ///< null once it ended (or before send)
    std::int32_t m_stream = 0;      ///< nghttp2's stream id once submitted
    QByteArray m_body;
    qsizetype m_bodyOffset = 0;
    ResponseHead m_head;
    bool m_headSeen = false;
    bool m_sentReported = false;
    bool m_queued = false; ///< its END_STREAM went into bytes handed to the stream
    bool m_ended = false;  ///< the server's END_STREAM arrived
    bool m_closed = false; ///< nghttp2 closed the stream
    std::size_t m_headerBytes = 0;
    int m_headerFields = 0;
    std::int64_t m_resetByServer = -1; ///< the error code of the server's RST_STREAM
};

/// One HTTP/2 client connection on the thread that created it — in clear by prior knowledge (h2c),
/// or over TLS where the server picked h2 by ALPN — carrying up to maxStreams() exchanges at once,
/// one nghttp2 stream each.
///
/// Why: over HTTP/1.1 every SSE event of every stream is a TCP segment of its own, and the
/// kernel's cost per segment (a wake-up, recvmsg, the ACK) is most of the client's CPU; here one
/// read carries DATA frames of many streams. Bytes come from a ByteStream stamped on arrival, and
/// every frame parsed from a read carries that read's stamp.
class H2Connection : public StreamConnection
{
    Q_OBJECT

public:
    /// At most this many streams on one connection, fewer when the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS says so: RFC 9113 §6.5.2 asks servers to allow at least
    /// 100, and it is what QNAM opens per connection, so both transports spread a load over as
    /// many connections; more on one makes its single socket and receive window the bottleneck.
    static constexpr int kMaxStreams = 100;
    /// Receive windows (per stream, and the connection's): generous, so that a fast stream is
    /// never throttled by our window updates; the worker bounds what it keeps of a body.
    static constexpr std::int32_t kStreamWindow = 4 * 1024 * 1024;
    static constexpr std::int32_t kConnectionWindow = 16 * 1024 * 1024;

    H2Connection(const Endpoint &endpoint, const RunClock &clock, SocketPoller *poller, QObject *parent = nullptr);
    /// On a TLS stream already open, where the server picked h2 by ALPN.
    H2Connection(const Endpoint &endpoint, const RunClock &clock, std::unique_ptr<ByteStream> open,
                 QObject *parent = nullptr);
    ~H2Connection() override;

    bool isConnected() const { return m_connected; }
    bool handshaking() const { return m_stream->handshaking(); }

    /// Streams it may carry at once now.
    int maxStreams() const;
    /// Exchanges on it (sent or about to be).
    int load() const { return int(m_exchanges.size()); }
    /// Not failed or going away, and a stream slot is free.
    bool canTakeMore() const { return !m_dead && !m_goingAway && load() < maxStreams(); }
    /// When its last exchange ended (run clock); meaningful when load() is 0.
    std::int64_t idleSinceNs() const { return m_idleSinceNs; }
    /// The server closed it and this thread has not read that yet (ByteStream::unread; frames
    /// waiting to be read, a PING say, are no reason to drop it).
    bool closedByPeer() const { return m_stream->unread() == ByteStream::Unread::End; }

    /// A new exchange on this connection (connects first when needed); canTakeMore() must hold.
    H2Exchange *acquire();
    /// Starts the exchange's stream: headers from `builder`, the hop's JSON as its body.
    void send(H2Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink);
    /// The exchange's sink heard responseComplete, or it ends (abandon): the stream is reset with
    /// CANCEL if it is still open; the connection lives on.
    void release(H2Exchange *exchange);
    /// GOAWAY, then closes: for a connection without exchanges (Stop, idle for too long).
    void shutdown();

Q_SIGNALS:
    /// It failed, or the server closed or retired it (GOAWAY); the owner drops it. Emitted once.
    void connectionLost(tb::H2Connection *connection);

private:
    friend struct H2Callbacks;

    /// The nghttp2 session, before there is a stream.
    H2Connection(const Endpoint &endpoint, const RunClock &clock, QObject *parent);

    void streamOpened() override;
    void streamHandshaking() override;
    void streamWritten(std::int64_t stampNs) override;
    void streamReceived(const char *data, std::size_t size, std::int64_t stampNs) override;
    void streamClosed(std::int64_t stampNs) override;
    void streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs) override;

    /// Hands what nghttp2 has to send to the stream; not from inside nghttp2's callbacks.
    void flush();
    /// Fails every exchange still on the connection and closes it. `broken`: the connection broke
    /// (a response begun is cut off, not malformed); an empty message says it closed ("closed
    /// before …" to each exchange, then `cause`: the socket's own error, a reset say).
    void failAll(RequestStatus status, const QString &message, std::int64_t stampNs, bool broken,
                 const QString &cause = {});
    /// The exchange ends with `status`; it is disposed of.
    void failExchange(H2Exchange *exchange, RequestStatus status, const QString &message, std::int64_t stampNs,
                      bool cutAfterHead);
    /// The exchange's stream was not processed (ResponseSink::connectionStale: the server's own
    /// refusal, a ServerError if it does not go again); it is disposed of.
    void staleExchange(H2Exchange *exchange, const QString &message, std::int64_t stampNs);
    void forget(H2Exchange *exchange);
    /// Calls `what` on the sink of every exchange on the connection.
    void tellSinks(void (ResponseSink::*what)());
    /// Closes and reports the loss once no exchange is left on a connection going away.
    void retireIfDone();
    void reportLost();
    H2Exchange *exchangeOf(std::int32_t stream) const;

    nghttp2_session *m_session = nullptr;
    std::vector<H2Exchange *> m_exchanges;
    std::unordered_map<std::int32_t, H2Exchange *> m_byStream; ///< exchanges whose stream nghttp2 may still report
    std::vector<H2Exchange *> m_awaitingWrite; ///< END_STREAM handed to the stream, not yet in the kernel
    std::int64_t m_stampNs = 0;                ///< the stamp of the read being parsed
    std::int64_t m_idleSinceNs = 0;
    QString m_error;                             ///< what nghttp2 said of the server's last broken frame
    std::optional<std::uint32_t> m_serverGoaway; ///< the error code of the server's GOAWAY, once one came
    int m_inSession = 0;
    bool m_flushing = false;
    bool m_flushAgain = false;
    bool m_connected = false;
    bool m_goingAway = false; ///< GOAWAY received or sent: no new streams
    bool m_dead = false;
};

} // namespace tb
