#pragma once

// A fake server for the secrets and header-injection tests (tst_engine, tst_runcli): it answers on
// the test's own event loop, so a test spins that loop while the client runs.

#include "support/httprequest.h"

#include <QHash>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>

/// A server that keeps the head of every request it is sent and answers 401 with an error body that
/// quotes the request's credential headers back, as some gateways do.
class EchoServer : public QTcpServer
{
public:
    EchoServer()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                ++connections;
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    const auto request = tb::test::readRequest(*socket, m_buffers[socket]);
                    if (!request)
                        return;
                    m_buffers.remove(socket); // one request a connection: it closes after the answer
                    heads << request->head;
                    QByteArrayList echoed;
                    for (const QByteArray &line : request->head.split('\n')) {
                        const QByteArray name = line.left(line.indexOf(':')).trimmed().toLower();
                        if (name == "authorization" || name == "x-api-key" || name == "cookie" ||
                            name == "ocp-apim-subscription-key")
                            echoed << line.mid(line.indexOf(':') + 1).trimmed();
                    }
                    const QByteArray body =
                        "{\"error\": {\"message\": \"invalid credentials: " + echoed.join(", ") + "\"}}";
                    socket->write("HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nConnection: "
                                  "close\r\nContent-Length: " +
                                  QByteArray::number(body.size()) + "\r\n\r\n" + body);
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QString url(const QString &userInfo = {}) const
    {
        const QString credentials = userInfo.isEmpty() ? QString() : userInfo + QLatin1Char('@');
        return QStringLiteral("http://") + credentials + QStringLiteral("127.0.0.1:%1/v1").arg(serverPort());
    }
    /// How often `name` appears among the first request's headers.
    int count(const QByteArray &name) const
    {
        if (heads.isEmpty())
            return 0;
        const QByteArrayList lines = heads.first().split('\n');
        return int(std::count_if(lines.begin(), lines.end(), [&name](const QByteArray &l) {
            return l.toLower().startsWith(name.toLower() + ':');
        }));
    }
    QByteArray value(const QByteArray &name) const
    {
        for (const QByteArray &line : heads.value(0).split('\n')) {
            if (line.toLower().startsWith(name.toLower() + ':'))
                return line.mid(name.size() + 1).trimmed();
        }
        return {};
    }

    QList<QByteArray> heads;
    int connections = 0;

private:
    QHash<QTcpSocket *, QByteArray> m_buffers;
};
