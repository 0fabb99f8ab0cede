#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <ctime>

namespace tb {

/// Asks the kernel to stamp each receive on `fd` in software (SO_TIMESTAMPING), so a reader that
/// got round to a read late still knows when its bytes arrived. False when the kernel refuses.
bool enableReceiveStamps(int fd);

/// Room a recvmsg control buffer needs for the stamp, with some to spare for another message.
constexpr std::size_t kReceiveStampControlBytes = CMSG_SPACE(sizeof(::timespec) * 3) + 64;

/// The kernel's software receive stamp of a recvmsg's bytes, on CLOCK_REALTIME; false when the
/// message carries none (stamps off, or the kernel left it zero). The client and the simulator
/// carry it onto their own steady clocks each their own way.
bool receiveStamp(const ::msghdr &message, ::timespec *stamp);

} // namespace tb
