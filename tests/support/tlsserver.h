#pragma once

// An HTTPS server for the engine's TLS tests (tst_engine, tst_proxyengine).

#include <QFile>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>

/// An HTTPS server with the self-signed test certificate (for 127.0.0.1), answering every request
/// with `response` (one fixed SSE stream unless set) and closing.
class TlsServer : public QSslServer
{
public:
    QByteArray response = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                          "data: {\"id\":\"tls-1\",\"choices\":[{\"delta\":{\"content\":\"secure\"}}]}\n\n"
                          "data: {\"id\":\"tls-1\",\"choices\":[{\"delta\":{\"content\":\" "
                          "hi\"},\"finish_reason\":\"stop\"}],"
                          "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n"
                          "data: [DONE]\n\n";

    TlsServer()
    {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        QFile cert(QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt"));
        QFile key(QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.key"));
        if (cert.open(QIODevice::ReadOnly) && key.open(QIODevice::ReadOnly)) {
            tls.setLocalCertificate(QSslCertificate(&cert, QSsl::Pem));
            tls.setPrivateKey(QSslKey(&key, QSsl::Rsa, QSsl::Pem));
        }
        tls.setPeerVerifyMode(QSslSocket::VerifyNone);
        setSslConfiguration(tls);
        connect(this, &QTcpServer::pendingConnectionAvailable, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    if (!socket->readAll().contains("\r\n\r\n"))
                        return;
                    socket->write(response);
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QString url() const { return QStringLiteral("https://127.0.0.1:%1/v1").arg(serverPort()); }
};
