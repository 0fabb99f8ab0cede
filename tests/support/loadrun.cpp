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
    LoadRun result;
    QString error;
    if (config.target.transport == TransportKind::Auto)
        config.target.transport = rowTransport();
    result.plan = RunPlan::create(config, &error);
    if (!result.plan) {
        qWarning() << "plan:" << error;
        return result;
    }
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
