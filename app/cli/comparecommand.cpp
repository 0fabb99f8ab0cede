#include "cliparser.h"
#include "commands.h"
#include "savedruns.h"

#include "analysis/comparison.h"
#include "analysis/runspread.h"
#include "run/comparisonsession.h"

#include <QDir>
#include <QSaveFile>

#include <algorithm>

namespace tb::cli {

int compareCommand(const QStringList &args)
{
    CliParser cli(
        QStringLiteral("compare"),
        QStringLiteral("Print a side-by-side table of saved runs: one column per run, the best value of each "
                       "metric marked with *, changes against a baseline run with a bootstrap noise test, and "
                       "warnings where the runs' workloads differ. The runs of an interleaved session also get "
                       "paired per-request differences."));
    addSavedRunsArgument(cli);
    const QCommandLineOption csv(QStringLiteral("csv"), QStringLiteral("Also save the table as CSV to <file>."),
                                 QStringLiteral("file"));
    const QCommandLineOption baseline = baselineOption();
    cli.addOption(csv);
    cli.addOption(baseline);
    if (const auto exit = cli.parse(args))
        return *exit;

    // Repeated-run directories (run --repeat) are judged by their runs' spread.
    const QStringList arguments = cli.parser().positionalArguments();
    if (std::any_of(arguments.begin(), arguments.end(), repeatfile::isRepeatDirectory)) {
        if (arguments.size() != 2 || !std::all_of(arguments.begin(), arguments.end(), repeatfile::isRepeatDirectory))
            return cli.usageError(QStringLiteral("repeated-run directories (with repeats.json) compare two at a time, "
                                                 "with each other"));
        std::vector<RunSpread> spreads;
        QStringList labels;
        for (const QString &directory : arguments) {
            QString why;
            auto spread = RunSpread::load(directory, &why);
            if (!spread) {
                printErr(QStringLiteral("tokenbench-cli compare: %1\n").arg(why));
                return ExitUsage;
            }
            spreads.push_back(std::move(*spread));
            labels << QDir(directory).dirName();
        }
        printOut(RepeatComparison(spreads[0], spreads[1], labels).toText());
        return ExitOk;
    }

    int exitCode = ExitOk;
    const auto saved = loadSavedRuns(cli, baseline, &exitCode);
    if (!saved)
        return exitCode;

    const ComparisonTable table(saved->runs, saved->baseline);
    QString text = table.toText();
    if (isInterleavedSet(saved->runs)) {
        const PairedComparison paired(saved->runs, saved->baseline);
        if (paired.hasPairs())
            text += QLatin1Char('\n') + paired.toText();
    }
    QStringList knees;
    for (std::size_t i = 0; i < saved->runs.size(); ++i) {
        if (const auto knee = findKnee(saved->runs[i].summary))
            knees << QStringLiteral("  #%1 %2: %3").arg(i + 1).arg(table.labels()[qsizetype(i)], knee->text);
    }
    if (!knees.isEmpty())
        text += QStringLiteral("\nThroughput–latency knees (a stage gaining < %1% throughput over the best before it "
                               "is past the knee):\n%2\n")
                    .arg(Knee::kKneeGain * 100)
                    .arg(knees.join(QLatin1Char('\n')));
    printOut(text);
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
