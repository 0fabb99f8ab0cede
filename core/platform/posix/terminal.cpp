#include "platform/terminal.h"

#include <unistd.h>

namespace tb {

bool stderrIsTerminal()
{
    return ::isatty(STDERR_FILENO) == 1;
}

} // namespace tb
