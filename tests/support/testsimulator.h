#pragma once

#include "config/runconfig.h"
#include "sim/simconfig.h"
#include "sim/simulatorhost.h"

#include <memory>

namespace tb::test {

/// A simulator listening on 127.0.0.1, or nullptr when it could not start.
std::unique_ptr<sim::SimulatorHost> startSimulator(const sim::SimConfig &config);
/// The "fast" preset with its time to first token and decode step set.
std::unique_ptr<sim::SimulatorHost> startFastSimulator(double ttftMs, double stepMs);
/// The simulator's model (sim/servingmodel.cpp) with a hard capacity: at most `maxBatch` requests
/// decode at once and none waits (queue limit 0): a request that finds every slot taken is answered
/// 503 at once. An admitted request gets its first token kCapacityTtftMs = 20 ms later (prefill costs
/// nothing here), and its last after 9 decode steps of 10 ms. A slot is freed when its request's
/// last token is sent, before the client can see the end and send again. So with c ≤ maxBatch users
/// in a closed loop a request never finds the slots full: every request is good under a TTFT SLO
/// above 20 ms. With more users, whenever maxBatch requests decode the others get 503 at once and
/// send again at once: most requests of the level fail. The capacity is therefore maxBatch users,
/// whatever the phase of the requests in the batch. (With a queue instead, the capacity under a
/// TTFT SLO depends on that phase: when the batch's requests end together a user past the batch
/// waits a whole request, when their ends are spread a fraction of one; at --max-batch 16 in
/// user-guide.md's search, 17 users met the TTFT SLO 98.7% of the time, not the 16/17 = 94% of
/// batches that end together.)
sim::SimConfig capacitySimConfig(int maxBatch);
inline constexpr double kCapacityTtftMs = 20;

/// A target named `name` (empty: the model's name) aimed at the simulator and its model.
TargetConfig targetOf(const sim::SimulatorHost &host, const QString &name = QString());

} // namespace tb::test
