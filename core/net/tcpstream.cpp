#include "net/tcpstream.h"

#include "net/readbacklog.h"
#include "platform/receivestamp.h"

#include <QHostInfo>

#include <array>
#include <chrono>

namespace tb {

TcpStream::TcpStream(const Endpoint &endpoint, const RunClock &clock, ByteStreamHandler *handler, SocketPoller *poller,
                     QObject *parent)
    : QObject(parent)
    , m_endpoint(endpoint)
    , m_clock(clock)
    , m_handler(handler)
    , m_poller(poller)
{}

TcpStream::~TcpStream()
{
    m_handler = nullptr;
    close();
}

void TcpStream::open()
{
    // Through a proxy (absolute-form requests), the connection is to the proxy.
    const QString &host = m_endpoint.proxiedPlain() ? m_endpoint.proxy.host : m_endpoint.host;
    QHostAddress address;
    if (address.setAddress(host)) {
        connectTo(address);
        return;
    }
    // Names are looked up asynchronously (QHostInfo caches answers for a minute).
    const quint64 generation = m_generation;
    m_lookupId = QHostInfo::lookupHost(host, this, [this, generation, host](const QHostInfo &info) {
        m_lookupId = -1;
        if (generation != m_generation)
            return;
        if (info.error() != QHostInfo::NoError || info.addresses().isEmpty()) {
            failed(RequestStatus::Connect, QStringLiteral("cannot resolve '%1': %2").arg(host, info.errorString()));
            return;
        }
        // Prefer IPv4, like most clients: a host that answers AAAA but does not listen on it
        // would otherwise cost a connect timeout.
        QHostAddress chosen = info.addresses().first();
        for (const QHostAddress &a : info.addresses()) {
            if (a.protocol() == QAbstractSocket::IPv4Protocol) {
                chosen = a;
                break;
            }
        }
        connectTo(chosen);
    });
}

void TcpStream::connectTo(const QHostAddress &address)
{
    const quint16 port = m_endpoint.proxiedPlain() ? m_endpoint.proxy.port : m_endpoint.port;
    if (address.protocol() != QAbstractSocket::IPv4Protocol && address.protocol() != QAbstractSocket::IPv6Protocol)
        return failed(RequestStatus::Connect, QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    const SocketResult connecting = connectTcp(address, port, &m_socket);
    if (connecting.status == SocketStatus::Failed) {
        m_socket = kNoSocket;
        return failed(RequestStatus::Connect, socketErrorText(connecting.error));
    }
    m_kernelStamps = enableReceiveStamps(m_socket);
    if (connecting.status == SocketStatus::Ok) {
        m_connected = true;
        if (startReading() && m_handler)
            m_handler->streamOpened();
        return;
    }
    // Writable = connected (or failed).
    m_watchingWrite = true;
    if (!m_poller->add(m_socket, PollEvent::Write, this))
        return failed(RequestStatus::Connect,
                      QStringLiteral("cannot watch the socket: ") + socketErrorText(lastSocketError()));
    m_inSet = true;
}

bool TcpStream::startReading()
{
    m_watchingWrite = false;
    if (m_poller->receive(m_socket, this)) {
        m_receiving = true;
        // Out of the set until a write waits: a socket left there with no interest would still
        // report a hang-up, over and over (level-triggered).
        if (m_inSet) {
            m_poller->remove(m_socket);
            m_inSet = false;
        }
        return true;
    }
    const bool watching =
        m_inSet ? (m_poller->modify(m_socket, PollEvent::Read), true) : m_poller->add(m_socket, PollEvent::Read, this);
    if (!watching) {
        failed(RequestStatus::Connect,
               QStringLiteral("cannot watch the socket: ") + socketErrorText(lastSocketError()));
        return false;
    }
    m_inSet = true;
    return true;
}

ByteStream::Unread TcpStream::unread() const
{
    if (!isOpen())
        return Unread::End;
    switch (m_poller->pendingInput(m_socket)) {
    case PendingInput::Nothing:
        return Unread::Nothing;
    case PendingInput::Bytes:
        return Unread::Bytes;
    case PendingInput::End:
        break;
    }
    return Unread::End;
}

void TcpStream::setWatching(bool write)
{
    if (write == m_watchingWrite || m_socket == kNoSocket)
        return;
    m_watchingWrite = write;
    if (!m_receiving) {
        m_poller->modify(m_socket, write ? PollEvent::Read | PollEvent::Write : PollEvent::Read);
    } else if (!write) {
        m_poller->remove(m_socket);
        m_inSet = false;
    } else if (m_poller->add(m_socket, PollEvent::Write, this)) {
        m_inSet = true;
    } else {
        failed(RequestStatus::Protocol,
               QStringLiteral("cannot watch the socket: ") + socketErrorText(lastSocketError()));
    }
}

void TcpStream::pollReady(std::uint32_t events)
{
    const quint64 generation = m_generation;
    if (events & (PollEvent::Write | PollEvent::Error | PollEvent::Hangup)) {
        if (!m_connected || m_watchingWrite)
            onWritable();
        if (generation != m_generation)
            return;
    }
    if (m_connected && !m_receiving && (events & (PollEvent::Read | PollEvent::Error | PollEvent::Hangup)))
        onReadable();
}

void TcpStream::onWritable()
{
    if (!m_connected) {
        if (const int error = connectError(m_socket)) {
            failed(RequestStatus::Connect, socketErrorText(error));
            return;
        }
        m_connected = true;
        if (startReading() && m_handler)
            m_handler->streamOpened();
        return;
    }
    flushWrites();
}

void TcpStream::write(const QByteArray &bytes)
{
    if (m_pendingOffset >= m_pending.size()) {
        m_pending = bytes;
        m_pendingOffset = 0;
    } else {
        m_pending += bytes;
    }
    if (m_connected)
        flushWrites();
}

void TcpStream::flushWrites()
{
    // "Sent" is when the last bytes were handed to the kernel: stamped before that send(), since
    // on loopback the server may answer before send() even returns to this thread.
    std::int64_t stamp = m_clock.nowNs();
    while (m_pendingOffset < m_pending.size()) {
        stamp = m_clock.nowNs();
        const SocketResult sent = sendSome(m_socket, m_pending.constData() + m_pendingOffset,
                                           std::size_t(m_pending.size() - m_pendingOffset));
        if (sent.status == SocketStatus::WouldBlock) {
            setWatching(true);
            return;
        }
        if (sent.status != SocketStatus::Ok) {
            if (isConnectionLost(sent.error)) {
                // A server may answer (413 to a large body) and close before taking the whole
                // request: its answer waits in the receive queue, and says more than the reset.
                const quint64 generation = m_generation;
                onReadable();
                if (generation != m_generation)
                    return;
            }
            failed(RequestStatus::Protocol, QStringLiteral("write failed: ") + socketErrorText(sent.error));
            return;
        }
        m_pendingOffset += qsizetype(sent.bytes);
    }
    setWatching(false);
    m_pending.clear();
    m_pendingOffset = 0;
    m_lastStampNs = std::max(m_lastStampNs, stamp); // an answer cannot arrive before its question
    if (m_handler)
        m_handler->streamWritten(stamp);
}

std::int64_t TcpStream::runTimeOf(std::int64_t realtimeNs, std::int64_t *readNs)
{
    // The kernel stamps on the system clock: carry it onto the run's steady clock through the
    // offset between the two clocks, read between two steady readings close together (a
    // preemption between the readings would shift the stamp by its length).
    for (int attempt = 0; attempt < 3; ++attempt) {
        const std::int64_t before = m_clock.nowNs();
        const std::int64_t realNow =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        const std::int64_t after = m_clock.nowNs();
        *readNs = after;
        if (after - before < 20'000 || m_realMinusRunNs == kNoOffset) {
            m_realMinusRunNs = realNow - (before + after) / 2;
            break;
        }
    }
    return realtimeNs - m_realMinusRunNs;
}

void TcpStream::onReadable()
{
    std::array<char, kReadSize> buffer;
    for (;;) {
        std::int64_t realtimeNs = 0;
        const SocketResult read = receiveStamped(m_socket, buffer.data(), buffer.size(), &realtimeNs);
        if (read.status == SocketStatus::Ok) {
            if (!deliver(buffer.data(), read.bytes, realtimeNs))
                return; // aborted from inside the handler
            if (read.bytes < buffer.size())
                return; // drained; the poller fires again when more arrives
            continue;
        }
        if (read.status == SocketStatus::Closed)
            return ended(0);
        if (read.status == SocketStatus::WouldBlock)
            return;
        return ended(read.error);
    }
}

bool TcpStream::deliver(const char *data, std::size_t size, std::int64_t realtimeNs)
{
    const quint64 generation = m_generation;
    // Bytes of one connection arrive in order: so must their stamps.
    std::int64_t readNs = -1;
    const std::int64_t arrived = realtimeNs != 0 ? runTimeOf(realtimeNs, &readNs) : m_clock.nowNs();
    if (readNs >= 0)
        ReadBacklog::record(readNs - arrived, size); // how long the bytes waited for us
    const std::int64_t stamp = std::max(m_lastStampNs, arrived);
    m_lastStampNs = stamp;
    if (m_handler)
        m_handler->streamReceived(data, size, stamp);
    return generation == m_generation && m_socket != kNoSocket;
}

void TcpStream::received(const char *data, std::size_t size, std::int64_t realtimeNs)
{
    deliver(data, size, realtimeNs);
}

void TcpStream::receiveEnded(int error)
{
    m_receiving = false; // the poller has let go: close() has nothing to end
    ended(error);
}

void TcpStream::ended(int error)
{
    if (error != 0)
        return failed(RequestStatus::Protocol, socketErrorText(error));
    const std::int64_t stamp = m_clock.nowNs();
    ByteStreamHandler *handler = m_handler;
    close();
    if (handler)
        handler->streamClosed(stamp);
}

void TcpStream::failed(RequestStatus status, QString message)
{
    const std::int64_t stamp = m_clock.nowNs();
    // Not reaching the proxy is the proxy's failure, not the target's.
    if (status == RequestStatus::Connect && m_endpoint.proxiedPlain()) {
        status = RequestStatus::Proxy;
        message = QStringLiteral("proxy %1: %2").arg(m_endpoint.proxy.describe(), message);
    }
    ByteStreamHandler *handler = m_handler;
    close();
    if (handler)
        handler->streamFailed(status, message, stamp);
}

void TcpStream::handOver(ByteStreamHandler *handler, QObject *parent)
{
    m_handler = handler;
    setParent(parent);
}

void TcpStream::abort()
{
    m_handler = nullptr;
    close();
}

void TcpStream::close()
{
    ++m_generation;
    if (m_lookupId >= 0) {
        QHostInfo::abortHostLookup(m_lookupId);
        m_lookupId = -1;
    }
    if (m_socket != kNoSocket) {
        if (m_receiving)
            m_poller->endReceive(m_socket);
        if (m_inSet)
            m_poller->remove(m_socket);
        closeSocket(m_socket);
        m_socket = kNoSocket;
    }
    m_receiving = false;
    m_inSet = false;
    m_connected = false;
    m_watchingWrite = false;
}

} // namespace tb
