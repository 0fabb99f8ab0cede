#pragma once

// A real server program run by a test as an ordinary process on 127.0.0.1 (tst_tlsgateway: nginx,
// squid, tokenbench-cli sim).

#include <QList>
#include <QProcess>
#include <QString>
#include <QStringList>

/// A server in the foreground, stopped (SIGTERM, then SIGKILL) when destroyed.
class ServerProcess
{
public:
    ServerProcess() = default;
    ~ServerProcess();
    ServerProcess(const ServerProcess &) = delete;
    ServerProcess &operator=(const ServerProcess &) = delete;

    /// A port on 127.0.0.1 that was free a moment ago.
    static quint16 freePort();
    /// Starts `program`; true once every one of `ports` accepts a connection (within 20 s). Else
    /// false with *why: how it ended, what it printed and the end of `log` (its own log file).
    bool start(const QString &program, const QStringList &args, const QList<quint16> &ports, const QString &log,
               QString *why);
    void stop();

private:
    QProcess m_process;
};
