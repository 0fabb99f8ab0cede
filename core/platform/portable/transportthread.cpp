#include "platform/transportthread.h"

namespace tb {

QAbstractEventDispatcher *newTransportDispatcher()
{
    return nullptr; // Qt's own
}

void requestPreciseWakeUps() {}

} // namespace tb
