#include "platform/iobackend.h"

namespace tb {

const IoBackend &ioBackend()
{
    static const IoBackend backend{
        QStringLiteral("portable"),
        QStringLiteral("poll and Qt socket notifiers"),
        QStringLiteral("steady clock read at each read: late by however long the reading thread was busy"),
        false,
        QStringLiteral("1 ms (Qt timer, rounded up)"),
    };
    return backend;
}

} // namespace tb
