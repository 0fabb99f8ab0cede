#include "platform/terminationsignals.h"

#include <cerrno>
#include <csignal>

#include <sys/socket.h>

namespace tb {

namespace {

// What the handler writes to: a handler can reach no object, only a global.
volatile std::sig_atomic_t g_writer = -1;

extern "C" void onTerminationSignal(int signum)
{
    // send() is async-signal-safe; the socket is non-blocking, and a byte that finds it full is
    // not needed (bytes already wait to be read). errno as the interrupted code left it.
    const int savedErrno = errno;
    const unsigned char byte = static_cast<unsigned char>(signum);
#ifdef MSG_NOSIGNAL
    [[maybe_unused]] const auto n = ::send(int(g_writer), &byte, 1, MSG_NOSIGNAL);
#else
    [[maybe_unused]] const auto n = ::send(int(g_writer), &byte, 1, 0); // macOS: SO_NOSIGPIPE is set
#endif
    errno = savedErrno;
}

} // namespace

void TerminationSignals::install(SocketHandle writer)
{
    g_writer = std::sig_atomic_t(writer);
    struct sigaction action = {};
    action.sa_handler = onTerminationSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

void TerminationSignals::uninstall()
{
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    g_writer = -1;
}

} // namespace tb
