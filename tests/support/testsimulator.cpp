#include "support/testsimulator.h"

#include <QString>

namespace tb::test {

std::unique_ptr<sim::SimulatorHost> startSimulator(const sim::SimConfig &config)
{
    auto host = std::make_unique<sim::SimulatorHost>(config);
    return host->start() ? std::move(host) : nullptr;
}

std::unique_ptr<sim::SimulatorHost> startFastSimulator(double ttftMs, double stepMs)
{
    sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
    config.ttftMs = ttftMs;
    config.stepMs = stepMs;
    return startSimulator(config);
}

TargetConfig targetOf(const sim::SimulatorHost &host, const QString &name)
{
    TargetConfig target;
    target.name = name;
    target.url = host.baseUrl().toString();
    target.model = host.config().model;
    return target;
}

} // namespace tb::test
