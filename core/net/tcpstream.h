#pragma once

#include "net/bytestream.h"
#include "net/epollpoller.h"

#include <QHostAddress>
#include <QObject>

#include <limits>

struct msghdr;

namespace tb {

/// Plain TCP on a non-blocking socket of our own (POSIX). Reads use recvmsg() with the kernel's
/// software receive timestamps (SO_TIMESTAMPING), so every piece of a response is stamped with
/// the time it arrived at the socket — exact even when this thread is busy with other streams.
/// Reads are small (kReadSize) so that one read rarely spans events that arrived at different
/// times: the kernel reports the arrival of the last segment a read takes.
class TcpStream : public QObject, public ByteStream, private PollHandler
{
public:
    TcpStream(const Endpoint &endpoint, const RunClock &clock, ByteStreamHandler *handler, EpollPoller *poller,
              QObject *parent);
    ~TcpStream() override;

    void open() override;
    void write(const QByteArray &bytes) override;
    void abort() override;
    bool isOpen() const override { return m_fd >= 0 && m_connected; }
    bool handshaking() const override { return false; }
    bool hasKernelTimestamps() const override { return m_kernelStamps; }
    Unread unread() const override;
    QByteArray negotiatedProtocol() const override { return {}; }
    void handOver(ByteStreamHandler *handler, QObject *parent) override;

    static constexpr std::size_t kReadSize = 2048;

private:
    void pollReady(std::uint32_t events) override;
    void setWatching(bool write);
    void connectTo(const QHostAddress &address);
    void onWritable();
    void onReadable();
    void flushWrites();
    void close();
    void failed(RequestStatus status, QString message);
    /// Sets *readNs to the time of the read when the kernel stamped the bytes.
    std::int64_t stampOf(const ::msghdr &message, std::int64_t *readNs);

    Endpoint m_endpoint;
    RunClock m_clock;
    ByteStreamHandler *m_handler;
    int m_fd = -1;
    bool m_connected = false;
    bool m_kernelStamps = false;
    EpollPoller *m_poller;
    bool m_watchingWrite = false;
    QByteArray m_pending;
    qsizetype m_pendingOffset = 0;
    int m_lookupId = -1;
    static constexpr std::int64_t kNoOffset = std::numeric_limits<std::int64_t>::min();
    std::int64_t m_realMinusRunNs = kNoOffset; ///< CLOCK_REALTIME − run clock, for kernel stamps
    std::int64_t m_lastStampNs = 0;
    /// Guards callbacks: a handler may abort (and the owner delete later) from inside one.
    quint64 m_generation = 0;
};

} // namespace tb
