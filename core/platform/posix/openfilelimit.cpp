#include "platform/openfilelimit.h"

#include <limits>

#include <sys/resource.h>

namespace tb {

namespace {

qint64 softLimit(const rlimit &limit)
{
    return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<qint64>::max() : qint64(limit.rlim_cur);
}

} // namespace

qint64 raiseOpenFileLimit()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return std::numeric_limits<qint64>::max();
    if (limit.rlim_cur < limit.rlim_max) {
        rlimit raised = limit;
        raised.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
            limit = raised;
    }
    return softLimit(limit);
}

qint64 openFileLimit()
{
    rlimit limit{};
    return getrlimit(RLIMIT_NOFILE, &limit) == 0 ? softLimit(limit) : std::numeric_limits<qint64>::max();
}

QString openFileLimitHint()
{
    return QStringLiteral("RLIMIT_NOFILE; raise it with 'ulimit -n'");
}

} // namespace tb
