#pragma once

// A hand-off from a thread to whoever waits for it, made visible to ThreadSanitizer (the tsan
// preset). QThread::wait() on a thread that has already ended returns after a check under
// QThread's mutex, a futex inside Qt that TSan cannot see; what the thread wrote then looks
// unsynchronised to the owner that reads or frees it after wait(). In every other build these
// do nothing.

#if defined(__SANITIZE_THREAD__)
#define TB_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TB_THREAD_SANITIZER 1
#endif
#endif

#ifdef TB_THREAD_SANITIZER
#include <sanitizer/tsan_interface.h>
#endif

namespace tb::threadhandoff {

/// The thread's last word on `object`: everything it did before happens before takeOver(object).
inline void handOver([[maybe_unused]] const void *object)
{
#ifdef TB_THREAD_SANITIZER
    __tsan_release(const_cast<void *>(object));
#endif
}

/// After QThread::wait(): what the thread did before handOver(object) is visible here.
inline void takeOver([[maybe_unused]] const void *object)
{
#ifdef TB_THREAD_SANITIZER
    __tsan_acquire(const_cast<void *>(object));
#endif
}

} // namespace tb::threadhandoff
