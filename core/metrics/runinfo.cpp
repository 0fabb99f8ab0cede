#include "metrics/runinfo.h"

#include "tokenbench/version.h"

#include <QSysInfo>

namespace tb {

RunInfo RunInfo::begin(const RunConfig &config, std::chrono::steady_clock::time_point origin)
{
    using namespace std::chrono;
    RunInfo info;
    info.config = config;
    info.stages = effectiveStages(config.load);
    // The wall clock read now, moved back by the time since the origin: both stamps name one instant.
    const steady_clock::time_point steadyNow = steady_clock::now();
    const system_clock::time_point wallNow = system_clock::now();
    info.monotonicOriginNs = duration_cast<nanoseconds>(origin.time_since_epoch()).count();
    info.wallOriginNs = duration_cast<nanoseconds>(wallNow.time_since_epoch() - (steadyNow - origin)).count();
    info.startedAt = QDateTime::fromMSecsSinceEpoch(info.wallOriginNs / 1'000'000);
    info.host = QSysInfo::machineHostName();
    info.toolVersion = version();
    return info;
}

QString RunInfo::startedAtText() const
{
    if (!startedAt.isValid())
        return {};
    // A local QDateTime prints no offset; pin it so the text says which zone it was.
    return startedAt.toOffsetFromUtc(startedAt.offsetFromUtc()).toString(Qt::ISODateWithMs);
}

} // namespace tb

namespace tb {

QString RunInfo::wallOriginText() const
{
    if (wallOriginNs <= 0)
        return {};
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(wallOriginNs / 1'000'000, Qt::UTC);
    return at.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.")) +
           QStringLiteral("%1Z").arg(wallOriginNs / 1000 % 1'000'000, 6, 10, QLatin1Char('0'));
}

} // namespace tb
