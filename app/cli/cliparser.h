#pragma once

#include <QCommandLineParser>
#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

namespace tb::cli {

/// Exit codes fixed by docs/SPEC.md §1.
enum ExitCode : int {
    ExitOk = 0,
    ExitFailure = 1,
    ExitUsage = 2,
    ExitSloMissed = 3,
    ExitInterrupted = 130, ///< SIGINT or SIGTERM (128 + SIGINT, as shells report Ctrl-C)
};

/// QCommandLineParser for one subcommand, with TokenBench's conventions: `--help` prints usage to
/// stdout and exits 0; a parse error prints "tokenbench-cli CMD: <what>" plus a hint to stderr and
/// exits 2.
class CliParser
{
public:
    CliParser(QString command, const QString &description);

    /// Whether an option that takes a value may be given more than once (QCommandLineParser would
    /// keep the last of several silently).
    enum class Repeat { Once, Many };

    QCommandLineParser &parser() { return m_parser; }
    void addOption(const QCommandLineOption &option, Repeat repeat = Repeat::Once);
    void addPositional(const QString &name, const QString &description, const QString &syntax = {});

    /// Parses `args` (args[0] is the command name). Returns an exit code when the command must stop
    /// here (help shown or bad usage: an unknown option, or an option of Repeat::Once given a value
    /// twice), std::nullopt to continue.
    std::optional<int> parse(const QStringList &args);

    /// Prints "tokenbench-cli CMD: message" and the --help hint to stderr; returns ExitUsage.
    int usageError(const QString &message) const;
    QString helpText() const;
    const QString &command() const { return m_command; }

private:
    QString m_command;
    QCommandLineParser m_parser;
    /// Every name of an option that takes one value, mapped to its first name (how messages call it).
    QHash<QString, QString> m_singleValued;
};

/// Text output helpers that never go through a locale-dependent codec.
void printOut(const QString &text);
void printErr(const QString &text);

} // namespace tb::cli
