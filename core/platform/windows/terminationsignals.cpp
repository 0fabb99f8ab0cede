#include "platform/terminationsignals.h"

#include <atomic>
#include <csignal>

#include <winsock2.h> // before any windows.h, and it includes windows.h itself

namespace tb {

namespace {

std::atomic<SocketHandle> g_writer{kNoSocket};

// Windows calls this on a thread it creates for the event, not on the thread that was interrupted.
BOOL WINAPI onConsoleEvent(DWORD event)
{
    int signum = 0;
    switch (event) {
    case CTRL_C_EVENT:
        signum = SIGINT;
        break;
    case CTRL_BREAK_EVENT:
    case CTRL_CLOSE_EVENT:
        signum = SIGTERM;
        break;
    default: // logoff and shutdown reach services, not a console program
        return FALSE;
    }
    const SocketHandle writer = g_writer.load();
    if (writer == kNoSocket)
        return FALSE; // the default handling: the process ends
    const char byte = char(signum);
    ::send(SOCKET(writer), &byte, 1, 0);
    // The console's window closing ends the process as soon as this returns (or after about 5 s
    // of waiting): wait here, so that the run stops and is saved in that time as after Ctrl-C.
    if (event == CTRL_CLOSE_EVENT)
        Sleep(INFINITE);
    return TRUE;
}

} // namespace

void TerminationSignals::install(SocketHandle writer)
{
    g_writer.store(writer);
    SetConsoleCtrlHandler(onConsoleEvent, TRUE);
}

void TerminationSignals::uninstall()
{
    SetConsoleCtrlHandler(onConsoleEvent, FALSE);
    g_writer.store(kNoSocket);
}

} // namespace tb
