#include "cliparser.h"
#include "commands.h"
#include "findmaxcommand.h"
#include "repeatedrunconsole.h"
#include "runconsole.h"
#include "signalwatcher.h"

#include "analysis/tracetimeline.h"
#include "api/apidialect.h"
#include "api/modelslisting.h"
#include "config/configfield.h"
#include "config/flagreader.h"
#include "config/runconfig.h"
#include "config/sharding.h"
#include "net/targetaccess.h"
#include "platform/openfilelimit.h"
#include "results/runwriter.h"
#include "run/benchmarkrunner.h"
#include "run/repeatedrun.h"
#include "workload/runplan.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace tb::cli {

namespace {

QCommandLineOption flag(const QString &name, const QString &description, const QString &value = {})
{
    return value.isEmpty() ? QCommandLineOption(name, description) : QCommandLineOption(name, description, value);
}

/// "openai-chat (default) | openai-completions | …": every dialect, in ApiKind's order.
QString apiFlagHelp()
{
    QStringList names;
    for (const ApiDialect *dialect : apiDialects())
        names << dialect->name() + (dialect->kind() == TargetConfig().api ? QStringLiteral(" (default)") : QString());
    return names.join(QStringLiteral(" | ")) + QLatin1Char('.');
}

/// The target's context length from its /models listing (3 s at most, 1 MiB at most); 0 when it
/// reports none or does not answer, and the check before the run is skipped.
qint64 targetContextTokens(const TargetConfig &target)
{
    if (!dialectFor(target.api).listsContextLengths())
        return 0;
    QString base = target.url.trimmed();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(base + QStringLiteral("/models"), QUrl::StrictMode));
    if (!TargetAccess::prepare(nam, request, target, nullptr))
        return 0; // the run itself reports a proxy setting it cannot use
    request.setTransferTimeout(3000);
    const auto headers = RequestBuilder::targetHeaders(target, nullptr);
    if (!headers)
        return 0; // the run itself refuses them, saying why
    for (const auto &[name, value] : *headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = nam.get(request);
    reply->setReadBufferSize(1 << 20); // a larger listing stalls into the timeout
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const QByteArray body = reply->error() == QNetworkReply::NoError ? reply->readAll() : QByteArray();
    delete reply;
    return contextLengthFromModels(body, target.primaryModel()).value_or(0);
}

/// How far in the past a --start-at may lie (pods started a little late still join) and in the future.
constexpr qint64 kStartAtLateMs = 5000;
constexpr qint64 kStartAtAheadMs = 7LL * 24 * 3600 * 1000;
/// --metrics-linger's longest wait: an hour is many scrape intervals of any Prometheus.
constexpr qint64 kMaxMetricsLingerMs = 3600LL * 1000;

/// --shard K/N, or --shards N with K from JOB_COMPLETION_INDEX (what a Kubernetes Indexed Job sets).
bool shardFlags(FlagReader &f, ShardSpec &shard)
{
    if (f.isSet("shard") && f.isSet("shards"))
        return f.fail(QStringLiteral("--shard and --shards: choose one (--shards takes K from JOB_COMPLETION_INDEX)"));
    QString why;
    if (f.isSet("shard")) {
        const auto parsed = ShardSpec::parse(f.value("shard"), &why);
        if (!parsed)
            return f.fail(QStringLiteral("--shard: ") + why);
        shard = *parsed;
    }
    if (f.isSet("shards")) {
        int count = 0;
        if (!f.integer("shards", count, 1, ShardSpec::kMaxCount))
            return false;
        const QString index = qEnvironmentVariable("JOB_COMPLETION_INDEX");
        if (index.isEmpty())
            return f.fail(QStringLiteral("--shards: JOB_COMPLETION_INDEX is not set (a Kubernetes Indexed Job sets it; "
                                         "elsewhere use --shard K/N)"));
        const auto parsed = ShardSpec::parse(index + QLatin1Char('/') + QString::number(count), &why);
        if (!parsed)
            return f.fail(
                QStringLiteral("--shards %1: JOB_COMPLETION_INDEX is '%2'; expected a whole number from 0 to %3")
                    .arg(count)
                    .arg(index.left(20))
                    .arg(count - 1));
        shard = *parsed;
    }
    return true;
}

/// --start-at as an RFC 3339 time with its zone ("2026-05-01T10:00:00Z", "…+02:00").
bool startAtFlag(FlagReader &f, QDateTime &startAt)
{
    if (!f.isSet("start-at"))
        return true;
    static const QRegularExpression rfc3339(
        QStringLiteral("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$"),
        QRegularExpression::CaseInsensitiveOption);
    const QString text = f.value("start-at").trimmed();
    QString iso = text.toUpper();
    // Qt reads at most milliseconds: cut longer fractions (the wait is timer-precise anyway).
    static const QRegularExpression longFraction(QStringLiteral("(\\.\\d{3})\\d+"));
    iso.replace(longFraction, QStringLiteral("\\1"));
    startAt = rfc3339.match(text).hasMatch() ? QDateTime::fromString(iso, Qt::ISODateWithMs) : QDateTime();
    if (!startAt.isValid())
        return f.fail(QStringLiteral("--start-at: '%1' is not an RFC 3339 time with a zone (e.g. 2026-05-01T10:00:00Z)")
                          .arg(text.left(40)));
    const qint64 inMs = QDateTime::currentDateTimeUtc().msecsTo(startAt);
    if (inMs < -kStartAtLateMs)
        return f.fail(
            QStringLiteral("--start-at: %1 is %2 s in the past; give a time ahead of now").arg(text).arg(-inMs / 1000));
    if (inMs > kStartAtAheadMs)
        return f.fail(QStringLiteral("--start-at: %1 is more than 7 days ahead").arg(text));
    return true;
}

/// What --dry-run prints: the run as resolved, so a manifest's command line can be checked.
QString planText(const RunConfig &config, const RunPlan &plan, const QDateTime &startAt)
{
    QString text = QStringLiteral("dry run: configuration valid, nothing sent\n");
    text += QStringLiteral("  target    %1 @ %2 (%3)\n")
                .arg(config.target.model, config.target.instanceUrls().join(QStringLiteral(", ")),
                     apiKindName(config.target.api));
    if (plan.shard.isSharded())
        text += QStringLiteral("  shard     %1 of %2 (request ids %3, %4, …; arrival seed %5)\n")
                    .arg(plan.shard.index)
                    .arg(plan.shard.count)
                    .arg(shardRequestId(1, plan.shard))
                    .arg(shardRequestId(2, plan.shard))
                    .arg(shardArrivalSeed(plan.config.load.seed, plan.shard));
    for (const StageConfig &stage : plan.stages) {
        const QString level = stage.mode == LoadMode::Rate ? QStringLiteral("%1 requests/s").arg(stage.level)
                                                           : QStringLiteral("%1 users").arg(stage.level);
        QStringList ends;
        if (stage.durationMs > 0)
            ends << formatDuration(stage.durationMs);
        if (stage.requests > 0)
            ends << QStringLiteral("%1 requests").arg(stage.requests);
        text +=
            QStringLiteral("  stage     %1: %2, until %3\n").arg(stage.name, level, ends.join(QStringLiteral(" or ")));
    }
    text += QStringLiteral("  start     %1\n")
                .arg(startAt.isValid() ? startAt.toUTC().toString(Qt::ISODateWithMs) : QStringLiteral("now"));
    text += QStringLiteral("  out       %1\n")
                .arg(config.outDir.isEmpty() ? QStringLiteral("(default: runs/<time>-<model>)") : config.outDir);
    return text;
}

void addRunOptions(CliParser &cli)
{
    QList<QCommandLineOption> options{
        flag(QStringLiteral("config"), QStringLiteral("Run configuration (the JSON the GUI saves); flags override it."),
             QStringLiteral("FILE.json")),
    };
    // The configuration's own flags, from its table (config/configfield.h).
    options << configOptions();
    // The table's --api help is fixed text (config ranks below api/): the list of dialects is api/'s.
    for (QCommandLineOption &option : options) {
        if (option.names().contains(QStringLiteral("api")))
            option = flag(QStringLiteral("api"), apiFlagHelp(), QStringLiteral("API"));
    }
    options << QList<QCommandLineOption>{
        flag(QStringLiteral("metrics-listen"),
             QStringLiteral("Serve TokenBench's own figures as OpenMetrics at http://ADDR:PORT/metrics during the run "
                            "(requests, tokens, in flight, TTFT/ITL/E2E histograms by stage), e.g. 127.0.0.1:9464."),
             QStringLiteral("ADDR:PORT")),
        flag(QStringLiteral("metrics-linger"),
             QStringLiteral("With --metrics-listen: after the run, keep serving its final figures for D (e.g. 30s, "
                            "two of Prometheus' scrape intervals) before exiting, so a scraper sees its end; "
                            "Ctrl-C ends the wait with the run's exit code."),
             QStringLiteral("D")),
        flag(QStringLiteral("force"),
             QStringLiteral("Write into a non-empty --out directory, replacing the run files there.")),
        flag(QStringLiteral("workers"), QStringLiteral("Transport threads (default: one per core, at least 2)."),
             QStringLiteral("N")),
        flag(QStringLiteral("quiet"), QStringLiteral("No progress on stderr.")),
        flag(QStringLiteral("trace-out"),
             QStringLiteral("When the run ends, also write its request timelines as Chrome trace JSON for "
                            "ui.perfetto.dev (as export-trace does from the run directory)."),
             QStringLiteral("FILE.json")),
        flag(QStringLiteral("shard"),
             QStringLiteral("Run shard K of N (0 ≤ K < N): users, rates and request counts are split exactly over "
                            "the shards, prompts never repeat between them; 'merge' joins their run directories."),
             QStringLiteral("K/N")),
        flag(QStringLiteral("shards"),
             QStringLiteral("Like --shard, with K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)."),
             QStringLiteral("N")),
        flag(QStringLiteral("start-at"),
             QStringLiteral("Wait until this RFC 3339 time (e.g. 2026-05-01T10:00:00Z), so shards start together."),
             QStringLiteral("TIME")),
        flag(QStringLiteral("dry-run"),
             QStringLiteral("Check the configuration and print the resolved plan; send nothing (exit 0 or 2).")),
        flag(QStringLiteral("find-max"),
             QStringLiteral("Search for the most users (c) or requests/s (r) whose good fraction meets --slo-target "
                            "(needs --slo): levels double from START while they pass, then bisect (default "
                            "c=1..1024, r=1..1000); each level is its own run in --out, with search.json."),
             QStringLiteral("c|r[=START..MAX]")),
        flag(QStringLiteral("repeat"),
             QStringLiteral("Run the configuration N times (2-100) one after another, each with a fresh prompt salt, "
                            "into OUT/run-01 … OUT/run-NN, then OUT/repeats.json: the headline metrics' spread and "
                            "95% confidence intervals."),
             QStringLiteral("N")),
    };
    // Several --url are instances of one model, several --header several headers; any other flag
    // given twice is refused rather than its last value taken.
    const QStringList repeatable{QStringLiteral("url"), QStringLiteral("header")};
    for (const QCommandLineOption &o : std::as_const(options))
        cli.addOption(o, repeatable.contains(o.names().first()) ? CliParser::Repeat::Many : CliParser::Repeat::Once);
}

} // namespace

int runCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("run"),
                  QStringLiteral("Run a benchmark against an LLM API and write a run directory.\n"
                                 "Progress goes to stderr, the summary table to stdout.\n"
                                 "Exit codes: 0 ok, 1 runtime failure (or every request failed), "
                                 "2 bad usage/config, 3 SLO not met, 130 interrupted (SIGINT/SIGTERM; the run "
                                 "is saved).\n"
                                 "A flag that takes a value is given once; --url and --header repeat."));
    addRunOptions(cli);
    if (const auto exit = cli.parse(args))
        return *exit;
    QCommandLineParser &p = cli.parser();
    if (!p.positionalArguments().isEmpty())
        return cli.usageError(QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().first()));

    RunConfig config;
    if (p.isSet(QStringLiteral("config"))) {
        QString error;
        const auto loaded = loadRunConfig(p.value(QStringLiteral("config")), &error);
        if (!loaded)
            return cli.usageError(QStringLiteral("--config: ") + error);
        config = *loaded;
    }
    if (QString error; !applyConfigFlags(p, config, &error))
        return cli.usageError(error);
    FlagReader flags(p);
    int workers = 0;
    ShardSpec shard;
    QDateTime startAt;
    qint64 lingerMs = 0;
    if (!flags.integer("workers", workers, 1, limits::kMaxWorkers) || !shardFlags(flags, shard) ||
        !startAtFlag(flags, startAt) || !flags.duration("metrics-linger", lingerMs))
        return cli.usageError(flags.error());
    if (lingerMs > kMaxMetricsLingerMs)
        return cli.usageError(QStringLiteral("--metrics-linger: at most %1").arg(formatDuration(kMaxMetricsLingerMs)));
    if (lingerMs > 0 && !p.isSet(QStringLiteral("metrics-listen")))
        return cli.usageError(QStringLiteral("--metrics-linger: nothing to serve without --metrics-listen"));
    if (lingerMs > 0 && (p.isSet(QStringLiteral("find-max")) || flags.isSet("repeat")))
        return cli.usageError(QStringLiteral("--metrics-linger: for a single run, not with --find-max or --repeat"));
    // Before the limits are checked: allow what the system allows (the soft limit is often 1024).
    raiseOpenFileLimit();
    if (const QString files = checkOpenFiles(config, workers); workers > 0 && !files.isEmpty())
        return cli.usageError(QStringLiteral("--workers: ") + files);

    const bool freshSalt = shard.isSharded() && config.prompt.salt.isEmpty();
    if (freshSalt) {
        // One run in N processes: every shard needs the same salt (merge checks the configurations
        // agree), and a fresh one per sharded run. The start time the shards share serves for
        // that; without --start-at the shards' common configuration alone decides it.
        RunConfig common = config;
        common.outDir.clear(); // each shard writes its own directory
        const QByteArray basis =
            toJson(common).dump().c_str() +
            (startAt.isValid() ? startAt.toUTC().toString(Qt::ISODateWithMs).toUtf8() : QByteArray());
        config.prompt.salt =
            QString::fromLatin1(QCryptographicHash::hash(basis, QCryptographicHash::Sha256).toHex().left(16));
    }

    const bool force = p.isSet(QStringLiteral("force"));
    if (!force && !config.outDir.isEmpty()) {
        if (const QString why = RunWriter::occupied(config.outDir); !why.isEmpty())
            return cli.usageError(
                QStringLiteral("out (--out): %1; choose a new directory, or --force to write into it").arg(why));
    }

    const QString traceOut = withHomeExpanded(p.value(QStringLiteral("trace-out")));
    if (p.isSet(QStringLiteral("trace-out")) && traceOut.isEmpty())
        return cli.usageError(QStringLiteral("--trace-out: name the trace file to write, e.g. --trace-out run.json"));
    if (!traceOut.isEmpty() && (p.isSet(QStringLiteral("find-max")) || flags.isSet("repeat")))
        return cli.usageError(QStringLiteral("--trace-out: one run's timelines; with --find-max or --repeat, export "
                                             "each run's with export-trace DIR --out FILE"));

    if (p.isSet(QStringLiteral("find-max")) && flags.isSet("repeat"))
        return cli.usageError(QStringLiteral("--find-max and --repeat: one at a time (a search judges noise itself, "
                                             "repeating a level whose verdict is within it)"));
    if (p.isSet(QStringLiteral("find-max")))
        return findMaxCommand(cli, config, workers, force);
    if (flags.isSet("repeat")) {
        int repeats = 0;
        if (!flags.integer("repeat", repeats, RepeatedRun::kMinRepeats, RepeatedRun::kMaxRepeats))
            return cli.usageError(flags.error());
        if (shard.isSharded() || startAt.isValid() || p.isSet(QStringLiteral("dry-run")))
            return cli.usageError(QStringLiteral("--repeat: not with --shard, --shards, --start-at or --dry-run"));
        if (!config.prompt.salt.isEmpty())
            return cli.usageError(QStringLiteral("--repeat: each run makes its own prompt salt; leave --prompt-salt "
                                                 "(prompt.salt) out"));
        RepeatSettings settings{workers, force, !p.isSet(QStringLiteral("quiet")),
                                p.value(QStringLiteral("metrics-listen")), 0};
        if (!config.prompt.promptFile.isEmpty() || !config.prompt.dataset.isEmpty() || !config.load.trace.isEmpty())
            settings.contextTokens = targetContextTokens(config.target);
        return runRepeated(config, repeats, settings);
    }

    const qint64 waitMs = startAt.isValid() ? QDateTime::currentDateTimeUtc().msecsTo(startAt) : 0;
    if (p.isSet(QStringLiteral("dry-run")) || waitMs > 0) {
        // Resolved now (the runner does it again at the start), so a bad configuration fails at
        // once rather than at the start time.
        QString why;
        RunConfig share = config;
        const auto load = shardLoad(config.load, shard, &why);
        if (!load)
            return cli.usageError(QStringLiteral("--shard %1: %2").arg(shard.text(), why));
        share.load = *load;
        const auto plan = RunPlan::create(share, {share.target}, &why, shard);
        if (!plan) {
            printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(why));
            return ExitUsage;
        }
        if (p.isSet(QStringLiteral("dry-run"))) {
            printOut(planText(share, *plan, startAt));
            return ExitOk;
        }
    }

    RunConsole console(config, !p.isSet(QStringLiteral("quiet")));
    BenchmarkRunner runner;
    runner.setWorkerThreads(workers);
    runner.setReplaceExisting(force);
    runner.setShard(shard);
    runner.setFreshSalt(freshSalt);
    runner.setMetricsListen(p.value(QStringLiteral("metrics-listen")));
    int exitCode = ExitOk;
    // Only a workload file's sizes are unknown to the user; a synthetic prompt's are given.
    if (!config.prompt.promptFile.isEmpty() || !config.prompt.dataset.isEmpty() || !config.load.trace.isEmpty())
        runner.setContextTokens(targetContextTokens(config.target));
    const auto start = [&]() {
        QString error;
        if (!runner.start(config, &error)) {
            printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(error));
            exitCode = runner.failureIsConfiguration() ? ExitUsage : ExitFailure;
            return false;
        }
        for (const QString &warning : runner.info().preRunWarnings)
            printErr(QStringLiteral("warning: %1\n").arg(warning));
        console.attach(&runner);
        if (!runner.metricsUrl().isEmpty() && !p.isSet(QStringLiteral("quiet")))
            printErr(QStringLiteral("metrics for Prometheus: %1\n").arg(runner.metricsUrl()));
        return true;
    };
    QTimer startTimer;
    if (waitMs > 0) {
        if (!p.isSet(QStringLiteral("quiet")))
            printErr(QStringLiteral("waiting until %1 (%2 s) to start\n")
                         .arg(startAt.toUTC().toString(Qt::ISODateWithMs))
                         .arg(waitMs / 1000.0, 0, 'f', 1));
        startTimer.setSingleShot(true);
        startTimer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&startTimer, &QTimer::timeout, &runner, [&] {
            if (!start())
                QCoreApplication::exit(exitCode);
        });
        startTimer.start(int(waitMs));
    } else if (!start()) {
        return exitCode;
    }

    SignalWatcher watcher;
    bool interrupted = false;
    bool lingering = false;
    QObject::connect(&watcher, &SignalWatcher::terminationRequested, &runner, [&](int, int count) {
        if (lingering) { // the run is saved and its exit code decided: the wait is only for scrapers
            QCoreApplication::quit();
            return;
        }
        interrupted = true;
        if (!runner.isRunning()) { // still waiting for --start-at: nothing to save
            QCoreApplication::exit(ExitInterrupted);
            return;
        }
        if (count == 1) {
            printErr(QStringLiteral(
                "\nstopping: cancelling requests in flight and saving results (Ctrl-C again to quit at once)\n"));
            runner.stop();
        } else {
            std::_Exit(ExitInterrupted);
        }
    });
    QObject::connect(&runner, &BenchmarkRunner::runFinished, &runner, [&](const RunOutcome &outcome) {
        exitCode = console.finish(outcome, interrupted);
        if (lingering)
            return; // a second target's outcome: the wait has begun
        if (!traceOut.isEmpty() && !outcome.directory.isEmpty()) {
            // From the directory just written: the same trace export-trace makes of it later.
            QString error;
            TraceTimeline::Stats stats;
            if (TraceTimeline::write(outcome.directory, traceOut, &error, TraceTimeline::kLimits, &stats)) {
                if (!p.isSet(QStringLiteral("quiet")))
                    printErr(traceWrittenText(traceOut, stats));
            } else {
                printErr(QStringLiteral("tokenbench-cli run: --trace-out: %1\n").arg(error));
                if (exitCode == ExitOk)
                    exitCode = ExitFailure;
            }
        }
        // The endpoint goes with the process: without the wait, a scraper polling every N s misses
        // up to N s of the run's end, its last counts and latencies.
        if (lingerMs > 0 && !interrupted) {
            lingering = true;
            if (!p.isSet(QStringLiteral("quiet")))
                printErr(QStringLiteral("serving the final figures at %1 for %2 (Ctrl-C ends the wait)\n")
                             .arg(runner.metricsUrl(), formatDuration(lingerMs)));
            QTimer::singleShot(std::chrono::milliseconds(lingerMs), &runner, [] { QCoreApplication::quit(); });
            return;
        }
        QCoreApplication::quit();
    });
    const int loopExit = QCoreApplication::exec();
    return loopExit != 0 ? loopExit : exitCode;
}

} // namespace tb::cli
