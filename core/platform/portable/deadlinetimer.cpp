#include "platform/deadlinetimer.h"

#include <QTimer>

#include <algorithm>
#include <climits>

namespace tb {

struct DeadlineTimer::Impl {
    std::function<void()> fired;
    QTimer timer;
};

DeadlineTimer::DeadlineTimer(std::function<void()> fired, QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Impl>())
{
    d->fired = std::move(fired);
    d->timer.setSingleShot(true);
    d->timer.setTimerType(Qt::PreciseTimer);
    connect(&d->timer, &QTimer::timeout, this, [this] { d->fired(); });
}

DeadlineTimer::~DeadlineTimer() = default;

void DeadlineTimer::armAt(std::chrono::steady_clock::time_point due)
{
    // Whole milliseconds rounded up: a timer that fires early finds nothing due.
    const auto wait = std::chrono::ceil<std::chrono::milliseconds>(due - std::chrono::steady_clock::now());
    d->timer.start(int(std::clamp<std::int64_t>(wait.count(), 0, INT_MAX)));
}

void DeadlineTimer::disarm()
{
    d->timer.stop();
}

} // namespace tb
