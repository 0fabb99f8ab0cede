#pragma once

#include <QHostAddress>
#include <QString>

#include <cstddef>

namespace tb {

/// A socket as the OS names it: a descriptor on POSIX, a SOCKET on Windows (Qt's own type for both).
using SocketHandle = qintptr;
constexpr SocketHandle kNoSocket = -1;

/// What a socket call did. `error` is the OS's code (errno, WSAGetLastError()) when it Failed.
enum class SocketStatus {
    Ok,         ///< done (`bytes` moved, for a transfer)
    WouldBlock, ///< nothing to take, or no room: wait for readiness
    InProgress, ///< a non-blocking connect is under way: writable means connected or failed
    Closed,     ///< the peer ended the stream (a receive of 0 bytes)
    Failed,
};
struct SocketResult {
    SocketStatus status = SocketStatus::Failed;
    std::size_t bytes = 0;
    int error = 0;
};

/// The OS's words for an error code of a socket call.
QString socketErrorText(int error);
/// The code the last failed socket call left (errno, WSAGetLastError()).
int lastSocketError();
/// The peer is gone (reset, or a write after it closed): its answer may still wait to be read.
bool isConnectionLost(int error);
/// This process or the system has no descriptor left: accepting must pause, not fail.
bool isOutOfDescriptors(int error);

/// A non-blocking TCP socket connecting to `address`:`port`, Nagle off (tokens leave at once) and
/// not inherited by child processes: Ok (connected at once), InProgress, or Failed. *socket is set
/// unless it Failed.
SocketResult connectTcp(const QHostAddress &address, quint16 port, SocketHandle *socket);
/// After InProgress and writable: 0 when connected, else why the connect failed.
int connectError(SocketHandle socket);

/// A non-blocking listening socket (address reuse on; QHostAddress::Any also takes IPv4 on an IPv6
/// socket). *port: the port bound (asked 0: the one the OS picked). kNoSocket and *error on failure.
SocketHandle listenTcp(const QHostAddress &address, quint16 port, int backlog, quint16 *boundPort, QString *error);
/// One queued connection, non-blocking with Nagle off: Ok with *accepted set, WouldBlock, or Failed.
SocketResult acceptTcp(SocketHandle listener, SocketHandle *accepted);
/// Nagle's algorithm back on (the simulator's nagle_writes: a server that never sets TCP_NODELAY).
void enableNagle(SocketHandle socket);

/// Writes what the kernel takes now; never raises SIGPIPE; retries an interrupted call.
SocketResult sendSome(SocketHandle socket, const char *data, std::size_t size);
/// Reads what has arrived, up to `size`; retries an interrupted call.
SocketResult receiveSome(SocketHandle socket, char *data, std::size_t size);
/// What waits unread on a socket, without consuming it.
enum class PendingInput { Nothing, Bytes, End };
PendingInput pendingInput(SocketHandle socket);

void closeSocket(SocketHandle socket);

/// Two connected non-blocking sockets, for waking a thread that waits on sockets (any thread may
/// write a byte to pair[0]; pair[1] turns readable). False when the OS refuses.
bool socketPair(SocketHandle pair[2]);

} // namespace tb
