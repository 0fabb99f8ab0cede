// tokenbench-cli: the headless front end. Links tokenbench_core only (no QtGui/QtWidgets).
#include "cliparser.h"
#include "commands.h"

#include "tokenbench/version.h"

#include <QCoreApplication>

#include <algorithm>
#include <array>

using namespace tb::cli;

namespace {

struct Command {
    const char *name;
    const char *summary;
    int (*entry)(const QStringList &);
};

constexpr std::array kCommands{
    Command{"run", "run a benchmark and write a run directory", &runCommand},
    Command{"sim", "start the built-in simulated LLM server", &simCommand},
    Command{"compare", "side-by-side table of saved runs", &compareCommand},
    Command{"report", "self-contained HTML report of saved runs", &reportCommand},
    Command{"merge", "merge the run directories of a sharded run", &mergeCommand},
    Command{"export-trace", "a saved run's request timelines for Perfetto", &exportTraceCommand},
    Command{"export-report", "a saved run as an llm-d Benchmark Report", &exportReportCommand},
    Command{"import", "other tools' result files as run directories", &importCommand},
};

QString usage()
{
    QString text = QStringLiteral("Usage: tokenbench-cli <command> [options]\n\n"
                                  "Load-testing workbench for LLM inference APIs (headless).\n\n"
                                  "Commands:\n");
    int width = 0;
    for (const Command &c : kCommands)
        width = std::max(width, int(qstrlen(c.name)));
    for (const Command &c : kCommands)
        text += QStringLiteral("  %1  %2\n").arg(QLatin1String(c.name), -width).arg(QLatin1String(c.summary));
    text += QStringLiteral("\nOptions:\n"
                           "  -h, --help     show this help\n"
                           "  -V, --version  show the version\n\n"
                           "'tokenbench-cli <command> --help' describes a command's options.\n");
    return text;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("tokenbench-cli"));
    QCoreApplication::setOrganizationName(QStringLiteral("TokenBench"));
    QCoreApplication::setApplicationVersion(tb::version());

    const QStringList args = QCoreApplication::arguments();
    if (args.size() < 2) {
        printErr(usage());
        return ExitUsage;
    }
    const QString &first = args.at(1);
    if (first == QLatin1String("-h") || first == QLatin1String("--help") || first == QLatin1String("help")) {
        printOut(usage());
        return ExitOk;
    }
    if (first == QLatin1String("-V") || first == QLatin1String("--version")) {
        printOut(tb::versionBanner() + QLatin1Char('\n'));
        return ExitOk;
    }
    for (const Command &c : kCommands) {
        if (first == QLatin1String(c.name))
            return c.entry(args.mid(1));
    }
    QStringList names;
    for (const Command &c : kCommands)
        names << QLatin1String(c.name);
    if (first.startsWith(QLatin1Char('-')))
        printErr(QStringLiteral("tokenbench-cli: unknown option '%1' (expected a command first: %2)\n"
                                "See 'tokenbench-cli --help'.\n")
                     .arg(first, names.join(QStringLiteral(", "))));
    else
        printErr(QStringLiteral("tokenbench-cli: unknown command '%1' (commands: %2)\n"
                                "See 'tokenbench-cli --help'.\n")
                     .arg(first, names.join(QStringLiteral(", "))));
    return ExitUsage;
}
