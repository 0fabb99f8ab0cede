#include "net/tcpstream.h"

#include "net/readbacklog.h"
#include "net/receivestamp.h"
#include "net/socketaddress.h"

#include <QHostInfo>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace tb {

namespace {

QString errnoText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

std::int64_t toNs(const timespec &t)
{
    return std::int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

} // namespace

TcpStream::TcpStream(const Endpoint &endpoint, const RunClock &clock, ByteStreamHandler *handler, EpollPoller *poller,
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
    sockaddr_storage storage{};
    const socklen_t length = toSocketAddress(address, port, &storage);
    if (length == 0)
        return failed(RequestStatus::Connect, QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    m_fd = ::socket(storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (m_fd < 0) {
        failed(RequestStatus::Connect, QStringLiteral("cannot create a socket: ") + errnoText(errno));
        return;
    }
    const int one = 1;
    // Tokens must leave at once, not after Nagle's delay.
    ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    m_kernelStamps = enableReceiveStamps(m_fd);

    if (::connect(m_fd, reinterpret_cast<sockaddr *>(&storage), length) == 0) {
        m_connected = true;
        if (!m_poller->add(m_fd, EPOLLIN, this))
            return failed(RequestStatus::Connect, QStringLiteral("cannot watch the socket: ") + errnoText(errno));
        if (m_handler)
            m_handler->streamOpened();
        return;
    }
    if (errno != EINPROGRESS)
        return failed(RequestStatus::Connect, errnoText(errno));
    // Writable = connected (or failed).
    m_watchingWrite = true;
    if (!m_poller->add(m_fd, EPOLLOUT, this))
        failed(RequestStatus::Connect, QStringLiteral("cannot watch the socket: ") + errnoText(errno));
}

ByteStream::Unread TcpStream::unread() const
{
    if (!isOpen())
        return Unread::End;
    char byte = 0;
    const ssize_t n = ::recv(m_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0)
        return Unread::Bytes;
    // 0: the server's FIN is queued; an error other than "nothing yet": a reset.
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? Unread::Nothing : Unread::End;
}

void TcpStream::setWatching(bool write)
{
    if (write != m_watchingWrite && m_fd >= 0) {
        m_watchingWrite = write;
        m_poller->modify(m_fd, write ? EPOLLIN | EPOLLOUT : EPOLLIN);
    }
}

void TcpStream::pollReady(std::uint32_t events)
{
    const quint64 generation = m_generation;
    if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        if (!m_connected || m_watchingWrite)
            onWritable();
        if (generation != m_generation)
            return;
    }
    if (m_connected && (events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
        onReadable();
}

void TcpStream::onWritable()
{
    if (!m_connected) {
        int error = 0;
        socklen_t size = sizeof(error);
        ::getsockopt(m_fd, SOL_SOCKET, SO_ERROR, &error, &size);
        if (error != 0) {
            failed(RequestStatus::Connect, errnoText(error));
            return;
        }
        m_connected = true;
        m_watchingWrite = true; // (force the change below)
        setWatching(false);
        if (m_handler)
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
        const ssize_t n = ::send(m_fd, m_pending.constData() + m_pendingOffset,
                                 std::size_t(m_pending.size() - m_pendingOffset), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                setWatching(true);
                return;
            }
            if (errno == EINTR)
                continue;
            const int error = errno;
            if (error == EPIPE || error == ECONNRESET) {
                // A server may answer (413 to a large body) and close before taking the whole
                // request: its answer waits in the receive queue, and says more than the reset.
                const quint64 generation = m_generation;
                onReadable();
                if (generation != m_generation)
                    return;
            }
            failed(RequestStatus::Protocol, QStringLiteral("write failed: ") + errnoText(error));
            return;
        }
        m_pendingOffset += n;
    }
    setWatching(false);
    m_pending.clear();
    m_pendingOffset = 0;
    m_lastStampNs = std::max(m_lastStampNs, stamp); // an answer cannot arrive before its question
    if (m_handler)
        m_handler->streamWritten(stamp);
}

std::int64_t TcpStream::stampOf(const msghdr &message, std::int64_t *readNs)
{
    timespec stamp{};
    if (!receiveStamp(message, &stamp))
        return m_clock.nowNs();
    // The kernel stamps on CLOCK_REALTIME: carry it onto the run's steady clock through the
    // offset between the two clocks, read between two steady readings close together (a
    // preemption between the readings would shift the stamp by its length).
    for (int attempt = 0; attempt < 3; ++attempt) {
        const std::int64_t before = m_clock.nowNs();
        timespec realNow{};
        ::clock_gettime(CLOCK_REALTIME, &realNow);
        const std::int64_t after = m_clock.nowNs();
        *readNs = after;
        if (after - before < 20'000 || m_realMinusRunNs == kNoOffset) {
            m_realMinusRunNs = toNs(realNow) - (before + after) / 2;
            break;
        }
    }
    return toNs(stamp) - m_realMinusRunNs;
}

void TcpStream::onReadable()
{
    const quint64 generation = m_generation;
    std::array<char, kReadSize> buffer;
    alignas(cmsghdr) char control[kReceiveStampControlBytes];
    for (;;) {
        iovec io{buffer.data(), buffer.size()};
        msghdr message{};
        message.msg_iov = &io;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof(control);
        const ssize_t n = ::recvmsg(m_fd, &message, 0);
        if (n > 0) {
            // Bytes of one connection arrive in order: so must their stamps.
            std::int64_t readNs = -1;
            const std::int64_t arrived = m_kernelStamps ? stampOf(message, &readNs) : m_clock.nowNs();
            if (readNs >= 0)
                ReadBacklog::record(readNs - arrived, std::size_t(n)); // how long the bytes waited for us
            const std::int64_t stamp = std::max(m_lastStampNs, arrived);
            m_lastStampNs = stamp;
            if (m_handler)
                m_handler->streamReceived(buffer.data(), std::size_t(n), stamp);
            if (generation != m_generation || m_fd < 0)
                return; // aborted from inside the handler
            if (std::size_t(n) < buffer.size())
                return; // drained; the notifier fires again when more arrives
            continue;
        }
        if (n == 0) {
            const std::int64_t stamp = m_clock.nowNs();
            ByteStreamHandler *handler = m_handler;
            close();
            if (handler)
                handler->streamClosed(stamp);
            return;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return;
        failed(RequestStatus::Protocol, errnoText(errno));
        return;
    }
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
    if (m_fd >= 0) {
        m_poller->remove(m_fd);
        ::close(m_fd);
        m_fd = -1;
    }
    m_connected = false;
}

} // namespace tb
