#pragma once

// Runs tokenbench-cli as users and scripts do — a real process — for the CLI tests.

#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

struct CliResult {
    int exitCode = -1; ///< -1: crashed or timed out
    QString out;
    QString err;
};

inline CliResult runCli(const QStringList &args,
                        const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
                        int timeoutMs = 240000)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(TOKENBENCH_CLI), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}
