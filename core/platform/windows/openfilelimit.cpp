#include "platform/openfilelimit.h"

#include <limits>

namespace tb {

// Windows has no per-process limit on sockets or file handles for a program to read or raise: a
// process's handle table grows as its handles do, bounded by memory (and a per-process ceiling
// of 2^24 handles). The C runtime's _setmaxstdio() caps FILE streams, which neither sockets nor
// QFile use. So there is nothing to raise, and nothing a run could be checked against.

qint64 raiseOpenFileLimit()
{
    return std::numeric_limits<qint64>::max();
}

qint64 openFileLimit()
{
    return std::numeric_limits<qint64>::max();
}

QString openFileLimitHint()
{
    // Never shown while openFileLimit() has no limit to report; true should that change.
    return QStringLiteral("the handles Windows lets this process hold");
}

} // namespace tb
