#pragma once

// A thread its owner starts and ends, with one worker object living on it: the owner's
// destructor (or stop()) deletes the worker on that thread — its sockets and timers belong there —
// then ends the thread and waits for it.

#include "threads/threadhandoff.h"

#include <QAbstractEventDispatcher>
#include <QMetaObject>
#include <QObject>
#include <QString>
#include <QThread>

#include <utility>

namespace tb {

template<class Worker> class OwnedThread
{
public:
    OwnedThread() = default;
    ~OwnedThread() { stop(); }
    OwnedThread(const OwnedThread &) = delete;
    OwnedThread &operator=(const OwnedThread &) = delete;
    OwnedThread(OwnedThread &&other) noexcept
        : m_thread(std::exchange(other.m_thread, nullptr))
        , m_worker(std::exchange(other.m_worker, nullptr))
    {}
    OwnedThread &operator=(OwnedThread &&other) noexcept
    {
        if (this != &other) {
            stop();
            m_thread = std::exchange(other.m_thread, nullptr);
            m_worker = std::exchange(other.m_worker, nullptr);
        }
        return *this;
    }

    /// Moves `worker` (which has no parent) onto a new thread called `name` and starts it; both
    /// are owned here from then on. A worker already running is stopped first. The thread runs
    /// `dispatcher` (it takes it) instead of Qt's default event dispatcher when one is given.
    void start(Worker *worker, const QString &name, QAbstractEventDispatcher *dispatcher = nullptr)
    {
        stop();
        m_thread = new QThread;
        m_thread->setObjectName(name);
        if (dispatcher)
            m_thread->setEventDispatcher(dispatcher);
        worker->moveToThread(m_thread);
        m_worker = worker;
        // Emitted on the ending thread, its last act that runs our code.
        QObject::connect(
            m_thread, &QThread::finished, m_thread, [thread = m_thread] { threadhandoff::handOver(thread); },
            Qt::DirectConnection);
        m_thread->start();
    }

    /// Deletes the worker on its thread, then ends the thread and waits for it; nothing when none
    /// runs (a second call). Never call it on the worker's thread: it would wait for itself.
    void stop()
    {
        QThread *thread = std::exchange(m_thread, nullptr);
        Worker *worker = std::exchange(m_worker, nullptr);
        if (!thread)
            return;
        QMetaObject::invokeMethod(
            worker, [worker] { delete worker; }, Qt::BlockingQueuedConnection);
        thread->quit();
        thread->wait();
        threadhandoff::takeOver(thread);
        delete thread;
    }

    /// Like stop(), but returns at once, so the caller never waits for the worker's teardown: the
    /// thread deletes the worker and ends by itself, and is deleted on the caller's thread once it
    /// has ended. The returned thread (null when none ran) is for an owner that ends before the
    /// caller's event loop runs again: wait on it and delete it while a QPointer to it is set.
    QThread *retire()
    {
        QThread *thread = std::exchange(m_thread, nullptr);
        Worker *worker = std::exchange(m_worker, nullptr);
        if (!thread)
            return nullptr;
        QObject::connect(thread, &QThread::finished, thread, &QObject::deleteLater);
        QMetaObject::invokeMethod(
            worker,
            [worker, thread] {
                delete worker;
                thread->quit();
            },
            Qt::QueuedConnection);
        return thread;
    }

    bool isRunning() const { return m_thread != nullptr; }
    /// Null when none runs. Lives on its own thread: reach it with queued calls.
    Worker *worker() const { return m_worker; }

private:
    QThread *m_thread = nullptr;
    Worker *m_worker = nullptr;
};

} // namespace tb
