#pragma once

#include "platform/socketio.h"

#include <cstdint>

namespace tb {

/// Asks the kernel to stamp each receive on `socket` in software, so a reader that got round to a
/// read late still knows when its bytes arrived (Linux: SO_TIMESTAMPING). False when this backend
/// or the kernel cannot: the reader then stamps the time of the read.
bool enableReceiveStamps(SocketHandle socket);

/// receiveSome(), and when the kernel stamped the bytes, their arrival in *realtimeNs on the system
/// clock (std::chrono::system_clock, ns since its epoch); else *realtimeNs = 0. The client and the
/// simulator carry it onto their own steady clocks each their own way.
SocketResult receiveStamped(SocketHandle socket, char *data, std::size_t size, std::int64_t *realtimeNs);

} // namespace tb
