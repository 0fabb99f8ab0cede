#include "platform/iobackend.h"

namespace tb {

const IoBackend &ioBackend()
{
    static const IoBackend backend{
        QStringLiteral("linux"),
        QStringLiteral("epoll"),
        QStringLiteral("kernel receive stamp (SO_TIMESTAMPING): when the bytes reached the socket"),
        true,
        QStringLiteral("1 ns (timerfd)"),
    };
    return backend;
}

} // namespace tb
