#include "cliparser.h"
#include "commands.h"

namespace tb::cli {

int simCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("sim"), QStringLiteral("Start the built-in simulated LLM server in the foreground."));
    if (const auto exit = cli.parse(args))
        return *exit;
    printErr(QStringLiteral("tokenbench-cli sim: ") + QStringLiteral("not available in this build yet\n\n") + cli.helpText());
    return ExitFailure;
}

} // namespace tb::cli
