#include "platform/socketpoller.h"

#include "platform/linux/epolleventdispatcher.h"
#include "platform/linux/epollset.h"
#include "platform/linux/uringreceiver.h"

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
    /// Takes the thread's dispatcher, or makes the poller's own set, on the first use.
    void choose(SocketPoller *poller);
    /// Null when this thread's dispatcher has gone (the thread ended before a stream closed).
    EpollSet *set()
    {
        if (own)
            return own.get();
        return dispatcher ? &dispatcher->epollSet() : nullptr;
    }

    QPointer<EpollEventDispatcher> dispatcher;
    std::unique_ptr<EpollSet> own;       ///< only off an EpollEventDispatcher thread
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

void SocketPoller::Impl::choose(SocketPoller *poller)
{
    if (own || dispatcher)
        return;
    dispatcher = qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance());
    if (dispatcher)
        return;
    own = std::make_unique<EpollSet>();
    if (!own->isValid())
        return;
    notifier = new QSocketNotifier(own->fd(), QSocketNotifier::Read, poller);
    QObject::connect(notifier, &QSocketNotifier::activated, poller, [this] {
        const ::timespec now{};
        own->wait(&now);
    });
}

bool SocketPoller::add(SocketHandle socket, std::uint32_t events, PollHandler *handler)
{
    d->choose(this);
    if (d->own && !d->own->isValid())
        return false;
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

bool SocketPoller::receive(SocketHandle socket, ReceiveHandler *handler)
{
    d->choose(this);
    UringReceiver *uring = d->dispatcher ? d->dispatcher->uringReceiver() : nullptr;
    return uring && uring->receive(int(socket), handler);
}

void SocketPoller::endReceive(SocketHandle socket)
{
    if (UringReceiver *uring = d->dispatcher ? d->dispatcher->uringReceiver() : nullptr)
        uring->endReceive(int(socket));
}

void SocketPoller::limitReadDelay(std::int64_t ns)
{
    d->choose(this);
    if (UringReceiver *uring = d->dispatcher ? d->dispatcher->uringReceiver() : nullptr)
        uring->limitGather(ns);
}

PendingInput SocketPoller::pendingInput(SocketHandle socket) const
{
    if (const UringReceiver *uring = d->dispatcher ? d->dispatcher->uringReceiver() : nullptr)
        if (const PendingInput queued = uring->queuedInput(int(socket)); queued != PendingInput::Nothing)
            return queued;
    return tb::pendingInput(socket);
}

} // namespace tb
