#include "platform/socketpoller.h"

#include <QSocketNotifier>

#include <unordered_map>

namespace tb {

/// A QSocketNotifier per socket and direction, on whatever dispatcher the thread runs: Qt's own
/// polls every notifier on each wake-up, which costs O(sockets) — the portable backend's price.
struct SocketPoller::Impl {
    struct Watch {
        PollHandler *handler = nullptr;
        std::unique_ptr<QSocketNotifier> read;
        std::unique_ptr<QSocketNotifier> write;
        /// Tells a notifier of a socket removed (and its handle reused) by an earlier handler from
        /// the one registered now.
        quint64 serial = 0;
    };
    std::unordered_map<SocketHandle, Watch> watches;
    quint64 nextSerial = 0;
};

SocketPoller::SocketPoller(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Impl>())
{}

SocketPoller::~SocketPoller() = default;

bool SocketPoller::add(SocketHandle socket, std::uint32_t events, PollHandler *handler)
{
    Impl::Watch &watch = d->watches[socket];
    watch.handler = handler;
    watch.serial = ++d->nextSerial;
    const quint64 serial = watch.serial;
    const auto make = [this, socket, serial](QSocketNotifier::Type type, std::uint32_t event) {
        auto notifier = std::make_unique<QSocketNotifier>(socket, type);
        notifier->setEnabled(false);
        connect(notifier.get(), &QSocketNotifier::activated, this, [this, socket, serial, event] {
            const auto it = d->watches.find(socket);
            if (it != d->watches.end() && it->second.serial == serial && it->second.handler)
                it->second.handler->pollReady(event);
        });
        return notifier;
    };
    watch.read = make(QSocketNotifier::Read, PollEvent::Read);
    watch.write = make(QSocketNotifier::Write, PollEvent::Write);
    modify(socket, events);
    return true;
}

void SocketPoller::modify(SocketHandle socket, std::uint32_t events)
{
    const auto it = d->watches.find(socket);
    if (it == d->watches.end())
        return;
    it->second.read->setEnabled(events & PollEvent::Read);
    it->second.write->setEnabled(events & PollEvent::Write);
}

void SocketPoller::remove(SocketHandle socket)
{
    const auto it = d->watches.find(socket);
    if (it == d->watches.end())
        return;
    // Off at once (the socket is closed next, and a notifier on a closed descriptor is polled as
    // invalid); deleted later, as a handler may remove its socket from inside its notifier's signal.
    for (std::unique_ptr<QSocketNotifier> *notifier : {&it->second.read, &it->second.write}) {
        (*notifier)->setEnabled(false);
        notifier->release()->deleteLater();
    }
    d->watches.erase(it);
}

bool SocketPoller::receive(SocketHandle, ReceiveHandler *)
{
    return false; // the owner reads at each readiness notice, stamping the time of the read
}

void SocketPoller::endReceive(SocketHandle)
{}

void SocketPoller::limitReadDelay(std::int64_t)
{} // reads are made at each readiness notice: none is held back

PendingInput SocketPoller::pendingInput(SocketHandle socket) const
{
    return tb::pendingInput(socket);
}

} // namespace tb
