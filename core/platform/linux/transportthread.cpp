#include "platform/transportthread.h"

#include "platform/linux/epolleventdispatcher.h"

#include <sys/prctl.h>

namespace tb {

QAbstractEventDispatcher *newTransportDispatcher()
{
    // One blocking epoll wait per wake-up instead of glib's poll round and a nested epoll.
    return new EpollEventDispatcher;
}

void requestPreciseWakeUps()
{
    // Timer slack would let the kernel wake this thread up to 50 µs late to batch wake-ups.
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

} // namespace tb
