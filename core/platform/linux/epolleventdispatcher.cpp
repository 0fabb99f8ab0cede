#include "platform/linux/epolleventdispatcher.h"

#include <QCoreApplication>
#include <QSocketNotifier>
#include <QThread>
#include <QTimerEvent>

#include <algorithm>
#include <array>
#include <cerrno>
#include <ctime>

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace tb {

namespace {

std::int64_t monotonicNs()
{
    ::timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// What wakes each kind of notifier, as Qt's own dispatcher has it: a hung-up or failed socket
/// wakes readers and writers alike, so that they learn of it.
constexpr std::array<std::uint32_t, 3> kNotifierEvents{
    PollEvent::Read | PollEvent::Hangup | PollEvent::Error,  // QSocketNotifier::Read
    PollEvent::Write | PollEvent::Hangup | PollEvent::Error, // QSocketNotifier::Write
    PollEvent::Priority,                                     // QSocketNotifier::Exception
};
constexpr std::array<std::uint32_t, 3> kNotifierInterest{PollEvent::Read, PollEvent::Write, PollEvent::Priority};

/// Ends a thread's gathering ring wait. SIGURG: ignored by default (nothing is lost if it ever came
/// before the handler), and raised by the kernel only for a socket's urgent data when a process
/// asked to own the socket (F_SETOWN), which nothing here does.
constexpr int kWakeSignal = SIGURG;

void installWakeSignalHandler()
{
    static const bool installed = [] {
        struct sigaction action {
        };
        action.sa_handler = [](int) {}; // its arrival is the point: the wait returns EINTR
        ::sigemptyset(&action.sa_mask);
        // Other system calls the signal meets start again; io_uring_enter's wait returns EINTR
        // whatever this says.
        action.sa_flags = SA_RESTART;
        return ::sigaction(kWakeSignal, &action, nullptr) == 0;
    }();
    (void)installed;
}

} // namespace

class EpollEventDispatcher::NotifierGroup final : public PollHandler
{
public:
    NotifierGroup(EpollEventDispatcher *dispatcher, int fd)
        : m_dispatcher(dispatcher)
        , m_fd(fd)
    {}
    // The handlers may unregister (delete) this group: the dispatcher looks it up again each time.
    void pollReady(std::uint32_t events) override { m_dispatcher->activateNotifiers(m_fd, events); }

    std::array<QSocketNotifier *, 3> notifiers{};
    bool inSet = false;

private:
    EpollEventDispatcher *m_dispatcher;
    int m_fd;
};

EpollEventDispatcher::EpollEventDispatcher(QObject *parent)
    : QAbstractEventDispatcher(parent)
    , m_wakeFd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC))
{
    if (!m_set.isValid() || m_wakeFd < 0 || !m_set.add(m_wakeFd, PollEvent::Read, this))
        qFatal("EpollEventDispatcher: cannot create its epoll or eventfd descriptor (errno %d)", errno);
}

EpollEventDispatcher::~EpollEventDispatcher()
{
    m_uring.reset(); // its poll watches the epoll descriptor
    m_set.remove(m_wakeFd);
    ::close(m_wakeFd);
}

bool EpollEventDispatcher::processEvents(QEventLoop::ProcessEventsFlags flags)
{
    m_interrupted.store(false, std::memory_order_relaxed);
    Q_EMIT awake();
    QCoreApplication::sendPostedEvents();

    const bool includeTimers = !(flags & QEventLoop::X11ExcludeTimers);
    const bool includeSockets = !(flags & QEventLoop::ExcludeSocketNotifiers);
    // Events posted from here on call wakeUp(), which makes the wait below return at once.
    const bool canWait = (flags & QEventLoop::WaitForMoreEvents) && !m_interrupted.load(std::memory_order_relaxed);
    if (canWait)
        Q_EMIT aboutToBlock();
    if (m_interrupted.load(std::memory_order_relaxed))
        return false;

    ::timespec wait{};
    const ::timespec *timeout = &wait; // zero: poll without blocking
    if (canWait) {
        const std::int64_t ns = includeTimers ? nextTimerWaitNs() : -1;
        if (ns < 0)
            timeout = nullptr;
        else
            wait = ::timespec{time_t(ns / 1'000'000'000), long(ns % 1'000'000'000)};
    }
    int handled = includeSockets ? waitForSockets(timeout) : int(waitForWakeUp(timeout));
    if (includeTimers)
        handled += activateTimers();
    return handled > 0;
}

UringReceiver *EpollEventDispatcher::uringReceiver()
{
    // The ring is the thread's own (a single issuer): made there, never from the creating thread.
    if (!m_uringTried && QThread::currentThread() == thread()) {
        m_uringTried = true;
        m_uring = UringReceiver::create(m_set.fd());
        if (m_uring) {
            installWakeSignalHandler();
            m_thread = ::pthread_self();
        }
    }
    return m_uring.get();
}

int EpollEventDispatcher::waitForSockets(const ::timespec *timeout)
{
    UringReceiver *uring = uringReceiver();
    if (!uring)
        return m_set.wait(timeout);
    static constexpr ::timespec kNoWait{};
    int handled = 0;
    if (m_epollMayBeReady) {
        const int ready = m_set.wait(&kNoWait);
        handled += ready;
        m_epollMayBeReady = ready > 0;
        if (m_epollMayBeReady)
            timeout = &kNoWait;
    }
    // Gathering suits the ring's reads alone, whose times are the kernel's stamps. While epoll
    // watches anything but the wake-up descriptor (a connect, a TLS or Qt socket, whose reads are
    // timed when they happen, a timer descriptor), the wait ends at the first event.
    const bool gathering = m_set.watched() <= 1 && uring->gathers(timeout);
    // Announced before wakeUp() is looked at, which announces itself before it looks here: one of
    // the two sees the other (both sequentially consistent), so no posted event waits the gather out.
    if (gathering) {
        m_gathering.store(true);
        if (m_wakePending.load())
            timeout = &kNoWait;
    }
    bool epollReady = false;
    handled += uring->wait(timeout, &epollReady, gathering);
    if (gathering)
        m_gathering.store(false);
    if (epollReady) {
        const int ready = m_set.wait(&kNoWait);
        handled += ready;
        m_epollMayBeReady = ready > 0;
    }
    return handled;
}

void EpollEventDispatcher::pollReady(std::uint32_t)
{
    std::uint64_t count = 0;
    [[maybe_unused]] const ssize_t n = ::read(m_wakeFd, &count, sizeof count);
    // After the read: a wakeUp() between the two writes nothing, and its event is sent by the
    // next pass's sendPostedEvents(), which comes before any blocking wait.
    m_wakePending.store(false, std::memory_order_release);
}

bool EpollEventDispatcher::waitForWakeUp(const ::timespec *timeout)
{
    ::pollfd fd{m_wakeFd, POLLIN, 0};
    if (::ppoll(&fd, 1, timeout, nullptr) <= 0)
        return false;
    pollReady(PollEvent::Read);
    return true;
}

void EpollEventDispatcher::wakeUp()
{
    // Every postEvent() to this thread calls this: one write per batch, not per event.
    if (!m_wakePending.exchange(true)) {
        const std::uint64_t one = 1;
        [[maybe_unused]] const ssize_t n = ::write(m_wakeFd, &one, sizeof one);
        if (m_gathering.load())
            ::pthread_kill(m_thread, kWakeSignal);
    }
}

void EpollEventDispatcher::interrupt()
{
    m_interrupted.store(true, std::memory_order_relaxed);
    wakeUp();
}

void EpollEventDispatcher::registerSocketNotifier(QSocketNotifier *notifier)
{
    const int fd = int(notifier->socket());
    auto &group = m_notifiers[fd];
    if (!group)
        group = std::make_unique<NotifierGroup>(this, fd);
    QSocketNotifier *&slot = group->notifiers[std::size_t(notifier->type())];
    if (slot && slot != notifier)
        qWarning("EpollEventDispatcher: a second socket notifier of the same type on descriptor %d replaces the first",
                 fd);
    slot = notifier;
    updateNotifierEvents(fd);
}

void EpollEventDispatcher::unregisterSocketNotifier(QSocketNotifier *notifier)
{
    const auto it = m_notifiers.find(int(notifier->socket()));
    if (it == m_notifiers.end())
        return;
    QSocketNotifier *&slot = it->second->notifiers[std::size_t(notifier->type())];
    if (slot == notifier) {
        slot = nullptr;
        updateNotifierEvents(it->first);
    }
}

void EpollEventDispatcher::updateNotifierEvents(int fd)
{
    const auto it = m_notifiers.find(fd);
    NotifierGroup &group = *it->second;
    std::uint32_t events = 0;
    for (std::size_t t = 0; t < group.notifiers.size(); ++t)
        if (group.notifiers[t])
            events |= kNotifierInterest[t];
    if (events == 0) {
        if (group.inSet)
            m_set.remove(fd);
        m_notifiers.erase(it);
    } else if (group.inSet) {
        m_set.modify(fd, events);
    } else if (m_set.add(fd, events, &group)) {
        group.inSet = true;
    } else {
        qWarning("EpollEventDispatcher: cannot watch descriptor %d (errno %d)", fd, errno);
    }
}

void EpollEventDispatcher::activateNotifiers(int fd, std::uint32_t events)
{
    for (std::size_t t = 0; t < kNotifierEvents.size(); ++t) {
        if (!(events & kNotifierEvents[t]))
            continue;
        const auto it = m_notifiers.find(fd);
        if (it == m_notifiers.end())
            return;
        if (QSocketNotifier *notifier = it->second->notifiers[t]) {
            QEvent activation(QEvent::SockAct);
            QCoreApplication::sendEvent(notifier, &activation);
        }
    }
}

void EpollEventDispatcher::registerTimer(int timerId, qint64 interval, Qt::TimerType timerType, QObject *object)
{
    m_timers.push_back(
        Timer{timerId, interval, timerType, object, monotonicNs() + interval * 1'000'000, ++m_nextTimerSerial, false});
}

bool EpollEventDispatcher::unregisterTimer(int timerId)
{
    const auto it =
        std::find_if(m_timers.begin(), m_timers.end(), [timerId](const Timer &t) { return t.id == timerId; });
    if (it == m_timers.end())
        return false;
    m_timers.erase(it);
    return true;
}

bool EpollEventDispatcher::unregisterTimers(QObject *object)
{
    return std::erase_if(m_timers, [object](const Timer &t) { return t.object == object; }) > 0;
}

QList<QAbstractEventDispatcher::TimerInfo> EpollEventDispatcher::registeredTimers(QObject *object) const
{
    QList<TimerInfo> timers;
    for (const Timer &t : m_timers)
        if (t.object == object)
            timers.append(TimerInfo(t.id, int(t.intervalMs), t.type));
    return timers;
}

int EpollEventDispatcher::remainingTime(int timerId)
{
    const auto it =
        std::find_if(m_timers.begin(), m_timers.end(), [timerId](const Timer &t) { return t.id == timerId; });
    if (it == m_timers.end())
        return -1;
    return int(std::max<std::int64_t>(0, (it->dueNs - monotonicNs()) / 1'000'000));
}

std::vector<EpollEventDispatcher::Timer>::iterator EpollEventDispatcher::findTimer(std::uint64_t serial)
{
    return std::find_if(m_timers.begin(), m_timers.end(), [serial](const Timer &t) { return t.serial == serial; });
}

std::int64_t EpollEventDispatcher::nextTimerWaitNs() const
{
    std::int64_t first = -1;
    for (const Timer &t : m_timers)
        if (!t.firing && (first < 0 || t.dueNs < first))
            first = t.dueNs;
    return first < 0 ? -1 : std::max<std::int64_t>(0, first - monotonicNs());
}

int EpollEventDispatcher::activateTimers()
{
    if (m_timers.empty())
        return 0;
    const std::int64_t now = monotonicNs();
    // Only the timers due when the pass began, each once: one that a handler starts, or a 0 ms
    // timer that is due again at once, waits for the next pass, after the sockets.
    std::vector<std::pair<std::int64_t, std::uint64_t>> due;
    for (const Timer &t : m_timers)
        if (!t.firing && t.dueNs <= now)
            due.emplace_back(t.dueNs, t.serial);
    std::sort(due.begin(), due.end());
    int fired = 0;
    for (const auto &[dueNs, serial] : due) {
        auto it = findTimer(serial); // a handler may have killed it
        if (it == m_timers.end())
            continue;
        const std::int64_t intervalNs = it->intervalMs * 1'000'000;
        it->dueNs += intervalNs;
        if (it->dueNs < now) // late by more than an interval: no burst to catch up
            it->dueNs = now + intervalNs;
        it->firing = true;
        QObject *object = it->object;
        QTimerEvent event(it->id);
        QCoreApplication::sendEvent(object, &event);
        ++fired;
        it = findTimer(serial);
        if (it != m_timers.end())
            it->firing = false;
    }
    return fired;
}

} // namespace tb
