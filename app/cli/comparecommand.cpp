#include "cliparser.h"
#include "commands.h"

namespace tb::cli {

int compareCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("compare"), QStringLiteral("Print a side-by-side table of saved runs."));
    if (const auto exit = cli.parse(args))
        return *exit;
    printErr(QStringLiteral("tokenbench-cli compare: ") + QStringLiteral("not available in this build yet\n\n") + cli.helpText());
    return ExitFailure;
}

} // namespace tb::cli
