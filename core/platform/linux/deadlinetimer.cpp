#include "platform/deadlinetimer.h"

#include <QSocketNotifier>
#include <QTimer>

#include <algorithm>
#include <climits>

#include <sys/timerfd.h>
#include <unistd.h>

namespace tb {

/// A timerfd armed at the instant's nanosecond (Qt's timers count whole milliseconds, so each
/// wake-up would leave up to a millisecond late), watched by a socket notifier; without one (no
/// descriptor left), a Qt precise timer.
struct DeadlineTimer::Impl {
    std::function<void()> fired;
    int fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    std::unique_ptr<QSocketNotifier> notifier;
    QTimer fallback;
};

DeadlineTimer::DeadlineTimer(std::function<void()> fired, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Impl>())
{
    d->fired = std::move(fired);
    d->fallback.setSingleShot(true);
    d->fallback.setTimerType(Qt::PreciseTimer);
    connect(&d->fallback, &QTimer::timeout, this, [this] { d->fired(); });
    if (d->fd >= 0) {
        d->notifier = std::make_unique<QSocketNotifier>(d->fd, QSocketNotifier::Read);
        connect(d->notifier.get(), &QSocketNotifier::activated, this, [this] {
            std::uint64_t expirations = 0; // read, or the level-triggered notifier fires again
            [[maybe_unused]] const auto r = ::read(d->fd, &expirations, sizeof expirations);
            d->fired();
        });
    }
}

DeadlineTimer::~DeadlineTimer()
{
    d->notifier.reset();
    if (d->fd >= 0)
        ::close(d->fd);
}

void DeadlineTimer::armAt(std::chrono::steady_clock::time_point due)
{
    if (d->fd < 0) {
        const auto wait = std::chrono::ceil<std::chrono::milliseconds>(due - std::chrono::steady_clock::now());
        d->fallback.start(int(std::clamp<std::int64_t>(wait.count(), 0, INT_MAX)));
        return;
    }
    // steady_clock is CLOCK_MONOTONIC: the instant is the timerfd's absolute time.
    const std::int64_t ns =
        std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(due.time_since_epoch()).count());
    itimerspec spec{};
    spec.it_value.tv_sec = time_t(ns / 1'000'000'000);
    spec.it_value.tv_nsec = long(ns % 1'000'000'000);
    ::timerfd_settime(d->fd, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void DeadlineTimer::disarm()
{
    d->fallback.stop();
    if (d->fd >= 0) {
        const itimerspec disarmed{};
        ::timerfd_settime(d->fd, 0, &disarmed, nullptr);
    }
}

} // namespace tb
