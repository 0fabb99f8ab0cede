#include "savedruns.h"

#include "analysis/comparison.h"
#include "analysis/runspread.h"
#include "results/loadedruns.h"

#include <QDir>

namespace tb::cli {

void addSavedRunsArgument(CliParser &cli)
{
    cli.addPositional(QStringLiteral("DIR"),
                      QStringLiteral("run directories written by 'tokenbench-cli run' or the GUI, comparison "
                                     "session directories (their runs, in order), or other tools' result files "
                                     "(imported on the fly, as 'tokenbench-cli import' reads them)."),
                      QStringLiteral("DIR..."));
}

QCommandLineOption baselineOption()
{
    return QCommandLineOption(QStringLiteral("baseline"),
                              QStringLiteral("Compare with run <n>, 1 being the first run (default 1)."),
                              QStringLiteral("n"), QStringLiteral("1"));
}

std::optional<SavedRuns> loadSavedRuns(CliParser &cli, const QCommandLineOption &baseline, int *exitCode)
{
    const auto fail = [&](const QString &message) -> std::optional<SavedRuns> {
        printErr(QStringLiteral("tokenbench-cli %1: %2\n").arg(cli.command(), message));
        *exitCode = ExitUsage;
        return std::nullopt;
    };
    const QStringList arguments = cli.parser().positionalArguments();
    if (arguments.isEmpty()) {
        *exitCode = cli.usageError(QStringLiteral("give at least one run directory"));
        return std::nullopt;
    }
    QStringList directories;
    QStringList repeatDirectories;
    for (const QString &argument : arguments) {
        if (!repeatfile::isRepeatDirectory(argument)) {
            directories << argument;
            continue;
        }
        QString why;
        const auto runs = repeatfile::runDirectories(argument, &why);
        if (!runs)
            return fail(why);
        directories << *runs;
        repeatDirectories << argument;
    }
    LoadedRuns loaded = LoadedRuns::load(directories, LoadedRuns::Stop);
    for (const QString &note : std::as_const(loaded.notes))
        printErr(QStringLiteral("tokenbench-cli %1: %2\n").arg(cli.command(), note));
    for (const RunData &run : loaded.runs) {
        for (const QString &note : run.directoryNotes())
            printErr(QStringLiteral("tokenbench-cli %1: %2\n").arg(cli.command(), note));
    }
    if (!loaded.problems.isEmpty())
        return fail(loaded.problems.constFirst());

    SavedRuns saved;
    saved.runs = std::move(loaded.runs);
    saved.repeatDirectories = repeatDirectories;
    const QString balance = saved.runs.front().summary.balance;
    if (expandSingleRunInstances(saved.runs)) {
        printErr(QStringLiteral("tokenbench-cli %1: comparing the %2 instances of %3 (balance %4)\n")
                     .arg(cli.command())
                     .arg(saved.runs.size())
                     .arg(QDir::toNativeSeparators(saved.runs.front().directory), balance));
    } else if (expandSingleRunModels(saved.runs)) {
        printErr(QStringLiteral("tokenbench-cli %1: comparing the %2 models of %3\n")
                     .arg(cli.command())
                     .arg(saved.runs.size())
                     .arg(QDir::toNativeSeparators(saved.runs.front().directory)));
    }

    bool isNumber = false;
    const int base = cli.parser().value(baseline).toInt(&isNumber);
    if (!isNumber || base < 1 || base > int(saved.runs.size())) {
        *exitCode = cli.usageError(QStringLiteral("--baseline: '%1' is not a run number from 1 to %2")
                                       .arg(cli.parser().value(baseline))
                                       .arg(saved.runs.size()));
        return std::nullopt;
    }
    saved.baseline = base - 1;
    return saved;
}

} // namespace tb::cli
