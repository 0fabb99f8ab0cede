#include "cliparser.h"

#include <cstdio>

namespace tb::cli {

CliParser::CliParser(QString command, const QString &description)
    : m_command(std::move(command))
{
    m_parser.setApplicationDescription(description);
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    m_parser.addHelpOption();
}

void CliParser::addOption(const QCommandLineOption &option, Repeat repeat)
{
    m_parser.addOption(option);
    if (repeat == Repeat::Once && !option.valueName().isEmpty()) {
        for (const QString &name : option.names())
            m_singleValued.insert(name, option.names().first());
    }
}

void CliParser::addPositional(const QString &name, const QString &description, const QString &syntax)
{
    m_parser.addPositionalArgument(name, description, syntax);
}

std::optional<int> CliParser::parse(const QStringList &args)
{
    // QCommandLineParser treats args[0] as the program name; make the usage line read
    // "tokenbench-cli run [options]".
    QStringList full = args;
    if (full.isEmpty())
        full << m_command;
    full[0] = QStringLiteral("tokenbench-cli ") + m_command;
    if (!m_parser.parse(full))
        return usageError(m_parser.errorText());
    if (m_parser.isSet(QStringLiteral("help"))) {
        printOut(helpText());
        return ExitOk;
    }
    // optionNames() lists an option once per time it was given. The values are not echoed: one of
    // them may be a URL with credentials.
    QHash<QString, int> given;
    for (const QString &name : m_parser.optionNames()) {
        const auto option = m_singleValued.constFind(name);
        if (option != m_singleValued.cend() && ++given[*option] == 2)
            return usageError(QStringLiteral("--%1 is given more than once; it takes one value").arg(*option));
    }
    return std::nullopt;
}

int CliParser::usageError(const QString &message) const
{
    printErr(QStringLiteral("tokenbench-cli %1: %2\nSee 'tokenbench-cli %1 --help'.\n").arg(m_command, message));
    return ExitUsage;
}

QString CliParser::helpText() const
{
    QString text = m_parser.helpText();
    // QCommandLineParser prints the binary path it was started with; show the command instead.
    const int firstNewline = text.indexOf(QLatin1Char('\n'));
    const QString firstLine = text.left(firstNewline);
    if (firstLine.startsWith(QStringLiteral("Usage: "))) {
        const int optionsAt = firstLine.indexOf(QLatin1Char(' '), 7);
        const QString rest = optionsAt > 0 ? firstLine.mid(optionsAt) : QString();
        text = QStringLiteral("Usage: tokenbench-cli ") + m_command + rest + text.mid(firstNewline);
    }
    return text;
}

void printOut(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

void printErr(const QString &text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
    std::fflush(stderr);
}

} // namespace tb::cli
