#include "support/serverprocess.h"

#include <QDeadlineTimer>
#include <QFile>
#include <QTcpServer>
#include <QTcpSocket>

ServerProcess::~ServerProcess()
{
    stop();
}

quint16 ServerProcess::freePort()
{
    QTcpServer probe;
    return probe.listen(QHostAddress(QStringLiteral("127.0.0.1")), 0) ? probe.serverPort() : 0;
}

bool ServerProcess::start(const QString &program, const QStringList &args, const QList<quint16> &ports,
                          const QString &log, QString *why)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    m_process.start(program, args);
    const QDeadlineTimer deadline(20000);
    QList<quint16> waiting = ports;
    while (!waiting.isEmpty() && !deadline.hasExpired()) {
        QTcpSocket socket;
        socket.connectToHost(QHostAddress(QStringLiteral("127.0.0.1")), waiting.first());
        if (socket.waitForConnected(500))
            waiting.removeFirst();
        else if (m_process.waitForFinished(50)) // refused: exited, or not listening yet
            break;
    }
    if (waiting.isEmpty())
        return true;
    stop();
    QFile file(log);
    const QByteArray tail = file.open(QIODevice::ReadOnly) ? file.readAll().right(2000) : QByteArray();
    *why =
        QStringLiteral("%1 %2 did not accept on port %3 (%4): %5 %6")
            .arg(program, args.join(QLatin1Char(' ')))
            .arg(waiting.first())
            .arg(m_process.state() == QProcess::NotRunning ? QStringLiteral("exited with %1").arg(m_process.exitCode())
                                                           : QStringLiteral("still running after 20 s"),
                 QString::fromLocal8Bit(m_process.readAll().right(2000)), QString::fromLocal8Bit(tail));
    return false;
}

void ServerProcess::stop()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.terminate();
    if (!m_process.waitForFinished(10000)) {
        m_process.kill();
        m_process.waitForFinished();
    }
}
