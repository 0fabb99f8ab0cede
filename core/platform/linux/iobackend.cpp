#include "platform/iobackend.h"

#include "platform/linux/uringreceiver.h"

namespace tb {

const IoBackend &ioBackend()
{
    // Chosen once per process: io_uring when the kernel offers it and TOKENBENCH_IO does not
    // force epoll.
    static const IoBackend backend{
        QStringLiteral("linux"),
        UringReceiver::available() ? QStringLiteral("io_uring (multishot recvmsg)") : QStringLiteral("epoll"),
        QStringLiteral("kernel receive stamp (SO_TIMESTAMPING): when the bytes reached the socket"),
        true,
        QStringLiteral("1 ns (timerfd)"),
    };
    return backend;
}

} // namespace tb
