#include "platform/pollset.h"

#include "platform/linux/epollset.h"

#include <atomic>
#include <cerrno>

#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

namespace tb {

/// The timerfd wakes the loop at the deadline's exact nanosecond (an epoll timeout gets the
/// kernel's slack, a thousandth of the wait); the eventfd is the wake-up.
struct PollSet::Impl final : PollHandler {
    EpollSet set;
    int timerFd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    int wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    std::int64_t armedNs = -1;
    bool woken = false;

    struct TimerHandler final : PollHandler {
        Impl *impl;
        explicit TimerHandler(Impl *i)
            : impl(i)
        {}
        void pollReady(std::uint32_t) override
        {
            std::uint64_t expirations = 0;
            [[maybe_unused]] const auto r = ::read(impl->timerFd, &expirations, sizeof expirations);
            impl->armedNs = -1;
        }
    } timerHandler{this};

    // The wake-up.
    void pollReady(std::uint32_t) override
    {
        std::uint64_t count = 0;
        [[maybe_unused]] const auto r = ::read(wakeFd, &count, sizeof count);
        woken = true;
    }

    void arm(std::int64_t deadlineNs)
    {
        if (deadlineNs == armedNs)
            return;
        armedNs = deadlineNs;
        itimerspec spec{};
        spec.it_value.tv_sec = time_t(deadlineNs / 1'000'000'000);
        spec.it_value.tv_nsec = long(deadlineNs % 1'000'000'000);
        ::timerfd_settime(timerFd, TFD_TIMER_ABSTIME, &spec, nullptr);
    }
};

PollSet::PollSet()
    : d(std::make_unique<Impl>())
{
    if (d->set.isValid() && d->timerFd >= 0 && d->wakeFd >= 0) {
        d->set.add(d->wakeFd, PollEvent::Read, d.get());
        d->set.add(d->timerFd, PollEvent::Read, &d->timerHandler);
    }
}

PollSet::~PollSet()
{
    for (int fd : {d->timerFd, d->wakeFd})
        if (fd >= 0)
            ::close(fd);
}

bool PollSet::isValid() const
{
    return d->set.isValid() && d->timerFd >= 0 && d->wakeFd >= 0;
}

bool PollSet::add(SocketHandle socket, std::uint32_t events, PollHandler *handler)
{
    return d->set.add(int(socket), events, handler);
}

void PollSet::modify(SocketHandle socket, std::uint32_t events)
{
    d->set.modify(int(socket), events);
}

void PollSet::remove(SocketHandle socket)
{
    d->set.remove(int(socket));
}

bool PollSet::waitUntil(std::int64_t deadlineNs)
{
    // steady_clock is CLOCK_MONOTONIC: the deadline is the timerfd's absolute time.
    const ::timespec noWait{};
    const ::timespec *timeout = nullptr;
    if (deadlineNs >= 0) {
        ::timespec now{};
        ::clock_gettime(CLOCK_MONOTONIC, &now);
        if (deadlineNs <= std::int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec)
            timeout = &noWait;
        else
            d->arm(deadlineNs);
    }
    d->woken = false;
    d->set.wait(timeout);
    return d->woken;
}

void PollSet::wakeUp()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto r = ::write(d->wakeFd, &one, sizeof one);
}

} // namespace tb
