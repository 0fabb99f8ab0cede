#include "platform/socketpoller.h"

#include "platform/linux/epolleventdispatcher.h"
#include "platform/linux/epollset.h"

#include <QAbstractEventDispatcher>
#include <QPointer>
#include <QSocketNotifier>

#include <cerrno>
#include <ctime>

namespace tb {

/// On a thread run by an EpollEventDispatcher the set is the dispatcher's own: the thread's one
/// blocking epoll wait hands the ready sockets straight to their handlers. Elsewhere (Qt's
/// dispatcher, which polls every notifier it has on each wake-up — poll() of 500 sockets costs
/// tens of µs) it is an epoll descriptor of its own, watched by one QSocketNotifier, so that loop
/// polls one descriptor whatever the number of streams. Chosen on the first add(), on the thread
/// that uses it.
struct SocketPoller::Impl {
    /// Null when this thread's dispatcher has gone (the thread ended before a stream closed).
    EpollSet *set()
    {
        if (own)
            return own.get();
        return dispatcher ? &dispatcher->epollSet() : nullptr;
    }

    QPointer<EpollEventDispatcher> dispatcher;
    std::unique_ptr<EpollSet> own; ///< only off an EpollEventDispatcher thread
    QSocketNotifier *notifier = nullptr; ///< a child of the poller, on `own`
};

SocketPoller::SocketPoller(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Impl>())
{}

SocketPoller::~SocketPoller()
{
    delete d->notifier; // before `own` closes the descriptor it watches
}

bool SocketPoller::add(SocketHandle socket, std::uint32_t events, PollHandler *handler)
{
    if (!d->own && !d->dispatcher) {
        d->dispatcher = qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance());
        if (!d->dispatcher) {
            d->own = std::make_unique<EpollSet>();
            if (!d->own->isValid())
                return false;
            d->notifier = new QSocketNotifier(d->own->fd(), QSocketNotifier::Read, this);
            connect(d->notifier, &QSocketNotifier::activated, this, [this] {
                const ::timespec now{};
                d->own->wait(&now);
            });
        }
    }
    EpollSet *s = d->set();
    if (!s) {
        errno = ESHUTDOWN;
        return false;
    }
    return s->add(int(socket), events, handler);
}

void SocketPoller::modify(SocketHandle socket, std::uint32_t events)
{
    if (EpollSet *s = d->set())
        s->modify(int(socket), events);
}

void SocketPoller::remove(SocketHandle socket)
{
    if (EpollSet *s = d->set())
        s->remove(int(socket));
}

} // namespace tb
