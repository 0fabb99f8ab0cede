#include "metrics/runinfo.h"

#include "tokenbench/version.h"

#include <QSysInfo>

namespace tb {

RunInfo RunInfo::begin(const RunConfig &config)
{
    RunInfo info;
    // What is recorded of a run is what may be written and shown: nothing of its credentials.
    info.config = redacted(config);
    info.stages = effectiveStages(config.load);
    info.startedAt = QDateTime::currentDateTime();
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
