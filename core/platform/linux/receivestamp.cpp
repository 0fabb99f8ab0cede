#include "platform/receivestamp.h"

#include <linux/net_tstamp.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace tb {

bool enableReceiveStamps(SocketHandle socket)
{
    const int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    return ::setsockopt(int(socket), SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0;
}

SocketResult receiveStamped(SocketHandle socket, char *data, std::size_t size, std::int64_t *realtimeNs)
{
    // Room for the stamp, with some to spare for another message.
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(::timespec) * 3) + 64];
    *realtimeNs = 0;
    for (;;) {
        iovec io{data, size};
        msghdr message{};
        message.msg_iov = &io;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        const ssize_t n = ::recvmsg(int(socket), &message, 0);
        if (n == 0)
            return {SocketStatus::Closed, 0, 0};
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return {SocketStatus::WouldBlock, 0, 0};
            return {SocketStatus::Failed, 0, errno};
        }
        for (cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING)
                continue;
            ::timespec stamps[3]; // software, (deprecated), hardware
            std::memcpy(stamps, CMSG_DATA(c), sizeof stamps);
            // The kernel leaves it zero when it did not stamp these bytes.
            *realtimeNs = std::int64_t(stamps[0].tv_sec) * 1'000'000'000 + stamps[0].tv_nsec;
            break;
        }
        return {SocketStatus::Ok, std::size_t(n), 0};
    }
}

} // namespace tb
