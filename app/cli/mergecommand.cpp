#include "cliparser.h"
#include "commands.h"

#include "config/runconfig.h"
#include "results/runmerge.h"

#include <QDir>
#include <QFileInfo>

namespace tb::cli {

int mergeCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("merge"),
                  QStringLiteral("Merge the run directories of a sharded run (run --shard K/N or --shards N) into one "
                                 "ordinary run directory: requests aligned on the shards' wall-clock origins and "
                                 "aggregated again as one run (exact counts, token sums and percentiles), requests.csv "
                                 "with a shard column. Shards of different runs, a repeated or missing shard index "
                                 "and repeated request ids are refused."));
    cli.addPositional(QStringLiteral("DIR"), QStringLiteral("the shards' run directories"), QStringLiteral("DIR..."));
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("The merged run directory to write (required)."),
                                 QStringLiteral("DIR"));
    cli.addOption(out);
    if (const auto exit = cli.parse(args))
        return *exit;
    const QStringList directories = cli.parser().positionalArguments();
    if (directories.isEmpty())
        return cli.usageError(
            QStringLiteral("name the shards' run directories, e.g. merge runs/shard-0 runs/shard-1 --out runs/merged"));
    if (!cli.parser().isSet(out) || cli.parser().value(out).isEmpty())
        return cli.usageError(QStringLiteral("--out: name the merged run directory, e.g. --out runs/merged"));
    const QString outDir = withHomeExpanded(cli.parser().value(out));
    QString error;
    bool refused = false;
    QStringList notes;
    const bool merged = RunMerger::merge(directories, outDir, &error, &refused, &notes);
    for (const QString &note : std::as_const(notes))
        printErr(QStringLiteral("tokenbench-cli merge: %1\n").arg(note));
    if (!merged) {
        printErr(QStringLiteral("tokenbench-cli merge: %1\n").arg(error));
        return refused ? ExitUsage : ExitFailure;
    }
    printOut(QStringLiteral("Wrote %1 (merged from %2 shards)\n")
                 .arg(QDir::toNativeSeparators(QFileInfo(outDir).absoluteFilePath()))
                 .arg(directories.size()));
    return ExitOk;
}

} // namespace tb::cli
