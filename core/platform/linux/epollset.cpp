#include "platform/linux/epollset.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>

#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

namespace tb {

namespace {

std::uint32_t toEpoll(std::uint32_t events)
{
    return (events & PollEvent::Read ? EPOLLIN : 0u) | (events & PollEvent::Write ? EPOLLOUT : 0u) |
           (events & PollEvent::Priority ? EPOLLPRI : 0u);
}

std::uint32_t fromEpoll(std::uint32_t events)
{
    return (events & EPOLLIN ? PollEvent::Read : 0u) | (events & EPOLLOUT ? PollEvent::Write : 0u) |
           (events & (EPOLLHUP | EPOLLRDHUP) ? PollEvent::Hangup : 0u) | (events & EPOLLERR ? PollEvent::Error : 0u) |
           (events & EPOLLPRI ? PollEvent::Priority : 0u);
}

std::uint64_t tag(int fd, std::uint32_t serial)
{
    return (std::uint64_t(serial) << 32) | std::uint32_t(fd);
}

/// epoll_pwait2 takes the timeout to the nanosecond (a PreciseTimer of 1 ms must not wait 2);
/// a kernel or sandbox without it (ENOSYS) gets epoll_wait's milliseconds, rounded up so that a
/// timer never fires early.
int waitFor(int epoll, epoll_event *events, int size, const ::timespec *timeout)
{
    static std::atomic<bool> noPwait2{false};
    if (!noPwait2.load(std::memory_order_relaxed)) {
        const int n = ::epoll_pwait2(epoll, events, size, timeout, nullptr);
        if (n >= 0 || errno != ENOSYS)
            return n;
        noPwait2.store(true, std::memory_order_relaxed);
    }
    int ms = -1;
    if (timeout) {
        const long long total = (timeout->tv_sec * 1'000'000'000LL + timeout->tv_nsec + 999'999) / 1'000'000;
        ms = total > INT_MAX ? INT_MAX : int(total);
    }
    return ::epoll_wait(epoll, events, size, ms);
}

} // namespace

EpollSet::EpollSet()
    : m_epoll(::epoll_create1(EPOLL_CLOEXEC))
{}

EpollSet::~EpollSet()
{
    if (m_epoll >= 0)
        ::close(m_epoll);
}

bool EpollSet::add(int fd, std::uint32_t events, PollHandler *handler)
{
    const std::uint32_t serial = ++m_nextSerial;
    epoll_event e{};
    e.events = toEpoll(events);
    e.data.u64 = tag(fd, serial);
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &e) != 0)
        return false;
    if (std::size_t(fd) >= m_entries.size())
        m_entries.resize(std::size_t(fd) + 1);
    m_entries[std::size_t(fd)] = Entry{handler, serial};
    ++m_watched;
    return true;
}

void EpollSet::modify(int fd, std::uint32_t events)
{
    const Entry *known = entry(fd);
    if (!known || !known->handler)
        return;
    epoll_event e{};
    e.events = toEpoll(events);
    e.data.u64 = tag(fd, known->serial);
    ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &e);
}

void EpollSet::remove(int fd)
{
    Entry *known = entry(fd);
    if (known && known->handler) {
        known->handler = nullptr;
        --m_watched;
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
    }
}

int EpollSet::wait(const ::timespec *timeout)
{
    std::array<epoll_event, 256> events;
    const int n = waitFor(m_epoll, events.data(), int(events.size()), timeout);
    int handed = 0;
    for (int i = 0; i < n; ++i) {
        const epoll_event &e = events[std::size_t(i)];
        // A handler may have removed itself or another one while handling an earlier event.
        const Entry *known = entry(int(std::uint32_t(e.data.u64)));
        if (!known || !known->handler || known->serial != std::uint32_t(e.data.u64 >> 32))
            continue;
        known->handler->pollReady(fromEpoll(e.events));
        ++handed;
    }
    return handed;
}

} // namespace tb
