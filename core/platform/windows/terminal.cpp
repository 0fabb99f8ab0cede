#include "platform/terminal.h"

#include <windows.h>

namespace tb {

bool stderrIsTerminal()
{
    // A console answers GetConsoleMode; a file, a pipe and NUL do not (the C runtime's _isatty()
    // says yes to NUL, a character device too).
    DWORD mode = 0;
    return GetConsoleMode(GetStdHandle(STD_ERROR_HANDLE), &mode) != 0;
}

} // namespace tb
