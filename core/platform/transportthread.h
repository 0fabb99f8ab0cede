#pragma once

class QAbstractEventDispatcher;

namespace tb {

/// The event dispatcher a thread that moves bytes runs on, to install before it starts (null: Qt's
/// own). Linux: EpollEventDispatcher, one blocking epoll wait per pass that SocketPoller shares.
/// Portable: Qt's own.
QAbstractEventDispatcher *newTransportDispatcher();

/// Asks the OS to wake this thread's timed waits without slack (Linux: PR_SET_TIMERSLACK of 1 ns;
/// the kernel's default lets a wake-up come 50 µs late). Nothing where the OS has no such knob.
void requestPreciseWakeUps();

} // namespace tb
