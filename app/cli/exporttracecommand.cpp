#include "cliparser.h"
#include "commands.h"

#include "analysis/tracetimeline.h"
#include "config/outputfile.h"
#include "config/runconfig.h"

#include <QDir>
#include <QFileInfo>

namespace tb::cli {

QString traceWrittenText(const QString &path, const TraceTimeline::Stats &stats)
{
    QString text = QStringLiteral("Wrote %1 (%2 requests, %3 chunk instants, %4 MB")
                       .arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()))
                       .arg(stats.requests)
                       .arg(stats.chunkInstants)
                       .arg(double(stats.bytes) / 1e6, 0, 'f', 1);
    if (stats.leftOut > 0)
        text += QStringLiteral("; %1 requests after the first %2 left out").arg(stats.leftOut).arg(stats.requests);
    return text + QStringLiteral(")\n");
}

int exportTraceCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("export-trace"),
                  QStringLiteral("Write a saved run's request timelines as Chrome trace event JSON, for "
                                 "ui.perfetto.dev or chrome://tracing: a track per connection of each instance and "
                                 "per virtual user, a slice per request with its phases (wait, connect, TLS, send, "
                                 "TTFB, first token, decode), an instant per streamed chunk, and counters of the "
                                 "requests in flight and output tokens/s. At most 200000 requests (the first by id) "
                                 "and 250000 chunk instants (docs/output-files.md)."));
    cli.addPositional(QStringLiteral("DIR"), QStringLiteral("a run directory"), QStringLiteral("DIR"));
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("The trace file to write (required)."),
                                 QStringLiteral("FILE.json"));
    cli.addOption(out);
    if (const auto exit = cli.parse(args))
        return *exit;
    const QStringList directories = cli.parser().positionalArguments();
    if (directories.size() != 1)
        return cli.usageError(QStringLiteral("name one run directory, e.g. export-trace runs/x --out x.trace.json"));
    if (!cli.parser().isSet(out) || cli.parser().value(out).isEmpty())
        return cli.usageError(QStringLiteral("--out: name the trace file to write, e.g. --out x.trace.json"));
    QString error;
    TraceTimeline::Stats stats;
    const auto trace =
        TraceTimeline::fromDirectory(withHomeExpanded(directories.first()), &error, TraceTimeline::kLimits, &stats);
    if (!trace) {
        printErr(QStringLiteral("tokenbench-cli export-trace: %1\n").arg(error));
        return ExitUsage;
    }
    const QString path = withHomeExpanded(cli.parser().value(out));
    if (!writeFileAtomically(path, *trace, &error)) {
        printErr(QStringLiteral("tokenbench-cli export-trace: cannot write %1: %2\n")
                     .arg(QDir::toNativeSeparators(path), error));
        return ExitFailure;
    }
    printOut(traceWrittenText(path, stats));
    return ExitOk;
}

} // namespace tb::cli
