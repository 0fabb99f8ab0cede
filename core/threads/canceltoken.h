#pragma once

#include <atomic>
#include <memory>

namespace tb {

/// Tells a job on another thread that its result is no longer wanted (BackgroundJobs::runLatest
/// cancels a job's token when a newer job supersedes it): a long job polls isCancelled() between
/// steps and returns early, so stale work stops instead of running on. Copies share one flag.
class CancelToken
{
public:
    CancelToken()
        : m_cancelled(std::make_shared<std::atomic<bool>>(false))
    {}

    void cancel() const { m_cancelled->store(true, std::memory_order_relaxed); }
    bool isCancelled() const { return m_cancelled->load(std::memory_order_relaxed); }

private:
    std::shared_ptr<std::atomic<bool>> m_cancelled;
};

} // namespace tb
