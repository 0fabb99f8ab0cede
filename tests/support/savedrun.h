#pragma once

// A whole run, to its saved directory, for the tests that open saved runs (the comparison, the
// laptop layout, the themes' contrast).

#include "config/runconfig.h"

namespace tb::test {

/// Runs `config` with a BenchmarkRunner until its run directory (`config.outDir`) is written;
/// false, with a warning, when it cannot start or has not finished within two minutes.
bool saveRun(const RunConfig &config);

} // namespace tb::test
