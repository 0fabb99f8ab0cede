#include "cliparser.h"
#include "commands.h"

#include "results/comparison.h"
#include "results/rundirectory.h"

#include <QDir>
#include <QSaveFile>

namespace tb::cli {

int compareCommand(const QStringList &args)
{
    CliParser cli(
        QStringLiteral("compare"),
        QStringLiteral("Print a side-by-side table of saved runs: one column per run, the best value of each "
                       "metric marked with *, changes against a baseline run with a bootstrap noise test, and "
                       "warnings where the runs' workloads differ."));
    cli.addPositional(QStringLiteral("DIR"),
                      QStringLiteral("run directories written by 'tokenbench-cli run' or the GUI."),
                      QStringLiteral("DIR..."));
    const QCommandLineOption csv(QStringLiteral("csv"), QStringLiteral("Also save the table as CSV to <file>."),
                                 QStringLiteral("file"));
    const QCommandLineOption baseline(QStringLiteral("baseline"),
                                      QStringLiteral("Compare with run <n>, 1 being the first DIR (default 1)."),
                                      QStringLiteral("n"), QStringLiteral("1"));
    cli.addOption(csv);
    cli.addOption(baseline);
    if (const auto exit = cli.parse(args))
        return *exit;

    const QStringList dirs = cli.parser().positionalArguments();
    if (dirs.isEmpty())
        return cli.usageError(QStringLiteral("give at least one run directory"));
    bool isNumber = false;
    const int base = cli.parser().value(baseline).toInt(&isNumber);
    if (!isNumber || base < 1 || base > dirs.size())
        return cli.usageError(QStringLiteral("--baseline: '%1' is not a run number from 1 to %2")
                                  .arg(cli.parser().value(baseline))
                                  .arg(dirs.size()));

    std::vector<RunData> runs;
    for (const QString &dir : dirs) {
        QString error;
        auto data = RunReader::load(dir, &error, RunReader::Records);
        if (!data) {
            printErr(QStringLiteral("tokenbench-cli compare: %1\n").arg(error));
            return ExitUsage;
        }
        for (const QString &note : std::as_const(data->notes))
            printErr(QStringLiteral("tokenbench-cli compare: %1: %2\n").arg(QDir::toNativeSeparators(dir), note));
        runs.push_back(std::move(*data));
    }

    const ComparisonTable table(runs, base - 1);
    printOut(table.toText());
    if (cli.parser().isSet(csv)) {
        const QString path = cli.parser().value(csv);
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(table.toCsv()) < 0 || !file.commit()) {
            printErr(QStringLiteral("tokenbench-cli compare: cannot write %1: %2\n")
                         .arg(QDir::toNativeSeparators(path), file.errorString()));
            return ExitFailure;
        }
    }
    return ExitOk;
}

} // namespace tb::cli
