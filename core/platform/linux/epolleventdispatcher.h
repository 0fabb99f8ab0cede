#pragma once

#include <pthread.h>

#include "platform/linux/epollset.h"
#include "platform/linux/uringreceiver.h"

#include <QAbstractEventDispatcher>

#include <atomic>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tb {

/// The event dispatcher of the transport threads on Linux (newTransportDispatcher()): one epoll
/// descriptor holds Qt's socket notifiers, the SocketPoller sockets of the thread and an eventfd for wake-ups, and each
/// pass of the event loop is one blocking epoll_pwait2 whose timeout is the next timer's (to the nanosecond). Qt's
/// default dispatcher (glib) makes every wake-up a prepare/poll/check/dispatch round whose poll() then leads to a
/// QSocketNotifier and a second, non-blocking epoll_wait; here the ready sockets' handlers run straight from the one
/// wait. Public Qt API only. Install it with QThread::setEventDispatcher before the thread starts.
///
/// Where the kernel offers it (UringReceiver::available()), the one wait is an io_uring enter
/// instead: the epoll descriptor is one of the ring's watches, and the stream sockets that
/// SocketPoller::receive() hands it are read by the kernel inside that same enter.
///
/// Timers are kept to the nanosecond whatever their type (coarse ones are treated as precise)
/// and each due timer fires at most once per pass, so a 0 ms timer cannot starve the sockets.
class EpollEventDispatcher : public QAbstractEventDispatcher, private PollHandler
{
    Q_OBJECT
public:
    explicit EpollEventDispatcher(QObject *parent = nullptr);
    ~EpollEventDispatcher() override;

    /// The thread's epoll set, for SocketPoller: a descriptor added here is handled by this
    /// dispatcher's wait. Use it on the dispatcher's thread only.
    EpollSet &epollSet() { return m_set; }
    /// The thread's io_uring receiver, made on the first call from the dispatcher's thread; null
    /// when this process uses epoll alone, or when asked from another thread.
    UringReceiver *uringReceiver();

    bool processEvents(QEventLoop::ProcessEventsFlags flags) override;

    void registerSocketNotifier(QSocketNotifier *notifier) override;
    void unregisterSocketNotifier(QSocketNotifier *notifier) override;

    void registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object) override;
    bool unregisterTimer(int timerId) override;
    bool unregisterTimers(QObject *object) override;
    QList<TimerInfo> registeredTimers(QObject *object) const override;
    int remainingTime(int timerId) override;

    void wakeUp() override;
    void interrupt() override;

private:
    /// The enabled notifiers of one descriptor (Read, Write, Exception), registered in the set as
    /// one entry because epoll takes a descriptor once.
    class NotifierGroup;
    struct Timer {
        int id;
        qint64 intervalMs;
        Qt::TimerType type;
        QObject *object;
        std::int64_t dueNs;   ///< CLOCK_MONOTONIC
        std::uint64_t serial; ///< a timer id can be freed and reused within one pass
        bool firing;          ///< its handler runs (a nested event loop must not fire it again)
    };

    /// The wake-up eventfd is ready: reset it.
    void pollReady(std::uint32_t events) override;

    void activateNotifiers(int fd, std::uint32_t events);
    void updateNotifierEvents(int fd);
    int activateTimers();
    /// Nanoseconds until the first timer is due (0 if one is); -1 when there is none.
    std::int64_t nextTimerWaitNs() const;
    std::vector<Timer>::iterator findTimer(std::uint64_t serial);
    /// Waits on the wake-up descriptor alone (ExcludeSocketNotifiers); true when it was signalled.
    bool waitForWakeUp(const ::timespec *timeout);

    /// One pass: the epoll set's wait, or the ring's when there is one.
    int waitForSockets(const ::timespec *timeout);

    EpollSet m_set;
    std::unique_ptr<UringReceiver> m_uring;
    bool m_uringTried = false;
    /// The ring's poll reports the epoll descriptor turning readable, not its staying so: after a
    /// pass that handed epoll events over, the next pass asks epoll again (level-triggered, as the
    /// epoll-only path is) before it blocks.
    bool m_epollMayBeReady = false;
    int m_wakeFd = -1;
    /// Set by the first wakeUp() after a drain, so that posting many events writes the eventfd once.
    std::atomic<bool> m_wakePending{false};
    /// The thread is in (or about to enter) a ring wait that gathers completions, which the
    /// eventfd does not end: wakeUp() sends the thread kWakeSignal, which does (EINTR). Without
    /// it an event posted from another thread — the next open-loop request, above all — waited
    /// up to the whole gathering time (arrival error p50 0.13 ms against epoll's 0.04).
    std::atomic<bool> m_gathering{false};
    ::pthread_t m_thread{}; ///< the dispatcher's thread, known once it has made its ring
    std::atomic<bool> m_interrupted{false};
    std::unordered_map<int, std::unique_ptr<NotifierGroup>> m_notifiers;
    std::vector<Timer> m_timers;
    std::uint64_t m_nextTimerSerial = 0;
};

} // namespace tb
