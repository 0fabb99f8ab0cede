#pragma once

#include <QObject>

#include <cstdint>
#include <unordered_map>

class QSocketNotifier;

namespace tb {

/// Something registered with an EpollPoller.
class PollHandler
{
public:
    virtual ~PollHandler() = default;
    /// `events` are EPOLLIN / EPOLLOUT / EPOLLERR / EPOLLHUP bits.
    virtual void pollReady(std::uint32_t events) = 0;
};

/// Watches many sockets for one thread through a single epoll descriptor, itself watched by one
/// QSocketNotifier. Qt's event loop polls every notifier it has on each wake-up (poll() of 500
/// sockets costs tens of µs); with this, the loop polls one descriptor whatever the number of
/// streams, and epoll hands over just the ready ones. Linux only.
class EpollPoller : public QObject
{
public:
    explicit EpollPoller(QObject *parent = nullptr);
    ~EpollPoller() override;

    bool isValid() const { return m_epoll >= 0; }
    /// Level-triggered, like QSocketNotifier. `events`: EPOLLIN and/or EPOLLOUT.
    bool add(int fd, std::uint32_t events, PollHandler *handler);
    void modify(int fd, std::uint32_t events);
    void remove(int fd);

private:
    void dispatch();

    int m_epoll = -1;
    QSocketNotifier *m_notifier = nullptr;
    std::unordered_map<int, PollHandler *> m_handlers;
};

} // namespace tb
