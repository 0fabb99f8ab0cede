#include "cliparser.h"
#include "commands.h"

namespace tb::cli {

int reportCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("report"), QStringLiteral("Write a self-contained HTML report of saved runs."));
    if (const auto exit = cli.parse(args))
        return *exit;
    printErr(QStringLiteral("tokenbench-cli report: ") + QStringLiteral("not available in this build yet\n\n") + cli.helpText());
    return ExitFailure;
}

} // namespace tb::cli
