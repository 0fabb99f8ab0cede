#include "cliparser.h"
#include "commands.h"

#include "config/runconfig.h"
#include "results/foreignruns.h"

#include <QDir>
#include <QFileInfo>

namespace tb::cli {

int importCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("import"),
                  QStringLiteral("Import other tools' result files as run directories: vLLM 'bench serve' result JSON "
                                 "(with or without --save-detailed), GuideLLM benchmarks.json (a run per benchmark), "
                                 "AIPerf profile_export.jsonl or profile_export_aiperf.json, an llm-d Benchmark Report "
                                 "(v0.2, JSON). Per-request values give "
                                 "TokenBench's own figures; a summary alone gives the tool's point values. Each run "
                                 "is marked imported, with the tool's definitions that differ from TokenBench's."));
    cli.addPositional(QStringLiteral("FILE"), QStringLiteral("the other tools' result files"),
                      QStringLiteral("FILE..."));
    const QCommandLineOption out(QStringLiteral("out"),
                                 QStringLiteral("The folder to write the run directories into, one per benchmark, "
                                                "named after the file (required)."),
                                 QStringLiteral("DIR"));
    cli.addOption(out);
    if (const auto exit = cli.parse(args))
        return *exit;
    const QStringList files = cli.parser().positionalArguments();
    if (files.isEmpty())
        return cli.usageError(QStringLiteral("name the files to import, e.g. import vllm-result.json --out runs"));
    if (!cli.parser().isSet(out) || cli.parser().value(out).isEmpty())
        return cli.usageError(QStringLiteral("--out: name the folder for the run directories, e.g. --out runs"));
    const QString folder = withHomeExpanded(cli.parser().value(out));

    QString error;
    bool readFailed = false;
    const auto imported = ForeignRuns::importInto(files, folder, &error, &readFailed);
    if (!imported) {
        printErr(QStringLiteral("tokenbench-cli import: %1\n").arg(error));
        return readFailed ? ExitUsage : ExitFailure;
    }
    for (const ForeignRuns::Imported &one : *imported) {
        const ImportedFrom &from = *one.run.summary.imported;
        printOut(QStringLiteral("Wrote %1 (imported from %2: %3 requests, %4)\n")
                     .arg(QDir::toNativeSeparators(QFileInfo(one.directory).absoluteFilePath()), from.text())
                     .arg(one.run.summary.total.requests.attempted)
                     .arg(from.perRequest
                              ? QStringLiteral("per-request values")
                              : QStringLiteral("point values only: ") + from.pointValues.join(QStringLiteral(", "))));
    }
    return ExitOk;
}

} // namespace tb::cli
