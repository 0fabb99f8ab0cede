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

sim::SimConfig capacitySimConfig(int maxBatch)
{
    sim::SimConfig c = *sim::SimConfig::preset(QStringLiteral("fast"));
    c.maxBatch = maxBatch;
    c.queueLimit = 0;
    c.ttftMs = kCapacityTtftMs;
    c.stepMs = 10;
    c.stepMsPerSeq = 0;
    c.prefillMsPer1k = 0;
    c.outputTokens = 10;
    return c;
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
