#include "support/loadrun.h"

#include "support/transportrows.h"

#include <QElapsedTimer>
#include <QTest>

#include <algorithm>

namespace tb::test {

int LoadRun::count(RequestStatus status) const
{
    return int(
        std::count_if(records.begin(), records.end(), [status](const RequestRecord &r) { return r.status == status; }));
}

LoadRun runLoad(RunConfig config, const std::function<void(LoadController &)> &during, int timeoutMs, int workers)
{
    QString error;
    if (config.target.transport == TransportKind::Auto)
        config.target.transport = rowTransport();
    auto plan = RunPlan::create(config, &error);
    if (!plan) {
        qWarning() << "plan:" << error;
        return {};
    }
    return runPlan(std::move(plan), during, timeoutMs, workers);
}

LoadRun runPlan(std::shared_ptr<const RunPlan> plan, const std::function<void(LoadController &)> &during, int timeoutMs,
                int workers)
{
    LoadRun result;
    result.plan = std::move(plan);
    LoadController controller(result.plan, RunClock(),
                              [&result](RequestRecord &&r) { result.records.push_back(std::move(r)); });
    QObject::connect(&controller, &LoadController::finished, [&result](bool cancelled) {
        result.finished = true;
        result.cancelled = cancelled;
    });
    QElapsedTimer timer;
    timer.start();
    controller.start(workers);
    if (during)
        during(controller);
    (void)QTest::qWaitFor([&result] { return result.finished; }, timeoutMs);
    result.seconds = double(timer.nsecsElapsed()) / 1e9;
    result.peakInFlight = controller.progress().peakInFlight;
    return result;
}

} // namespace tb::test
