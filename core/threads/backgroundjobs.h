#pragma once

// Work that must not block its owner's thread (reading a run of 100 000 requests, scanning a
// folder, computing a comparison): one worker thread runs the jobs in order and each result comes
// back to a callback on the owner's thread.

#include "threads/canceltoken.h"

#include <QMetaObject>
#include <QObject>
#include <QThreadPool>

#include <type_traits>
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

    /// Runs `work()` (or `work(token)`, a CancelToken never cancelled) on the worker thread, then
    /// `deliver(result)` on the owner's thread. Both are copied into the job: capture values, not
    /// references.
    template<class Work, class Deliver> void run(Work work, Deliver deliver)
    {
        post(CancelToken(), std::move(work), std::move(deliver));
    }

    /// Like run(), but a newer runLatest() supersedes this job: its token is cancelled, so a job
    /// that takes one (`work(const CancelToken &)`) can stop early, a job not yet started does not
    /// start, and its result is dropped.
    template<class Work, class Deliver> void runLatest(Work work, Deliver deliver)
    {
        m_latest.cancel();
        m_latest = CancelToken();
        post(m_latest, std::move(work), std::move(deliver));
    }

    /// Jobs started and not yet delivered (superseded ones too).
    int pending() const { return m_pending; }
    /// Drops the jobs not started and waits for the one running (its delivery is still posted).
    void stop();

private:
    template<class Work, class Deliver> void post(CancelToken token, Work work, Deliver deliver)
    {
        ++m_pending;
        m_pool.start([this, token, work, deliver] {
            if (token.isCancelled()) {
                QMetaObject::invokeMethod(
                    m_owner, [this] { --m_pending; }, Qt::QueuedConnection);
                return;
            }
            auto result = call(work, token);
            QMetaObject::invokeMethod(
                m_owner,
                [this, token, deliver, result] {
                    --m_pending;
                    if (!token.isCancelled())
                        deliver(result);
                },
                Qt::QueuedConnection);
        });
    }

    template<class Work> static auto call(const Work &work, const CancelToken &token)
    {
        if constexpr (std::is_invocable_v<const Work &, const CancelToken &>)
            return work(token);
        else
            return work();
    }

    QObject *m_owner;
    QThreadPool m_pool;
    int m_pending = 0;
    CancelToken m_latest; ///< the newest runLatest() job's (owner's thread only)
};

} // namespace tb
