#include "platform/socketaddress.h"

#ifndef _WIN32
#include <netinet/in.h>
#endif

#include <cstring>

namespace tb {

socklen_t toSocketAddress(const QHostAddress &address, quint16 port, sockaddr_storage *storage)
{
    *storage = {};
    if (address.protocol() == QAbstractSocket::IPv4Protocol) {
        auto *in4 = reinterpret_cast<sockaddr_in *>(storage);
        in4->sin_family = AF_INET;
        in4->sin_port = htons(port);
        in4->sin_addr.s_addr = htonl(address.toIPv4Address());
        return sizeof(sockaddr_in);
    }
    const bool any = address == QHostAddress(QHostAddress::Any);
    if (address.protocol() != QAbstractSocket::IPv6Protocol && !any)
        return 0;
    auto *in6 = reinterpret_cast<sockaddr_in6 *>(storage);
    in6->sin6_family = AF_INET6;
    in6->sin6_port = htons(port);
    const Q_IPV6ADDR bytes = any ? Q_IPV6ADDR{} : address.toIPv6Address();
    std::memcpy(&in6->sin6_addr, &bytes, sizeof bytes);
    in6->sin6_scope_id = address.scopeId().toUInt();
    return sizeof(sockaddr_in6);
}

quint16 portOf(const sockaddr_storage &storage)
{
    return ntohs(storage.ss_family == AF_INET6 ? reinterpret_cast<const sockaddr_in6 *>(&storage)->sin6_port
                                               : reinterpret_cast<const sockaddr_in *>(&storage)->sin_port);
}

} // namespace tb
