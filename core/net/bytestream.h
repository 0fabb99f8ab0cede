#pragma once

#include "metrics/requestrecord.h"
#include "net/endpoint.h"
#include "net/runclock.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <memory>

class QObject;

namespace tb {

/// Receives what happens on a ByteStream. Calls come on the stream's thread; a handler may abort
/// the stream from inside any call.
class ByteStreamHandler
{
public:
    virtual ~ByteStreamHandler() = default;
    virtual void streamOpened() = 0;
    /// TLS only: TCP is up and the handshake begins (streamOpened follows when it is done).
    virtual void streamHandshaking() {}
    /// Everything written so far has been handed to the kernel.
    virtual void streamWritten(std::int64_t stampNs) = 0;
    /// Bytes that arrived; stampNs is when (run clock) — see ByteStream::create.
    virtual void streamReceived(const char *data, std::size_t size, std::int64_t stampNs) = 0;
    /// The peer closed the connection (end of stream).
    virtual void streamClosed(std::int64_t stampNs) = 0;
    /// Connecting, TLS or the connection failed. Connect or Tls before streamOpened; Protocol after.
    virtual void streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs) = 0;
};

/// What a TLS stream offers the server by ALPN: HTTP/1.1 alone, or h2 first and HTTP/1.1 (as curl
/// does, with or without --http2: a server without h2 picks HTTP/1.1 and can say so).
enum class Alpn { Http1, Http2OrHttp1 };
/// The protocol names of an offer, in order of preference: "h2", "http/1.1".
QList<QByteArray> alpnProtocols(Alpn alpn);
/// What a target's connections offer for its HTTP version, on both transports: HTTP/1.1 alone for
/// 1.1, else h2 and HTTP/1.1 (auto uses the server's pick, 2 insists on h2).
Alpn alpnFor(HttpVersion version);
/// Why a request that must go over HTTP/2 (--http2, or an endpoint whose server picked h2
/// before) cannot: the server's ALPN pick ("" for none).
QString notHttp2ByAlpn(const QByteArray &picked);

/// A client connection's bytes, in and out: the transport under HttpConnection and H2Connection.
class ByteStream
{
public:
    virtual ~ByteStream() = default;

    /// Connects (asynchronously); the handler hears streamOpened or streamFailed.
    virtual void open() = 0;
    /// Queues bytes; streamWritten follows once all of them are in the kernel.
    virtual void write(const QByteArray &bytes) = 0;
    /// Closes at once; the handler hears nothing more.
    virtual void abort() = 0;
    virtual bool isOpen() const = 0;
    /// Connected over TCP, TLS handshake under way (never for plain TCP).
    virtual bool handshaking() const = 0;
    /// True when received bytes carry the kernel's arrival time (not the time they were read).
    virtual bool hasKernelTimestamps() const = 0;
    /// What arrived on an idle connection that this thread has not read yet: asked before a
    /// kept-alive connection carries another request (the server may have closed it a moment
    /// ago). Costs a system call; consumes nothing.
    enum class Unread { Nothing, Bytes, End };
    virtual Unread unread() const = 0;
    /// The protocol the server picked by ALPN ("h2", "http/1.1"), once open; empty when it picked
    /// none, and without TLS.
    virtual QByteArray negotiatedProtocol() const = 0;
    /// An open stream changes owners (a connection whose protocol the server picked): what
    /// happens next goes to `handler`, and `parent` owns it.
    virtual void handOver(ByteStreamHandler *handler, QObject *parent) = 0;

    /// Plain TCP: a socket of our own whose reads carry the kernel's software receive timestamp
    /// (SO_TIMESTAMPING), so a chunk is stamped when it arrived even if this thread was busy;
    /// falls back to the time of the read where the kernel gives none. TLS: QSslSocket, stamped
    /// when its readyRead is handled, before parsing; it offers `alpn` to the server.
    /// Plain TCP streams register with `poller` (one per thread).
    static std::unique_ptr<ByteStream> create(const Endpoint &endpoint, const RunClock &clock,
                                              ByteStreamHandler *handler, class SocketPoller *poller, QObject *parent,
                                              Alpn alpn);
};

} // namespace tb
