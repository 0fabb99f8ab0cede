#pragma once

#include "config/runconfig.h"

#include <QString>

namespace tb::cli {

/// How `run --repeat N` sets up the runner of each run: what a single run's flags say.
struct RepeatSettings {
    int workers = 0;
    bool force = false;
    bool showProgress = true;
    QString metricsListen;
    qint64 contextTokens = 0;
};

/// `tokenbench-cli run … --repeat N`: N runs of `config` one after another (RepeatedRun), each
/// run's progress on stderr and one line on stdout as it ends, then the spread of the headline
/// metrics. Returns the exit code: 1 when a run failed to start or save, or every request of a run
/// failed; 130 after a termination signal (what finished is saved, repeats.json included); 3 when
/// --fail-on-slo is set and the runs' mean good fraction misses the target; else 0.
int runRepeated(const RunConfig &config, int repeats, const RepeatSettings &settings);

} // namespace tb::cli
