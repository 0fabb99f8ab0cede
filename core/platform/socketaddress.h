#pragma once

// Private to the platform seam's socket layers (posix/, windows/).

#include <QHostAddress>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#else
#include <sys/socket.h>
#endif

namespace tb {

/// `address` and `port` as the socket address connect() and bind() take: IPv4, IPv6 (with its
/// scope), or for QHostAddress::Any the IPv6 wildcard (a dual-stack listener). Returns its length;
/// 0 when `address` is not an IP address.
socklen_t toSocketAddress(const QHostAddress &address, quint16 port, sockaddr_storage *storage);

/// The port of an IPv4 or IPv6 socket address (as getsockname() fills it in).
quint16 portOf(const sockaddr_storage &storage);

} // namespace tb
