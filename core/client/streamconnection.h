#pragma once

#include "net/bytestream.h"
#include "net/endpoint.h"
#include "net/runclock.h"

#include <QObject>

#include <cstdint>
#include <memory>
#include <utility>

namespace tb {

/// What every client connection (HttpConnection, H2Connection, AlpnConnection) holds: the endpoint
/// it talks to, the run clock, the ByteStream it owns and hears, and the once-only report of its
/// loss. The stream's events stay each connection's own overrides, so no call is added on their
/// path.
class StreamConnection : public QObject, protected ByteStreamHandler
{
    Q_OBJECT

public:
    const Endpoint &endpoint() const { return m_endpoint; }
    bool hasKernelTimestamps() const { return m_stream->hasKernelTimestamps(); }
    /// The run-unique number NativeTransport gave the connection when it opened it (from 1;
    /// RequestRecord::connection); a connection made on another's open stream (ALPN's pick)
    /// keeps that one's number: it is the same TCP connection.
    std::uint64_t number() const { return m_number; }
    void setNumber(std::uint64_t number) { m_number = number; }

protected:
    /// The connection makes its stream (ByteStream::create) or takes an open one (handOver).
    StreamConnection(const Endpoint &endpoint, const RunClock &clock, QObject *parent);

    /// The first request opens the stream; later ones wait for it.
    void openOnce();
    /// True the first time only: the owner hears that a connection is lost once (connectionLost).
    bool firstLoss() { return !std::exchange(m_lostReported, true); }

    Endpoint m_endpoint;
    RunClock m_clock;
    std::unique_ptr<ByteStream> m_stream;
    bool m_opening = false; ///< open() was called (or the stream came open)

private:
    bool m_lostReported = false;
    std::uint64_t m_number = 0;
};

} // namespace tb
