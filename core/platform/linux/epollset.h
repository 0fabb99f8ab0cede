#pragma once

// Private to the platform seam's Linux backend.

#include "platform/pollhandler.h"

#include <cstdint>
#include <vector>

struct timespec;

namespace tb {

/// One epoll descriptor and the handler of each descriptor in it: the one piece of epoll code
/// that EpollEventDispatcher (which blocks in it), SocketPoller (which drains it when Qt's own
/// dispatcher says it is readable) and PollSet (the simulator's loop) use. One thread at a time.
class EpollSet
{
public:
    EpollSet();
    ~EpollSet();
    EpollSet(const EpollSet &) = delete;
    EpollSet &operator=(const EpollSet &) = delete;

    bool isValid() const { return m_epoll >= 0; }
    int fd() const { return m_epoll; }
    /// Level-triggered; `events` and what handlers get are PollEvent bits. False (errno set) when
    /// epoll refuses the descriptor.
    bool add(int fd, std::uint32_t events, PollHandler *handler);
    void modify(int fd, std::uint32_t events);
    void remove(int fd);

    /// Waits until a descriptor is ready or `timeout` passes (null: no limit; zero: no wait), then
    /// hands each ready descriptor to its handler. Returns how many it handed over (0 on EINTR).
    int wait(const ::timespec *timeout);
    /// How many descriptors the set watches.
    int watched() const { return m_watched; }

private:
    struct Entry {
        PollHandler *handler = nullptr; ///< null: not in the set
        /// Tells an event for a descriptor removed (and its number reused) by an earlier handler
        /// of the same wait from one for the descriptor now registered under that number.
        std::uint32_t serial = 0;
    };
    Entry *entry(int fd)
    {
        return fd >= 0 && std::size_t(fd) < m_entries.size() ? &m_entries[std::size_t(fd)] : nullptr;
    }

    int m_epoll = -1;
    int m_watched = 0;
    std::uint32_t m_nextSerial = 0;
    /// Indexed by descriptor (small dense numbers): one lookup per event, no hashing.
    std::vector<Entry> m_entries;
};

} // namespace tb
