#include "platform/socketio.h"

#include "platform/socketaddress.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

// Linux and the BSDs make a socket non-blocking and close-on-exec in the call that creates it, and
// suppress SIGPIPE per send; macOS has neither: fcntl() after, and SO_NOSIGPIPE on the socket.
#if defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC)
#define TB_SOCKET_FLAGS (SOCK_NONBLOCK | SOCK_CLOEXEC)
#else
#define TB_SOCKET_FLAGS 0
#endif
#ifdef MSG_NOSIGNAL
#define TB_SEND_FLAGS MSG_NOSIGNAL
#else
#define TB_SEND_FLAGS 0
#endif

namespace tb {

namespace {

/// What TB_SOCKET_FLAGS could not do in the creating call; and no Nagle, no SIGPIPE.
bool prepare(int fd, bool noDelay)
{
    if (TB_SOCKET_FLAGS == 0) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0 || ::fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
            return false;
    }
#ifdef SO_NOSIGPIPE
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
    if (noDelay) {
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return true;
}

SocketResult failed(int error)
{
    return {SocketStatus::Failed, 0, error};
}

} // namespace

QString socketErrorText(int error)
{
    return QString::fromLocal8Bit(std::strerror(error));
}

int lastSocketError()
{
    return errno;
}

bool isConnectionLost(int error)
{
    return error == EPIPE || error == ECONNRESET;
}

bool isOutOfDescriptors(int error)
{
    return error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM;
}

SocketResult connectTcp(const QHostAddress &address, quint16 port, SocketHandle *socket)
{
    sockaddr_storage storage{};
    const socklen_t length = toSocketAddress(address, port, &storage);
    if (length == 0)
        return failed(EAFNOSUPPORT);
    const int fd = ::socket(storage.ss_family, SOCK_STREAM | TB_SOCKET_FLAGS, 0);
    if (fd < 0)
        return failed(errno);
    if (!prepare(fd, true)) {
        const int error = errno;
        ::close(fd);
        return failed(error);
    }
    *socket = fd;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&storage), length) == 0)
        return {SocketStatus::Ok, 0, 0};
    if (errno == EINPROGRESS)
        return {SocketStatus::InProgress, 0, 0};
    const int error = errno;
    ::close(fd);
    *socket = kNoSocket;
    return failed(error);
}

int connectError(SocketHandle socket)
{
    int error = 0;
    socklen_t size = sizeof error;
    if (::getsockopt(int(socket), SOL_SOCKET, SO_ERROR, &error, &size) != 0)
        return errno;
    return error;
}

SocketHandle listenTcp(const QHostAddress &address, quint16 port, int backlog, quint16 *boundPort, QString *error)
{
    const auto fail = [error](int fd, const QString &what) {
        if (error)
            *error = what;
        if (fd >= 0)
            ::close(fd);
        return kNoSocket;
    };
    sockaddr_storage storage{};
    socklen_t length = toSocketAddress(address, port, &storage);
    if (length == 0)
        return fail(-1, QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    const int fd = ::socket(storage.ss_family, SOCK_STREAM | TB_SOCKET_FLAGS, 0);
    if (fd < 0 || !prepare(fd, false))
        return fail(fd, QStringLiteral("cannot create a socket: %1").arg(socketErrorText(errno)));
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    const bool any = address == QHostAddress(QHostAddress::Any) || address == QHostAddress(QHostAddress::AnyIPv6);
    if (storage.ss_family == AF_INET6 && any) {
        const int zero = 0; // Any: IPv4 too
        ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    }
    if (::bind(fd, reinterpret_cast<sockaddr *>(&storage), length) != 0)
        return fail(fd, QStringLiteral("cannot listen on %1 port %2: %3")
                            .arg(address.toString())
                            .arg(port)
                            .arg(socketErrorText(errno)));
    if (::listen(fd, backlog) != 0)
        return fail(fd, QStringLiteral("cannot listen: %1").arg(socketErrorText(errno)));
    ::getsockname(fd, reinterpret_cast<sockaddr *>(&storage), &length);
    if (boundPort)
        *boundPort = portOf(storage);
    return fd;
}

SocketResult acceptTcp(SocketHandle listener, SocketHandle *accepted)
{
    for (;;) {
#if TB_SOCKET_FLAGS != 0 && defined(__linux__)
        const int fd = ::accept4(int(listener), nullptr, nullptr, TB_SOCKET_FLAGS);
#else
        const int fd = ::accept(int(listener), nullptr, nullptr);
#endif
        if (fd >= 0) {
            if (!prepare(fd, true)) {
                const int error = errno;
                ::close(fd);
                return failed(error);
            }
            *accepted = fd;
            return {SocketStatus::Ok, 0, 0};
        }
        if (errno == EINTR || errno == ECONNABORTED)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return {SocketStatus::WouldBlock, 0, 0};
        return failed(errno);
    }
}

void enableNagle(SocketHandle socket)
{
    const int off = 0;
    ::setsockopt(int(socket), IPPROTO_TCP, TCP_NODELAY, &off, sizeof off);
}

SocketResult sendSome(SocketHandle socket, const char *data, std::size_t size)
{
    for (;;) {
        const ssize_t n = ::send(int(socket), data, size, TB_SEND_FLAGS);
        if (n >= 0)
            return {SocketStatus::Ok, std::size_t(n), 0};
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return {SocketStatus::WouldBlock, 0, 0};
        return failed(errno);
    }
}

SocketResult receiveSome(SocketHandle socket, char *data, std::size_t size)
{
    for (;;) {
        const ssize_t n = ::recv(int(socket), data, size, 0);
        if (n > 0)
            return {SocketStatus::Ok, std::size_t(n), 0};
        if (n == 0)
            return {SocketStatus::Closed, 0, 0};
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return {SocketStatus::WouldBlock, 0, 0};
        return failed(errno);
    }
}

PendingInput pendingInput(SocketHandle socket)
{
    char byte = 0;
    const ssize_t n = ::recv(int(socket), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0)
        return PendingInput::Bytes;
    // 0: the peer's FIN is queued; an error other than "nothing yet": a reset.
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? PendingInput::Nothing : PendingInput::End;
}

void closeSocket(SocketHandle socket)
{
    if (socket >= 0)
        ::close(int(socket));
}

bool socketPair(SocketHandle pair[2])
{
    int fds[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_STREAM | TB_SOCKET_FLAGS, 0, fds) != 0)
        return false;
    if (!prepare(fds[0], false) || !prepare(fds[1], false)) {
        ::close(fds[0]);
        ::close(fds[1]);
        return false;
    }
    pair[0] = fds[0];
    pair[1] = fds[1];
    return true;
}

} // namespace tb
