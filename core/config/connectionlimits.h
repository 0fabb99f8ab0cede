#pragma once

#include "platform/ephemeralports.h"

#include <QString>

#include <limits>
#include <optional>

namespace tb {

struct RunConfig;

/// What this machine lets a run hold at once: descriptors, and local ports to one server.
struct ConnectionLimits {
    qint64 openFiles = std::numeric_limits<qint64>::max(); ///< after raiseOpenFileLimit()
    std::optional<PortRange> localPorts;                   ///< nullopt: the OS does not say
    /// openFileLimit() and ephemeralPortRange() now.
    static ConnectionLimits ofThisProcess();
};

/// Empty, or why the run cannot hold its sockets and the worker threads' descriptors within the
/// open-file limit, or its connections to one server within the local ports (workerThreads 0: the
/// default, one per core). Checked before a run starts, by the CLI and by the GUI (through
/// validate()), so that a run is refused naming the limit and how to raise it, instead of failing
/// connects part-way through.
QString checkConnectionLimits(const RunConfig &config, int workerThreads, const ConnectionLimits &limits);

} // namespace tb
