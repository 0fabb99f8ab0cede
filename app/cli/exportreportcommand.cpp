#include "cliparser.h"
#include "commands.h"

#include "config/outputfile.h"
#include "config/runconfig.h"
#include "results/llmdreport.h"
#include "results/rundirectory.h"

#include <QDir>
#include <QFileInfo>

namespace tb::cli {

int exportReportCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("export-report"),
                  QStringLiteral("Write a saved run in another tool's format; --format llm-d (the one so far): an "
                                 "llm-d Benchmark Report (schema v0.2, llm-d-benchmark's "
                                 "benchmark_report): the load, the model and the target's address (never a key), "
                                 "request counts, prompt and reply lengths, TTFT, TPOT, ITL and E2E statistics in ms "
                                 "and the throughputs of the whole run. The report is JSON, which llm-d's tools read "
                                 "as they read YAML; 'import' reads it back (docs/output-files.md)."));
    cli.addPositional(QStringLiteral("DIR"), QStringLiteral("a run directory"), QStringLiteral("DIR"));
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("The report file to write (required)."),
                                 QStringLiteral("FILE.json"));
    cli.addOption(out);
    const QCommandLineOption format(QStringLiteral("format"),
                                    QStringLiteral("The report's format: llm-d (the llm-d Benchmark Report v0.2; the "
                                                   "default)."),
                                    QStringLiteral("llm-d"), QStringLiteral("llm-d"));
    cli.addOption(format);
    if (const auto exit = cli.parse(args))
        return *exit;
    const QStringList directories = cli.parser().positionalArguments();
    if (directories.size() != 1)
        return cli.usageError(
            QStringLiteral("name one run directory, e.g. export-report runs/x --format llm-d --out x.llmd.json"));
    if (cli.parser().value(format) != QLatin1String("llm-d"))
        return cli.usageError(
            QStringLiteral("--format: '%1' is not a report format (accepted: llm-d)").arg(cli.parser().value(format)));
    if (!cli.parser().isSet(out) || cli.parser().value(out).isEmpty())
        return cli.usageError(QStringLiteral("--out: name the report file to write, e.g. --out x.llmd.json"));
    QString error;
    const auto run = RunReader::load(withHomeExpanded(directories.first()), &error, RunReader::SummaryOnly);
    if (!run) {
        printErr(QStringLiteral("tokenbench-cli export-report: %1\n").arg(error));
        return ExitUsage;
    }
    const QString path = withHomeExpanded(cli.parser().value(out));
    const std::string report = LlmdReport::fromRun(*run).dump(2) + '\n';
    if (!writeFileAtomically(path, report, &error)) {
        printErr(QStringLiteral("tokenbench-cli export-report: cannot write %1: %2\n")
                     .arg(QDir::toNativeSeparators(path), error));
        return ExitFailure;
    }
    printOut(QStringLiteral("Wrote %1 (llm-d Benchmark Report v%2: %3 requests)\n")
                 .arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()), QLatin1String(LlmdReport::kVersion))
                 .arg(run->summary.total.requests.attempted));
    return ExitOk;
}

} // namespace tb::cli
