#include "config/connectionlimits.h"

#include "config/runconfig.h"
#include "platform/openfilelimit.h"

#include <QThread>

#include <algorithm>

namespace tb {

namespace {

/// Descriptors a run holds besides its sockets: the worker threads' event descriptors (epoll,
/// wake-ups), files it writes, and a margin for Qt and the tokenizer.
constexpr qint64 kFilesPerWorker = 4;
constexpr qint64 kReservedFiles = 64;

} // namespace

ConnectionLimits ConnectionLimits::ofThisProcess()
{
    return {openFileLimit(), ephemeralPortRange()};
}

QString checkConnectionLimits(const RunConfig &config, int workerThreads, const ConnectionLimits &limits)
{
    // Every request in flight holds a socket: the most users of any stage, or the open-loop cap
    // (an uncapped open loop has no bound to check in advance).
    qint64 sockets = 0;
    for (const StageConfig &s : effectiveStages(config.load))
        sockets =
            std::max(sockets, s.mode == LoadMode::Concurrency ? qint64(s.level) : qint64(config.load.maxInFlight));
    const qint64 workers = workerThreads > 0 ? workerThreads : std::max(2, QThread::idealThreadCount());
    const qint64 besidesSockets = workers * kFilesPerWorker + kReservedFiles;
    const qint64 needed = sockets + besidesSockets;
    if (needed > limits.openFiles)
        return QStringLiteral("%1 connections and %2 worker threads need about %3 open files, more than this process "
                              "may open (%4, %5); at most %6 connections fit")
            .arg(sockets)
            .arg(workers)
            .arg(needed)
            .arg(limits.openFiles)
            .arg(openFileLimitHint())
            .arg(std::max<qint64>(0, limits.openFiles - besidesSockets));
    if (!limits.localPorts)
        return {};
    // Each connection to one server takes a local port of its own; the instances share the
    // requests evenly (round robin, or nearly so by least in flight), so the busiest server gets
    // the share rounded up.
    const qint64 instances = std::max<qsizetype>(1, config.target.instanceUrls().size());
    const qint64 perServer = (sockets + instances - 1) / instances;
    const qint64 ports = limits.localPorts->count();
    if (perServer <= ports)
        return {};
    return QStringLiteral("%1 connections to one server need as many local ports, more than this machine offers "
                          "(%2: ports %3-%4, %5)")
        .arg(perServer)
        .arg(ports)
        .arg(limits.localPorts->first)
        .arg(limits.localPorts->last)
        .arg(ephemeralPortRangeHint());
}

} // namespace tb
