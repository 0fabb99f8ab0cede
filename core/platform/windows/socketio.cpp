#include "platform/socketio.h"

#include "platform/socketaddress.h"
#include "platform/windows/systemerror.h"

#include <algorithm>
#include <climits>

#include <winsock2.h> // before any windows.h, and it includes windows.h itself
#include <ws2tcpip.h>

// Winsock differs from BSD sockets where this file does: sockets need WSAStartup first;
// non-blocking is ioctlsocket(FIONBIO), never a flag of the creating call; a non-blocking connect
// says WSAEWOULDBLOCK, not EINPROGRESS; errors come from WSAGetLastError(), not errno; there is no
// SIGPIPE to suppress and no MSG_DONTWAIT (every socket here is non-blocking already); a socket is
// closed with closesocket(); and there are no socket pairs (a loopback TCP pair stands in).

namespace tb {

namespace {

/// 0 once Winsock is started for this process, else why not. A function-local static: started
/// once, on the first socket call from any thread; never cleaned up (the process's end does that,
/// and Qt's own sockets share the same Winsock).
int winsockError()
{
    static const int error = [] {
        WSADATA data{};
        return WSAStartup(MAKEWORD(2, 2), &data);
    }();
    return error;
}

SOCKET native(SocketHandle socket)
{
    return SOCKET(socket);
}

/// A new TCP socket of `family`, not inherited by child processes (WSA_FLAG_NO_HANDLE_INHERIT: a
/// layered service provider may make SetHandleInformation() on a socket ineffective; the flag is
/// the reliable way). WSA_FLAG_OVERLAPPED as socket() sets it.
SOCKET newSocket(int family)
{
    return WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, nullptr, 0, WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
}

/// Non-blocking, not inherited, and with `noDelay` no Nagle: 0, or the error.
int prepare(SOCKET socket, bool noDelay)
{
    u_long on = 1;
    if (ioctlsocket(socket, FIONBIO, &on) != 0)
        return WSAGetLastError();
    // An accepted socket was not made by newSocket(); best effort, as explained there.
    SetHandleInformation(reinterpret_cast<HANDLE>(socket), HANDLE_FLAG_INHERIT, 0);
    if (noDelay) {
        const BOOL one = TRUE;
        setsockopt(socket, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char *>(&one), sizeof one);
    }
    return 0;
}

SocketResult failed(int error)
{
    return {SocketStatus::Failed, 0, error};
}

/// A transfer's length as Winsock takes it (an int).
int clamp(std::size_t size)
{
    return int(std::min<std::size_t>(size, INT_MAX));
}

} // namespace

QString socketErrorText(int error)
{
    return systemErrorText(DWORD(error));
}

int lastSocketError()
{
    return WSAGetLastError();
}

bool isConnectionLost(int error)
{
    // WSAECONNABORTED: Windows' own end gave up on the connection (a retransmission timeout, or a
    // send after the peer's reset), where POSIX says EPIPE.
    return error == WSAECONNRESET || error == WSAECONNABORTED;
}

bool isOutOfDescriptors(int error)
{
    return error == WSAEMFILE || error == WSAENOBUFS;
}

SocketResult connectTcp(const QHostAddress &address, quint16 port, SocketHandle *socket)
{
    if (const int error = winsockError())
        return failed(error);
    sockaddr_storage storage{};
    const socklen_t length = toSocketAddress(address, port, &storage);
    if (length == 0)
        return failed(WSAEAFNOSUPPORT);
    const SOCKET s = newSocket(storage.ss_family);
    if (s == INVALID_SOCKET)
        return failed(WSAGetLastError());
    if (const int error = prepare(s, true)) {
        closesocket(s);
        return failed(error);
    }
    *socket = SocketHandle(s);
    if (::connect(s, reinterpret_cast<const sockaddr *>(&storage), length) == 0)
        return {SocketStatus::Ok, 0, 0};
    const int error = WSAGetLastError();
    if (error == WSAEWOULDBLOCK || error == WSAEINPROGRESS)
        return {SocketStatus::InProgress, 0, 0};
    closesocket(s);
    *socket = kNoSocket;
    return failed(error);
}

int connectError(SocketHandle socket)
{
    int error = 0;
    int size = sizeof error;
    if (getsockopt(native(socket), SOL_SOCKET, SO_ERROR, reinterpret_cast<char *>(&error), &size) != 0)
        return WSAGetLastError();
    return error;
}

SocketHandle listenTcp(const QHostAddress &address, quint16 port, int backlog, quint16 *boundPort, QString *error)
{
    const auto fail = [error](SOCKET s, const QString &what) {
        if (error)
            *error = what;
        if (s != INVALID_SOCKET)
            closesocket(s);
        return kNoSocket;
    };
    if (const int code = winsockError())
        return fail(INVALID_SOCKET, QStringLiteral("cannot start Winsock: %1").arg(socketErrorText(code)));
    sockaddr_storage storage{};
    socklen_t length = toSocketAddress(address, port, &storage);
    if (length == 0)
        return fail(INVALID_SOCKET, QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    const SOCKET s = newSocket(storage.ss_family);
    if (s == INVALID_SOCKET)
        return fail(s, QStringLiteral("cannot create a socket: %1").arg(socketErrorText(WSAGetLastError())));
    if (const int code = prepare(s, false))
        return fail(s, QStringLiteral("cannot create a socket: %1").arg(socketErrorText(code)));
    // No SO_REUSEADDR: what it gives on POSIX (binding again while the last run's connections are
    // in TIME_WAIT) is Windows' default, and on Windows it would let another socket take the port
    // from this one.
    const bool any = address == QHostAddress(QHostAddress::Any) || address == QHostAddress(QHostAddress::AnyIPv6);
    if (storage.ss_family == AF_INET6 && any) {
        const DWORD zero = 0; // Any: IPv4 too (Windows' default is IPv6 only)
        setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, reinterpret_cast<const char *>(&zero), sizeof zero);
    }
    if (::bind(s, reinterpret_cast<const sockaddr *>(&storage), length) != 0)
        return fail(s, QStringLiteral("cannot listen on %1 port %2: %3")
                           .arg(address.toString())
                           .arg(port)
                           .arg(socketErrorText(WSAGetLastError())));
    if (::listen(s, backlog) != 0)
        return fail(s, QStringLiteral("cannot listen: %1").arg(socketErrorText(WSAGetLastError())));
    ::getsockname(s, reinterpret_cast<sockaddr *>(&storage), &length);
    if (boundPort)
        *boundPort = portOf(storage);
    return SocketHandle(s);
}

SocketResult acceptTcp(SocketHandle listener, SocketHandle *accepted)
{
    for (;;) {
        const SOCKET s = ::accept(native(listener), nullptr, nullptr);
        if (s != INVALID_SOCKET) {
            if (const int error = prepare(s, true)) {
                closesocket(s);
                return failed(error);
            }
            *accepted = SocketHandle(s);
            return {SocketStatus::Ok, 0, 0};
        }
        const int error = WSAGetLastError();
        // WSAECONNRESET: a connection queued, then reset by its peer before it was accepted (POSIX:
        // ECONNABORTED); the next one may be fine.
        if (error == WSAEINTR || error == WSAECONNRESET)
            continue;
        if (error == WSAEWOULDBLOCK)
            return {SocketStatus::WouldBlock, 0, 0};
        return failed(error);
    }
}

void enableNagle(SocketHandle socket)
{
    const BOOL off = FALSE;
    setsockopt(SOCKET(socket), IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char *>(&off), sizeof off);
}

SocketResult sendSome(SocketHandle socket, const char *data, std::size_t size)
{
    for (;;) {
        const int n = ::send(native(socket), data, clamp(size), 0);
        if (n != SOCKET_ERROR)
            return {SocketStatus::Ok, std::size_t(n), 0};
        const int error = WSAGetLastError();
        if (error == WSAEINTR)
            continue;
        if (error == WSAEWOULDBLOCK)
            return {SocketStatus::WouldBlock, 0, 0};
        return failed(error);
    }
}

SocketResult receiveSome(SocketHandle socket, char *data, std::size_t size)
{
    for (;;) {
        const int n = ::recv(native(socket), data, clamp(size), 0);
        if (n > 0)
            return {SocketStatus::Ok, std::size_t(n), 0};
        if (n == 0)
            return {SocketStatus::Closed, 0, 0};
        const int error = WSAGetLastError();
        if (error == WSAEINTR)
            continue;
        if (error == WSAEWOULDBLOCK)
            return {SocketStatus::WouldBlock, 0, 0};
        return failed(error);
    }
}

PendingInput pendingInput(SocketHandle socket)
{
    // The socket is non-blocking (every socket here is): the peek never waits.
    char byte = 0;
    const int n = ::recv(native(socket), &byte, 1, MSG_PEEK);
    if (n > 0)
        return PendingInput::Bytes;
    // 0: the peer's FIN is queued; an error other than "nothing yet": a reset.
    return n == SOCKET_ERROR && WSAGetLastError() == WSAEWOULDBLOCK ? PendingInput::Nothing : PendingInput::End;
}

void closeSocket(SocketHandle socket)
{
    if (socket != kNoSocket)
        closesocket(native(socket));
}

bool socketPair(SocketHandle pair[2])
{
    // Listen on a loopback port the system picks, connect to it, accept: the accepted socket and
    // the connecting one are the pair. The listener lives only while the pair is made; another
    // local program that connected to it in that time is told apart by its port and refused.
    quint16 port = 0;
    const SocketHandle listener = listenTcp(QHostAddress(QHostAddress::LocalHost), 0, 1, &port, nullptr);
    if (listener == kNoSocket)
        return false;
    SocketHandle connecting = kNoSocket;
    SocketHandle accepted = kNoSocket;
    const auto done = [&](bool ok) {
        closeSocket(listener);
        if (!ok) {
            closeSocket(connecting);
            closeSocket(accepted);
        }
        return ok;
    };
    if (connectTcp(QHostAddress(QHostAddress::LocalHost), port, &connecting).status == SocketStatus::Failed)
        return done(false);
    // The handshake completes in the kernel; wait for it (a loopback connect takes microseconds,
    // 5 s is for a machine under load).
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(native(listener), &readable);
    timeval timeout{5, 0};
    if (select(0, &readable, nullptr, nullptr, &timeout) != 1 ||
        acceptTcp(listener, &accepted).status != SocketStatus::Ok)
        return done(false);
    // The accepted socket's peer must be our connecting socket, not another local program's.
    sockaddr_storage mine{};
    sockaddr_storage peer{};
    int mineLength = sizeof mine;
    int peerLength = sizeof peer;
    if (getsockname(native(connecting), reinterpret_cast<sockaddr *>(&mine), &mineLength) != 0 ||
        getpeername(native(accepted), reinterpret_cast<sockaddr *>(&peer), &peerLength) != 0 ||
        portOf(mine) != portOf(peer))
        return done(false);
    pair[0] = connecting;
    pair[1] = accepted;
    return done(true);
}

} // namespace tb
