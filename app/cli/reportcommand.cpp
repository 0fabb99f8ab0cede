#include "cliparser.h"
#include "commands.h"
#include "savedruns.h"

#include "analysis/htmlreport.h"
#include "analysis/runspread.h"

#include <QDir>
#include <QFileInfo>

namespace tb::cli {

int reportCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("report"),
                  QStringLiteral("Write a self-contained HTML report of saved runs: the comparison table (best "
                                 "values, changes against the baseline with a noise test), workload warnings, "
                                 "charts as inline SVG (latency CDFs, throughput over time, throughput-latency "
                                 "curves of staged runs) and each run's configuration. It opens offline in any "
                                 "browser and prints on A4."));
    addSavedRunsArgument(cli);
    const QCommandLineOption out(QStringLiteral("out"), QStringLiteral("The HTML file to write (required)."),
                                 QStringLiteral("file.html"));
    const QCommandLineOption title(QStringLiteral("title"),
                                   QStringLiteral("The report's title (default \"TokenBench comparison\")."),
                                   QStringLiteral("text"));
    const QCommandLineOption baseline = baselineOption();
    cli.addOption(out);
    cli.addOption(baseline);
    cli.addOption(title);
    if (const auto exit = cli.parse(args))
        return *exit;
    if (!cli.parser().isSet(out) || cli.parser().value(out).isEmpty())
        return cli.usageError(QStringLiteral("--out: name the HTML file to write, e.g. --out report.html"));

    int exitCode = ExitOk;
    const auto saved = loadSavedRuns(cli, baseline, &exitCode);
    if (!saved)
        return exitCode;

    HtmlReport::Options options;
    options.title = cli.parser().value(title);
    options.baseline = saved->baseline;
    for (const QString &directory : std::as_const(saved->repeatDirectories)) {
        QString why;
        auto spread = RunSpread::load(directory, &why);
        if (!spread) {
            printErr(QStringLiteral("tokenbench-cli report: %1\n").arg(why));
            return ExitUsage;
        }
        options.spreads.emplace_back(QDir(directory).dirName(), std::move(*spread));
    }
    const HtmlReport report(saved->runs, options);
    const QString path = cli.parser().value(out);
    QString error;
    if (!report.write(path, &error)) {
        printErr(QStringLiteral("tokenbench-cli report: %1\n").arg(error));
        return ExitFailure;
    }
    const auto count = [](std::size_t n, const char *what) {
        return QStringLiteral("%1 %2%3").arg(n).arg(QLatin1String(what), n == 1 ? QString() : QStringLiteral("s"));
    };
    printOut(QStringLiteral("Wrote %1 (%2, %3)\n")
                 .arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath()), count(saved->runs.size(), "run"),
                      count(std::size_t(report.charts().size()), "chart")));
    return ExitOk;
}

} // namespace tb::cli
