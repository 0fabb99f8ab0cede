#pragma once

#include "platform/socketio.h"

namespace tb {

/// Requests from outside to end this process — SIGINT and SIGTERM on POSIX; on Windows the
/// console's Ctrl-C (as SIGINT), Ctrl-Break and closing (as SIGTERM) — turned into bytes on a
/// socket that an event loop watches (QSocketNotifier): a signal handler may do next to nothing,
/// and Windows calls its console handler on a thread of its own. One instance a process.
class TerminationSignals
{
public:
    /// Installs the handlers; socket() is kNoSocket (and nothing installed) when the OS refused
    /// the socket pair.
    TerminationSignals();
    /// The OS's default handling again.
    ~TerminationSignals();
    TerminationSignals(const TerminationSignals &) = delete;
    TerminationSignals &operator=(const TerminationSignals &) = delete;

    /// Turns readable when a request has arrived.
    SocketHandle socket() const { return m_pair[1]; }
    /// The next request that arrived (SIGINT or SIGTERM), or 0 when none waits.
    int take();

private:
    // The OS's half (posix/, windows/): handlers that write one byte, the signal's number, to `writer`.
    static void install(SocketHandle writer);
    static void uninstall();

    SocketHandle m_pair[2] = {kNoSocket, kNoSocket};
};

} // namespace tb
