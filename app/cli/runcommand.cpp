#include "cliparser.h"
#include "commands.h"

namespace tb::cli {

int runCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("run"), QStringLiteral("Run a benchmark against an LLM API and write a run directory."));
    if (const auto exit = cli.parse(args))
        return *exit;
    printErr(QStringLiteral("tokenbench-cli run: ") + QStringLiteral("not available in this build yet\n\n") + cli.helpText());
    return ExitFailure;
}

} // namespace tb::cli
