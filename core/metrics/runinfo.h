#pragma once

#include "config/runconfig.h"

#include <QDateTime>
#include <QList>
#include <QString>

namespace tb {

/// What describes a run besides its records: the configuration as run, the stages it executes, and
/// where and when it started. The aggregator names its blocks from it, the writer stores it as
/// run.json, the reader gives it back.
struct RunInfo {
    RunConfig config;          ///< as run, redacted(): no key, no userinfo, no credential header value
    QList<StageConfig> stages; ///< effectiveStages(config.load): what RequestRecord::stage indexes
    QDateTime startedAt;       ///< wall-clock time of the run's t = 0
    QString host;
    QString toolVersion;

    /// For a run starting now on this machine with this build.
    static RunInfo begin(const RunConfig &config);
    /// startedAt as ISO 8601 with milliseconds and the UTC offset ("2024-05-01T10:00:00.000+02:00").
    QString startedAtText() const;
};

} // namespace tb
