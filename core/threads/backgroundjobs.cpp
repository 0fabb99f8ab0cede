#include "threads/backgroundjobs.h"

namespace tb {

BackgroundJobs::BackgroundJobs(QObject *owner)
    : m_owner(owner)
{
    m_pool.setMaxThreadCount(1);
}

BackgroundJobs::~BackgroundJobs()
{
    stop();
}

void BackgroundJobs::stop()
{
    m_pool.clear();
    m_pool.waitForDone();
}

} // namespace tb
