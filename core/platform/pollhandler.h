#pragma once

#include <cstddef>
#include <cstdint>

namespace tb {

/// Readiness of a socket as every backend reports it (epoll, poll, Qt's socket notifiers).
namespace PollEvent {
enum : std::uint32_t {
    Read = 1,     ///< bytes (or the peer's end) to read; a listener: a connection to accept
    Write = 2,    ///< room to write; after a non-blocking connect: connected or failed
    Hangup = 4,   ///< the peer hung up (reported whether asked or not)
    Error = 8,    ///< the socket failed (reported whether asked or not)
    Priority = 16 ///< urgent data (Qt's Exception notifiers)
};
}

/// Something registered with a PollSet or a SocketPoller.
class PollHandler
{
public:
    virtual ~PollHandler() = default;
    /// `events`: PollEvent bits.
    virtual void pollReady(std::uint32_t events) = 0;
};

/// A socket whose bytes a SocketPoller reads itself (SocketPoller::receive()).
class ReceiveHandler
{
public:
    virtual ~ReceiveHandler() = default;
    /// One read of `size` (> 0) bytes, valid during the call only; `realtimeNs`: when the kernel
    /// stamped them, their arrival on the system clock (as receiveStamped() gives it), else 0.
    virtual void received(const char *data, std::size_t size, std::int64_t realtimeNs) = 0;
    /// The receiving ended: `error` 0 when the peer closed, else the socket's error code. Nothing
    /// more comes.
    virtual void receiveEnded(int error) = 0;
};

} // namespace tb
