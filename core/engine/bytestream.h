#pragma once

#include "engine/requestbuilder.h"
#include "engine/runclock.h"
#include "metrics/requestrecord.h"

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

/// A client connection's bytes, in and out: the transport under HttpConnection.
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

    /// Plain TCP: a socket of our own whose reads carry the kernel's software receive timestamp
    /// (SO_TIMESTAMPING), so a chunk is stamped when it arrived even if this thread was busy;
    /// falls back to the time of the read where the kernel gives none. TLS: QSslSocket, stamped
    /// when its readyRead is handled, before parsing.
    /// Plain TCP streams register with `poller` (one per thread).
    static std::unique_ptr<ByteStream> create(const Endpoint &endpoint, const RunClock &clock,
                                              ByteStreamHandler *handler, class EpollPoller *poller, QObject *parent);
};

} // namespace tb
