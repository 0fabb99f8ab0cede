#pragma once

#include <QHostAddress>

#include <sys/socket.h>

namespace tb {

/// `address` and `port` as the socket address connect() and bind() take: IPv4, IPv6 (with its
/// scope), or for QHostAddress::Any the IPv6 wildcard (a dual-stack listener). Returns its length;
/// 0 when `address` is not an IP address.
::socklen_t toSocketAddress(const QHostAddress &address, quint16 port, ::sockaddr_storage *storage);

/// The port of an IPv4 or IPv6 socket address (as getsockname() fills it in).
quint16 portOf(const ::sockaddr_storage &storage);

} // namespace tb
