#pragma once

#include "platform/pollhandler.h"
#include "platform/socketio.h"

#include <cstdint>
#include <memory>

namespace tb {

/// The loop of a thread that serves sockets itself, without Qt's event loop (the simulator): the
/// sockets it watches, a wake-up any thread may ring, and a deadline on the steady clock.
/// Linux: one epoll descriptor, a timerfd (wakes at the deadline's nanosecond) and an eventfd.
/// Portable: poll() (WSAPoll on Windows) over the registered sockets, whole milliseconds rounded up,
/// and a socket pair for the wake-up — a wake-up costs O(sockets) there.
/// Level-triggered; one thread waits, any thread may wakeUp().
class PollSet
{
public:
    PollSet();
    ~PollSet();
    PollSet(const PollSet &) = delete;
    PollSet &operator=(const PollSet &) = delete;

    /// False when the OS refused what the loop needs (its descriptors); lastSocketError() says why.
    bool isValid() const;
    /// `events`: PollEvent::Read and/or Write. False (lastSocketError() set) when refused.
    bool add(SocketHandle socket, std::uint32_t events, PollHandler *handler);
    void modify(SocketHandle socket, std::uint32_t events);
    void remove(SocketHandle socket);

    /// Waits until a socket is ready, wakeUp() was called, or steady_clock reaches `deadlineNs`
    /// (ns since steady_clock's epoch; < 0: no deadline; already past: no wait), then hands each
    /// ready socket to its handler. Returns true when woken by wakeUp() since the last wait.
    bool waitUntil(std::int64_t deadlineNs);
    /// Makes the wait return soon. Thread-safe and async-signal-safe.
    void wakeUp();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tb
