#pragma once

#include "net/bytestream.h"

#include <QObject>

class QSslError;
class QSslSocket;

namespace tb {

/// TLS through QSslSocket. Reads are stamped when readyRead is handled, before any parsing
/// (QSslSocket reads the socket itself, so there is no kernel timestamp to be had).
class QtSocketStream : public QObject, public ByteStream
{
public:
    QtSocketStream(const Endpoint &endpoint, const RunClock &clock, ByteStreamHandler *handler, QObject *parent,
                   Alpn alpn);
    ~QtSocketStream() override;

    void open() override;
    void write(const QByteArray &bytes) override;
    void abort() override;
    bool isOpen() const override;
    bool handshaking() const override;
    bool hasKernelTimestamps() const override { return false; }
    Unread unread() const override;
    QByteArray negotiatedProtocol() const override;
    void handOver(ByteStreamHandler *handler, QObject *parent) override;

private:
    void onReadyRead();
    void onBytesWritten();
    void onError();
    void onSslErrors(const QList<QSslError> &errors);

    Endpoint m_endpoint;
    RunClock m_clock;
    ByteStreamHandler *m_handler;
    Alpn m_alpn;
    QSslSocket *m_socket;
    bool m_encrypted = false;
    bool m_tunnelOpen = false; ///< connected (through a proxy: CONNECT answered 200)
    std::int64_t m_writeStartNs = 0;
};

} // namespace tb
