#include "platform/receivestamp.h"

namespace tb {

// The portable backend has no kernel receive stamps: a read is stamped when it is made.

bool enableReceiveStamps(SocketHandle)
{
    return false;
}

SocketResult receiveStamped(SocketHandle socket, char *data, std::size_t size, std::int64_t *realtimeNs)
{
    *realtimeNs = 0;
    return receiveSome(socket, data, size);
}

} // namespace tb
