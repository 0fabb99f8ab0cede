#pragma once

// A whole load profile run on the test's own thread, for the engine tests (tst_engine,
// tst_proxyengine): the records, and how the run ended.

#include "client/loadcontroller.h"
#include "workload/runplan.h"

#include <functional>
#include <memory>
#include <vector>

namespace tb::test {

struct LoadRun {
    std::shared_ptr<const RunPlan> plan; ///< null when the configuration was refused
    std::vector<RequestRecord> records;
    bool finished = false;
    bool cancelled = false;
    std::int64_t peakInFlight = 0;
    double seconds = 0;

    int count(RequestStatus status) const;
};

/// Runs `config` on `workers` threads until it ends or `timeoutMs` passes, over the global data
/// row's transport (addTransportRows) when the configuration names none. `during` may act on the
/// controller while it runs (e.g. Stop).
LoadRun runLoad(RunConfig config, const std::function<void(LoadController &)> &during = {}, int timeoutMs = 120000,
                int workers = 2);
/// Runs a plan as it is, for a test that changes a plan after validation.
LoadRun runPlan(std::shared_ptr<const RunPlan> plan, const std::function<void(LoadController &)> &during = {},
                int timeoutMs = 120000, int workers = 2);

} // namespace tb::test
