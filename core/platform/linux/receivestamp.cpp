#include "net/receivestamp.h"

#include <linux/net_tstamp.h>

#include <cstring>

namespace tb {

bool enableReceiveStamps(int fd)
{
    const int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    return ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof flags) == 0;
}

bool receiveStamp(const ::msghdr &message, ::timespec *stamp)
{
    for (cmsghdr *c = CMSG_FIRSTHDR(const_cast<msghdr *>(&message)); c;
         c = CMSG_NXTHDR(const_cast<msghdr *>(&message), c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPING)
            continue;
        ::timespec stamps[3]; // software, (deprecated), hardware
        std::memcpy(stamps, CMSG_DATA(c), sizeof stamps);
        if (stamps[0].tv_sec == 0 && stamps[0].tv_nsec == 0)
            return false;
        *stamp = stamps[0];
        return true;
    }
    return false;
}

} // namespace tb
