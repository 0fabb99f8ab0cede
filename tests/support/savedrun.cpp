#include "support/savedrun.h"

#include "run/benchmarkrunner.h"

#include <QSignalSpy>

namespace tb::test {

bool saveRun(const RunConfig &config)
{
    BenchmarkRunner runner;
    QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
    QString error;
    if (!runner.start(config, &error)) {
        qWarning("%s", qPrintable(error));
        return false;
    }
    return finished.wait(120000) || finished.count() == 1;
}

} // namespace tb::test
