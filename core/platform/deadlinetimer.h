#pragma once

#include <QObject>

#include <chrono>
#include <functional>
#include <memory>

namespace tb {

/// A one-shot wake-up of this thread at a steady_clock instant. Linux: a timerfd, to the
/// nanosecond. Portable: a Qt precise timer, whole milliseconds rounded up, so it never fires early
/// and may fire up to a millisecond late. The callback runs on the timer's thread.
class DeadlineTimer : public QObject
{
public:
    explicit DeadlineTimer(std::function<void()> fired, QObject *parent = nullptr);
    ~DeadlineTimer() override;

    /// Replaces any earlier arming.
    void armAt(std::chrono::steady_clock::time_point due);
    void disarm();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tb
