#include "findmaxcommand.h"

#include "signalwatcher.h"

#include "run/limitsearch.h"

#include <QCoreApplication>
#include <QDir>

namespace tb::cli {

int findMaxCommand(CliParser &cli, const RunConfig &config, int workers, bool force)
{
    const QCommandLineParser &p = cli.parser();
    // The search sets the level and runs the levels itself, one after another, on this machine.
    for (const char *moot :
         {"concurrency", "rate", "stages", "sweep", "trace", "shard", "shards", "start-at", "dry-run"}) {
        if (p.isSet(QLatin1String(moot)))
            return cli.usageError(QStringLiteral("--find-max and --%1: choose one (the search sets the level of each "
                                                 "of its runs and runs them in turn)")
                                      .arg(QLatin1String(moot)));
    }
    QString why;
    const auto spec = LimitSearchSpec::parse(p.value(QStringLiteral("find-max")), &why);
    if (!spec)
        return cli.usageError(QStringLiteral("--find-max: ") + why);

    const bool quiet = p.isSet(QStringLiteral("quiet"));
    LimitSearch search;
    search.runner()->setWorkerThreads(workers);
    search.runner()->setReplaceExisting(force);
    search.runner()->setMetricsListen(p.value(QStringLiteral("metrics-listen")));
    QObject::connect(&search, &LimitSearch::searchStarted, &search, [quiet](const QString &directory) {
        if (!quiet)
            printErr(QStringLiteral("search directory: %1\n").arg(QDir::toNativeSeparators(directory)));
    });
    QObject::connect(&search, &LimitSearch::levelRunStarted, &search,
                     [&search, quiet](double level, int run, const QString &directory) {
                         if (!quiet)
                             printErr(QStringLiteral("%1%2: running (%3)\n")
                                          .arg(search.plan()->spec().levelName(level),
                                               run > 1 ? QStringLiteral(", run %1").arg(run) : QString(),
                                               QDir::toNativeSeparators(directory)));
                     });
    QObject::connect(&search, &LimitSearch::levelRunFinished, &search, [&search](const SearchLevel &level) {
        printOut(search.plan()->levelLine(level) + QLatin1Char('\n'));
    });
    QObject::connect(&search, &LimitSearch::searchFinished, &search, [] { QCoreApplication::quit(); });
    if (!search.start(config, *spec, &why)) {
        printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(why));
        return search.failureIsConfiguration() ? ExitUsage : ExitFailure;
    }

    SignalWatcher watcher;
    QObject::connect(&watcher, &SignalWatcher::terminationRequested, &search, [&search](int, int count) {
        if (count > 1)
            std::_Exit(ExitInterrupted);
        printErr(QStringLiteral("\nstopping: ending the level in flight and saving search.json (Ctrl-C again to quit "
                                "at once)\n"));
        search.stop();
    });
    QCoreApplication::exec();

    const LimitSearchPlan &plan = *search.plan();
    printOut(plan.answerLine() + QLatin1Char('\n'));
    const std::size_t levels = plan.levels().size();
    printOut(QStringLiteral("stopped: %1 (%2 %3)\nsearch directory: %4\n")
                 .arg(plan.stopText())
                 .arg(levels)
                 .arg(levels == 1 ? QStringLiteral("level") : QStringLiteral("levels"),
                      QDir::toNativeSeparators(search.directory())));
    switch (plan.stopReason()) {
    case SearchStop::Stopped:
        return ExitInterrupted;
    case SearchStop::Error:
        return ExitFailure;
    case SearchStop::FirstLevelFails:
        return config.slo.failOnSlo ? ExitSloMissed : ExitOk;
    default:
        return ExitOk;
    }
}

} // namespace tb::cli
