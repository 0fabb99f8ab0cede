#pragma once

#include <QString>

namespace tb {

/// Which platform backend this build moves bytes with, and how exactly it times them: recorded in
/// every run (run.json "io", the summary, the run header) so that two runs' timings are compared
/// knowing what each could see.
struct IoBackend {
    QString name; ///< "linux" or "portable"
    /// How readiness is waited for and streams are read: "io_uring (multishot recvmsg)" or "epoll"
    /// (Linux, chosen when the process starts), "poll and Qt socket notifiers"
    QString poller;
    QString stamping; ///< where a response's bytes are stamped
    /// True when a chunk's time is its arrival at the socket (the kernel's receive stamp); false
    /// when it is the time this process read it, late by however long the reading thread was busy.
    bool kernelReceiveStamps = false;
    /// The wait for the next request's start or the simulator's next chunk: "1 ns" (timerfd) or
    /// "1 ms" (a Qt timer, rounded up).
    QString timerPrecision;
};

/// This build's backend (chosen by CMake's TB_IO_BACKEND; kernel receive stamps as the build
/// offers them, whether or not a given kernel then grants them per socket).
const IoBackend &ioBackend();

/// The steady clock's step as this process sees it, measured once: the smallest nonzero difference
/// between two consecutive readings — the clock's tick or the cost of one reading, whichever is
/// larger (tens of ns where the clock counts nanoseconds; 100 ns where it counts Windows' QPC ticks).
qint64 steadyClockResolutionNs();

} // namespace tb
