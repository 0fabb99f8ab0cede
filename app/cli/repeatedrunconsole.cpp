#include "repeatedrunconsole.h"

#include "cliparser.h"
#include "runconsole.h"
#include "signalwatcher.h"

#include "analysis/comparison.h"
#include "run/repeatedrun.h"

#include <QCoreApplication>
#include <QDir>

#include <algorithm>
#include <memory>

namespace tb::cli {

namespace {

/// "run 2/3 run-02: 120 ok, 0 failed; 12.3 req/s, 456 tok/s, TTFT p50 21.5 ms (salt 3f2a…)".
QString runLine(int index, int repeats, const RunOutcome &outcome, const QString &salt)
{
    const SummaryBlock &t = outcome.summary.total;
    const LatencyStats &ttft = t.stat(Metric::Ttft);
    QString line = QStringLiteral("run %1/%2 %3: %4 ok, %5 failed; %6 req/s, %7 tok/s")
                       .arg(index + 1)
                       .arg(repeats)
                       .arg(RepeatedRun::runName(index))
                       .arg(t.requests.ok)
                       .arg(t.requests.failed)
                       .arg(ComparisonTable::formatValue(t.throughput.requestsPerS),
                            ComparisonTable::formatValue(t.throughput.outputTokensPerS));
    if (ttft.count > 0)
        line += QStringLiteral(", TTFT p50 %1 ms").arg(ComparisonTable::formatValue(ttft.p50));
    line += QStringLiteral(" (salt %1)").arg(salt);
    if (outcome.cancelled)
        line += QStringLiteral(" — stopped: partial, left out of the spread");
    return line + QLatin1Char('\n');
}

} // namespace

int runRepeated(const RunConfig &config, int repeats, const RepeatSettings &settings)
{
    RepeatedRun repeated;
    BenchmarkRunner &runner = repeated.runner();
    runner.setWorkerThreads(settings.workers);
    runner.setReplaceExisting(settings.force);
    runner.setMetricsListen(settings.metricsListen);
    runner.setContextTokens(settings.contextTokens);

    std::unique_ptr<RunConsole> console; // one a run: it shows that run's progress
    QObject::connect(&repeated, &RepeatedRun::runStarted, &repeated, [&](int index, const QString &) {
        console = std::make_unique<RunConsole>(config, settings.showProgress);
        if (settings.showProgress)
            printErr(QStringLiteral("run %1 of %2\n").arg(index + 1).arg(repeats));
        console->attach(&runner);
    });
    int exitCode = ExitOk;
    QObject::connect(&repeated, &RepeatedRun::runEnded, &repeated, [&](int index, const RunOutcome &outcome) {
        const QString salt = repeated.runner().info().config.prompt.salt;
        printOut(runLine(index, repeats, outcome, salt));
        if (!outcome.cancelled && outcome.summary.total.requests.allFailed()) {
            printErr(QStringLiteral("tokenbench-cli run: %1: every request failed\n").arg(RepeatedRun::runName(index)));
            exitCode = ExitFailure;
        }
    });
    bool interrupted = false;
    QObject::connect(&repeated, &RepeatedRun::finished, &repeated, [&](const QString &error) {
        console.reset();
        const RunSpread &spread = *repeated.spread();
        printOut(
            QStringLiteral("\nspread of %1 runs (%2 asked):\n").arg(spread.runs()).arg(repeats) + spread.toText() +
            QStringLiteral("\nrepeats: %1\n")
                .arg(QDir::toNativeSeparators(QDir(repeated.directory()).filePath(QLatin1String(repeatfile::kName)))));
        if (!error.isEmpty()) {
            printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(error));
            exitCode = runner.failureIsConfiguration() ? ExitUsage : ExitFailure;
        } else if (interrupted) {
            printErr(QStringLiteral("tokenbench-cli run: interrupted; what was measured is saved\n"));
            exitCode = ExitInterrupted;
        } else if (config.slo.failOnSlo && !config.slo.isEmpty() && exitCode == ExitOk) {
            const auto good = std::find_if(spread.rows().begin(), spread.rows().end(),
                                           [](const RunSpread::Row &r) { return r.key == QLatin1String("good_pct"); });
            if (good != spread.rows().end() && good->stats && good->stats->mean / 100 < config.slo.target) {
                printErr(QStringLiteral("tokenbench-cli run: SLO not met: mean good fraction %1 < target %2\n")
                             .arg(good->stats->mean / 100, 0, 'f', 4)
                             .arg(config.slo.target));
                exitCode = ExitSloMissed;
            }
        }
        QCoreApplication::quit();
    });

    QString error;
    if (!repeated.start(config, repeats, &error)) {
        printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(error));
        return runner.failureIsConfiguration() ? ExitUsage : ExitFailure;
    }

    SignalWatcher watcher;
    QObject::connect(&watcher, &SignalWatcher::terminationRequested, &repeated, [&](int, int count) {
        interrupted = true;
        if (count == 1) {
            printErr(QStringLiteral("\nstopping: cancelling the run in flight and saving what finished (Ctrl-C again "
                                    "to quit at once)\n"));
            repeated.stop();
        } else {
            std::_Exit(ExitInterrupted);
        }
    });
    const int loopExit = QCoreApplication::exec();
    return loopExit != 0 ? loopExit : exitCode;
}

} // namespace tb::cli
