#include "engine/epollpoller.h"

#include <QSocketNotifier>

#include <array>

#include <sys/epoll.h>
#include <unistd.h>

namespace tb {

EpollPoller::EpollPoller(QObject *parent)
    : QObject(parent)
    , m_epoll(::epoll_create1(EPOLL_CLOEXEC))
{
    if (m_epoll < 0)
        return;
    m_notifier = new QSocketNotifier(m_epoll, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &EpollPoller::dispatch);
}

EpollPoller::~EpollPoller()
{
    delete m_notifier;
    if (m_epoll >= 0)
        ::close(m_epoll);
}

bool EpollPoller::add(int fd, std::uint32_t events, PollHandler *handler)
{
    epoll_event e{};
    e.events = events;
    e.data.fd = fd;
    if (::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &e) != 0)
        return false;
    m_handlers[fd] = handler;
    return true;
}

void EpollPoller::modify(int fd, std::uint32_t events)
{
    epoll_event e{};
    e.events = events;
    e.data.fd = fd;
    ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &e);
}

void EpollPoller::remove(int fd)
{
    if (m_handlers.erase(fd) > 0)
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, fd, nullptr);
}

void EpollPoller::dispatch()
{
    std::array<epoll_event, 256> events;
    const int n = ::epoll_wait(m_epoll, events.data(), int(events.size()), 0);
    for (int i = 0; i < n; ++i) {
        // A handler may have closed (removed) itself or another one while handling an earlier event.
        const auto it = m_handlers.find(events[std::size_t(i)].data.fd);
        if (it != m_handlers.end())
            it->second->pollReady(events[std::size_t(i)].events);
    }
}

} // namespace tb
