#pragma once

#include "net/epollset.h"

#include <QObject>
#include <QPointer>

#include <memory>

class QSocketNotifier;

namespace tb {

class EpollEventDispatcher;

/// Watches many sockets for one thread through a single epoll descriptor. On a thread run by an
/// EpollEventDispatcher that is the dispatcher's own: the thread's one blocking epoll wait hands
/// the ready sockets straight to their handlers. Elsewhere (Qt's dispatcher, which polls every
/// notifier it has on each wake-up — poll() of 500 sockets costs tens of µs) it is an epoll
/// descriptor of its own, watched by one QSocketNotifier, so that loop polls one descriptor
/// whatever the number of streams. Chosen on the first add(), on the thread that uses it.
class EpollPoller : public QObject
{
public:
    explicit EpollPoller(QObject *parent = nullptr);
    ~EpollPoller() override;

    /// Level-triggered, like QSocketNotifier. `events`: EPOLLIN and/or EPOLLOUT.
    bool add(int fd, std::uint32_t events, PollHandler *handler);
    void modify(int fd, std::uint32_t events);
    void remove(int fd);

private:
    /// Null when this thread's dispatcher has gone (the thread ended before a stream closed).
    EpollSet *set();

    QPointer<EpollEventDispatcher> m_dispatcher;
    std::unique_ptr<EpollSet> m_own; ///< only off an EpollEventDispatcher thread
    QSocketNotifier *m_notifier = nullptr;
};

} // namespace tb
