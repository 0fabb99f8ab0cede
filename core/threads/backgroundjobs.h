#pragma once

// Work that must not block its owner's thread (reading a run of 100 000 requests, scanning a
// folder, computing a comparison): one worker thread runs the jobs in order and each result comes
// back to a callback on the owner's thread.

#include <QMetaObject>
#include <QObject>
#include <QThreadPool>

#include <utility>

namespace tb {

class BackgroundJobs
{
public:
    /// Results are delivered on `owner`'s thread; a delivery whose owner is gone is dropped.
    explicit BackgroundJobs(QObject *owner);
    /// stop(): the owner's members the jobs use must outlive this (declare it after them, or call
    /// stop() first in the owner's destructor).
    ~BackgroundJobs();
    BackgroundJobs(const BackgroundJobs &) = delete;
    BackgroundJobs &operator=(const BackgroundJobs &) = delete;

    /// Runs `work()` on the worker thread, then `deliver(result)` on the owner's thread. Both are
    /// copied into the job: capture values, not references.
    template<class Work, class Deliver> void run(Work work, Deliver deliver)
    {
        post(std::move(work), std::move(deliver));
    }

    /// Like run(), but a newer runLatest() supersedes this job: its result is then dropped.
    template<class Work, class Deliver> void runLatest(Work work, Deliver deliver)
    {
        post(std::move(work), [this, deliver, ticket = ++m_latest](const auto &result) {
            if (ticket == m_latest)
                deliver(result);
        });
    }

    /// Jobs started and not yet delivered (superseded ones too).
    int pending() const { return m_pending; }
    /// Drops the jobs not started and waits for the one running (its delivery is still posted).
    void stop();

private:
    template<class Work, class Deliver> void post(Work work, Deliver deliver)
    {
        ++m_pending;
        m_pool.start([this, work, deliver] {
            auto result = work();
            QMetaObject::invokeMethod(
                m_owner,
                [this, deliver, result] {
                    --m_pending;
                    deliver(result);
                },
                Qt::QueuedConnection);
        });
    }

    QObject *m_owner;
    QThreadPool m_pool;
    int m_pending = 0;
    quint64 m_latest = 0;
};

} // namespace tb
