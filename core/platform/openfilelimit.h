#pragma once

#include <QString>

namespace tb {

/// Raises this process's soft limit on open files to its hard limit — each request in flight, and
/// each of the simulator's connections, holds a descriptor, and the usual soft limit is 1,024 —
/// and returns the soft limit then in force; the int64 maximum when there is none, or when the OS
/// cannot tell (nothing can then be checked against it). The one place the client, the simulator
/// and the GUI raise it.
qint64 raiseOpenFileLimit();

/// The soft limit in force now, without raising it (the int64 maximum as above).
qint64 openFileLimit();

/// What the limit is called and how a user raises it, for a message that says a run needs more
/// ("RLIMIT_NOFILE; raise it with 'ulimit -n'").
QString openFileLimitHint();

} // namespace tb
