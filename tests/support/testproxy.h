#pragma once

// An HTTP proxy on 127.0.0.1 for the proxy tests (tst_proxyengine, tst_ui_connection).

#include "support/httprequest.h"

#include <QHash>
#include <QTcpServer>
#include <QTcpSocket>
#include <QUrl>

/// An HTTP proxy: CONNECT opens a tunnel that carries bytes both ways; an absolute-form request
/// goes to its origin with "Connection: close" (one request a connection, so no framing here).
/// Counts the connections clients open to it and keeps each request head.
class TestProxy : public QTcpServer
{
public:
    int connections = 0;
    QList<QByteArray> heads;
    QByteArray requiredAuthorization; ///< "Basic …": answered 407 without it
    QByteArray connectAnswer;         ///< e.g. "403 Forbidden": CONNECT refused

    TestProxy()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *client = nextPendingConnection()) {
                ++connections;
                connect(client, &QTcpSocket::readyRead, client, [this, client] { clientData(client); });
                connect(client, &QTcpSocket::disconnected, client, [this, client] {
                    if (QTcpSocket *up = m_upstream.take(client))
                        up->disconnectFromHost();
                    m_buffers.remove(client);
                    client->deleteLater();
                });
            }
        });
    }
    /// Connections a client keeps alive (QNAM's) are still open here: their sockets go before the
    /// maps their handlers use.
    ~TestProxy() override
    {
        const QList<QTcpSocket *> sockets = findChildren<QTcpSocket *>();
        for (QTcpSocket *socket : sockets)
            socket->disconnect();
        qDeleteAll(findChildren<QTcpSocket *>(Qt::FindDirectChildrenOnly));
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(serverPort()); }

private:
    void clientData(QTcpSocket *client)
    {
        if (QTcpSocket *up = m_upstream.value(client)) {
            up->write(client->readAll());
            return;
        }
        const auto request = tb::test::readRequest(*client, m_buffers[client]);
        if (!request)
            return;
        const QByteArray &head = request->head;
        // What follows the head: its body, or a tunnel's first bytes (a TLS hello sent at once).
        const QByteArray rest = request->body + m_buffers.take(client);
        heads << head;
        if (!requiredAuthorization.isEmpty() &&
            !head.contains("\r\nProxy-Authorization: " + requiredAuthorization + "\r\n")) {
            client->write("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\n"
                          "Content-Length: 0\r\nConnection: close\r\n\r\n");
            client->disconnectFromHost();
            return;
        }
        const QList<QByteArray> line = head.left(head.indexOf("\r\n")).split(' ');
        if (line.size() != 3) {
            client->disconnectFromHost();
            return;
        }
        const bool tunnel = line[0] == "CONNECT";
        if (tunnel && !connectAnswer.isEmpty()) {
            client->write("HTTP/1.1 " + connectAnswer + "\r\nContent-Length: 0\r\n\r\n");
            client->disconnectFromHost();
            return;
        }
        const QUrl target =
            tunnel ? QUrl(QStringLiteral("//") + QString::fromLatin1(line[1])) : QUrl(QString::fromLatin1(line[1]));
        QByteArray forward;
        if (!tunnel) {
            // The origin gets the origin form, and closes after its answer.
            QByteArray fields = head.mid(head.indexOf("\r\n") + 2);
            fields.replace("Connection: keep-alive", "Connection: close");
            forward =
                line[0] + ' ' + target.path(QUrl::FullyEncoded).toLatin1() + ' ' + line[2] + "\r\n" + fields + rest;
        } else {
            forward = rest;
        }
        auto *up = new QTcpSocket(client);
        m_upstream.insert(client, up);
        connect(up, &QTcpSocket::connected, client, [client, up, tunnel, forward] {
            if (tunnel)
                client->write("HTTP/1.1 200 Connection established\r\n\r\n");
            if (!forward.isEmpty())
                up->write(forward);
        });
        connect(up, &QTcpSocket::readyRead, client, [client, up] { client->write(up->readAll()); });
        connect(up, &QTcpSocket::disconnected, client, [client] { client->disconnectFromHost(); });
        connect(up, &QTcpSocket::errorOccurred, client, [client, up](QAbstractSocket::SocketError error) {
            if (error != QAbstractSocket::RemoteHostClosedError && up->state() != QAbstractSocket::ConnectedState) {
                client->write("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                client->disconnectFromHost();
            }
        });
        up->connectToHost(target.host(), quint16(target.port(80)));
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
    QHash<QTcpSocket *, QTcpSocket *> m_upstream;
};
