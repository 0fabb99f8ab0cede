#include "platform/pollset.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <unordered_map>
#include <vector>

#ifdef _WIN32
#include <winsock2.h>
#define TB_POLL ::WSAPoll
using PollEntry = WSAPOLLFD;
using PollCount = ULONG;
#else
#include <poll.h>
#define TB_POLL ::poll
using PollEntry = pollfd;
using PollCount = nfds_t;
#endif

namespace tb {

/// poll() over every registered socket on each wait (WSAPoll on Windows) and a socket pair to wake
/// it; the deadline in whole milliseconds, rounded up so the loop never wakes early.
struct PollSet::Impl {
    struct Entry {
        SocketHandle socket;
        std::uint32_t events;
        PollHandler *handler; ///< null: removed, dropped at the next wait
    };
    std::vector<Entry> entries;
    /// Socket -> its entry: one lookup per ready socket (a search of the list would make a wait
    /// with many ready connections cost their square).
    std::unordered_map<SocketHandle, std::size_t> index;
    std::vector<PollEntry> polled;
    SocketHandle wake[2] = {kNoSocket, kNoSocket};
    bool valid = false;

    Entry *find(SocketHandle socket)
    {
        const auto it = index.find(socket);
        return it == index.end() ? nullptr : &entries[it->second];
    }
    /// Drops the removed entries; a wait may be handing out events when a handler removes one.
    void compact()
    {
        if (std::none_of(entries.begin(), entries.end(), [](const Entry &e) { return !e.handler; }))
            return;
        std::erase_if(entries, [](const Entry &e) { return !e.handler; });
        index.clear();
        for (std::size_t i = 0; i < entries.size(); ++i)
            index.emplace(entries[i].socket, i);
    }
};

PollSet::PollSet()
    : d(std::make_unique<Impl>())
{
    d->valid = socketPair(d->wake);
}

PollSet::~PollSet()
{
    closeSocket(d->wake[0]);
    closeSocket(d->wake[1]);
}

bool PollSet::isValid() const
{
    return d->valid;
}

bool PollSet::add(SocketHandle socket, std::uint32_t events, PollHandler *handler)
{
    if (Impl::Entry *known = d->find(socket)) {
        *known = {socket, events, handler};
        return true;
    }
    d->index.emplace(socket, d->entries.size());
    d->entries.push_back({socket, events, handler});
    return true;
}

void PollSet::modify(SocketHandle socket, std::uint32_t events)
{
    if (Impl::Entry *known = d->find(socket))
        known->events = events;
}

void PollSet::remove(SocketHandle socket)
{
    if (Impl::Entry *known = d->find(socket))
        known->handler = nullptr;
}

bool PollSet::waitUntil(std::int64_t deadlineNs)
{
    d->compact();
    d->polled.clear();
    d->polled.push_back(PollEntry{decltype(PollEntry::fd)(d->wake[1]), POLLIN, 0});
    for (const Impl::Entry &e : d->entries) {
        const short wanted =
            short((e.events & PollEvent::Read ? POLLIN : 0) | (e.events & PollEvent::Write ? POLLOUT : 0));
        d->polled.push_back(PollEntry{decltype(PollEntry::fd)(e.socket), wanted, 0});
    }
    int timeoutMs = -1;
    if (deadlineNs >= 0) {
        const std::int64_t now =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count();
        const std::int64_t waitNs = std::max<std::int64_t>(0, deadlineNs - now);
        timeoutMs = int(std::min<std::int64_t>(INT_MAX, (waitNs + 999'999) / 1'000'000));
    }
    const int n = TB_POLL(d->polled.data(), PollCount(d->polled.size()), timeoutMs);
    if (n <= 0)
        return false;
    bool woken = false;
    if (d->polled[0].revents) {
        char bytes[64];
        while (receiveSome(d->wake[1], bytes, sizeof bytes).status == SocketStatus::Ok) {
        }
        woken = true;
    }
    // Entries added by a handler below come after the polled ones and wait for the next round.
    const std::size_t count = d->polled.size() - 1;
    for (std::size_t i = 0; i < count; ++i) {
        const short revents = d->polled[i + 1].revents;
        if (!revents)
            continue;
        const SocketHandle socket = SocketHandle(d->polled[i + 1].fd);
        const Impl::Entry *known = d->find(socket); // a handler may have removed it, or another one
        if (!known || !known->handler)
            continue;
        const std::uint32_t events =
            (revents & POLLIN ? PollEvent::Read : 0u) | (revents & POLLOUT ? PollEvent::Write : 0u) |
            (revents & POLLHUP ? PollEvent::Hangup : 0u) | (revents & (POLLERR | POLLNVAL) ? PollEvent::Error : 0u);
        known->handler->pollReady(events);
    }
    return woken;
}

void PollSet::wakeUp()
{
    const char byte = 1;
    sendSome(d->wake[0], &byte, 1);
}

} // namespace tb
