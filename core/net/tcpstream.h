#pragma once

#include "net/bytestream.h"
#include "platform/socketio.h"
#include "platform/socketpoller.h"

#include <QHostAddress>
#include <QObject>

#include <limits>

namespace tb {

/// Plain TCP on a non-blocking socket of our own (core/platform's sockets). Where the platform
/// backend has them (Linux), reads carry the kernel's software receive stamps, so every piece of a
/// response is stamped with the time it arrived at the socket — exact even when this thread is busy
/// with other streams; elsewhere a read is stamped when it is made.
/// Reads are small (kReadSize) so that one read rarely spans events that arrived at different
/// times: the kernel reports the arrival of the last segment a read takes. Where the poller reads
/// for the stream (SocketPoller::receive(): io_uring) each of its reads is handled the same way,
/// and the socket is watched for readiness only while a write waits.
class TcpStream : public QObject, public ByteStream, private PollHandler, private ReceiveHandler
{
public:
    TcpStream(const Endpoint &endpoint, const RunClock &clock, ByteStreamHandler *handler, SocketPoller *poller,
              QObject *parent);
    ~TcpStream() override;

    void open() override;
    void write(const QByteArray &bytes) override;
    void abort() override;
    bool isOpen() const override { return m_socket != kNoSocket && m_connected; }
    bool handshaking() const override { return false; }
    bool hasKernelTimestamps() const override { return m_kernelStamps; }
    Unread unread() const override;
    QByteArray negotiatedProtocol() const override { return {}; }
    void handOver(ByteStreamHandler *handler, QObject *parent) override;

    static constexpr std::size_t kReadSize = 2048;

private:
    void pollReady(std::uint32_t events) override;
    void received(const char *data, std::size_t size, std::int64_t realtimeNs) override;
    void receiveEnded(int error) override;
    /// Connected: reading starts, by the poller when it can, else on readiness. False when failed.
    bool startReading();
    /// One read to the handler, stamped; false when the handler aborted the stream.
    bool deliver(const char *data, std::size_t size, std::int64_t realtimeNs);
    void ended(int error);
    void setWatching(bool write);
    void connectTo(const QHostAddress &address);
    void onWritable();
    void onReadable();
    void flushWrites();
    void close();
    void failed(RequestStatus status, QString message);
    /// The kernel's stamp (system clock) on the run clock; sets *readNs to the time of the read.
    std::int64_t runTimeOf(std::int64_t realtimeNs, std::int64_t *readNs);

    Endpoint m_endpoint;
    RunClock m_clock;
    ByteStreamHandler *m_handler;
    SocketHandle m_socket = kNoSocket;
    bool m_connected = false;
    bool m_kernelStamps = false;
    SocketPoller *m_poller;
    bool m_watchingWrite = false;
    bool m_receiving = false; ///< the poller reads (receive()); the set watches writes only
    bool m_inSet = false;     ///< registered with the poller's readiness set
    QByteArray m_pending;
    qsizetype m_pendingOffset = 0;
    int m_lookupId = -1;
    static constexpr std::int64_t kNoOffset = std::numeric_limits<std::int64_t>::min();
    std::int64_t m_realMinusRunNs = kNoOffset; ///< system clock − run clock, for kernel stamps
    std::int64_t m_lastStampNs = 0;
    /// Guards callbacks: a handler may abort (and the owner delete later) from inside one.
    quint64 m_generation = 0;
};

} // namespace tb
