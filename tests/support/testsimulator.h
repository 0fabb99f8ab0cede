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
/// A target named `name` (empty: the model's name) aimed at the simulator and its model.
TargetConfig targetOf(const sim::SimulatorHost &host, const QString &name = QString());

} // namespace tb::test
