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
    // A handler may remove its socket from inside its own notifier's signal: delete it later.
    it->second.read.release()->deleteLater();
    it->second.write.release()->deleteLater();
    d->watches.erase(it);
}

} // namespace tb
