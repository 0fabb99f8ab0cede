#pragma once

#include "cliparser.h"

#include "config/runconfig.h"

namespace tb::cli {

/// `run … --find-max c|r[=START..MAX]`: a limit search (run/limitsearch.h) instead of one run. One
/// line a level run on stdout, then the answer and why the search stopped; progress on stderr
/// unless --quiet. Exit code: 0 when the search ended (whatever it found), 3 when even the first
/// level fails and --fail-on-slo is set, 130 when interrupted (search.json is saved), 1 or 2 as run.
int findMaxCommand(CliParser &cli, const RunConfig &config, int workers, bool force);

} // namespace tb::cli
