#include "net/qtsocketstream.h"

#include "net/targetaccess.h"
#include "platform/socketio.h"

#include <QNetworkProxy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>

#include <array>

namespace tb {

namespace {

/// A certificate's names, for a host-name mismatch: at most a few (a certificate may carry hundreds).
QString certificateNames(const QSslCertificate &certificate)
{
    constexpr qsizetype kMaxNames = 4;
    QStringList names = certificate.subjectAlternativeNames().values();
    if (names.isEmpty())
        names = certificate.subjectInfo(QSslCertificate::CommonName);
    const qsizetype count = names.size();
    names = names.mid(0, kMaxNames);
    for (QString &name : names)
        name = name.left(100);
    QString text = names.join(QStringLiteral(", "));
    if (count > kMaxNames)
        text += QStringLiteral(" and %1 more").arg(count - kMaxNames);
    return text.isEmpty() ? QStringLiteral("no name") : text;
}

} // namespace

QtSocketStream::QtSocketStream(const Endpoint &endpoint, const RunClock &clock, ByteStreamHandler *handler,
                               QObject *parent, Alpn alpn)
    : QObject(parent)
    , m_endpoint(endpoint)
    , m_clock(clock)
    , m_handler(handler)
    , m_alpn(alpn)
    , m_socket(new QSslSocket(this))
{
    // Connected (through a proxy: the CONNECT tunnel is open); the TLS handshake starts next.
    connect(m_socket, &QSslSocket::connected, this, [this] {
        m_tunnelOpen = true;
        if (m_handler)
            m_handler->streamHandshaking();
    });
    connect(m_socket, &QSslSocket::encrypted, this, [this] {
        m_encrypted = true;
        m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        if (m_handler)
            m_handler->streamOpened();
    });
    connect(m_socket, &QSslSocket::sslErrors, this, &QtSocketStream::onSslErrors);
    connect(m_socket, &QSslSocket::readyRead, this, &QtSocketStream::onReadyRead);
    connect(m_socket, &QSslSocket::bytesWritten, this, &QtSocketStream::onBytesWritten);
    connect(m_socket, &QSslSocket::disconnected, this, [this] {
        ByteStreamHandler *handler = m_handler;
        m_handler = nullptr;
        if (!handler)
            return;
        if (m_encrypted)
            handler->streamClosed(m_clock.nowNs());
        else // a plain-HTTP server answers the ClientHello with 400 and closes
            handler->streamFailed(
                RequestStatus::Tls,
                QStringLiteral(
                    "TLS handshake failed: the server closed the connection (does it speak plain HTTP? try http://)"),
                m_clock.nowNs());
    });
    connect(m_socket, &QSslSocket::errorOccurred, this, &QtSocketStream::onError);
}

QtSocketStream::~QtSocketStream()
{
    m_handler = nullptr;
    m_socket->disconnect(this);
    m_socket->abort();
}

void QtSocketStream::open()
{
    QSslConfiguration tls = TargetAccess::tls(m_endpoint.verifyTls, m_endpoint.caCertificate);
    tls.setAllowedNextProtocols(alpnProtocols(m_alpn));
    m_socket->setSslConfiguration(tls);
    // Always explicit: the resolver decided (ProxyResolver), not Qt's application-wide default.
    // Through a proxy, Qt opens the tunnel with CONNECT host:port, then TLS runs inside it.
    m_socket->setProxy(m_endpoint.proxy.networkProxy());
    m_socket->connectToHostEncrypted(m_endpoint.host, m_endpoint.port);
}

void QtSocketStream::write(const QByteArray &bytes)
{
    m_writeStartNs = m_clock.nowNs();
    m_socket->write(bytes);
    m_socket->flush();
    onBytesWritten();
}

void QtSocketStream::abort()
{
    m_handler = nullptr;
    m_socket->abort();
}

QByteArray QtSocketStream::negotiatedProtocol() const
{
    const QSslConfiguration tls = m_socket->sslConfiguration();
    return tls.nextProtocolNegotiationStatus() == QSslConfiguration::NextProtocolNegotiationNegotiated
               ? tls.nextNegotiatedProtocol()
               : QByteArray();
}

void QtSocketStream::handOver(ByteStreamHandler *handler, QObject *parent)
{
    m_handler = handler;
    setParent(parent);
}

bool QtSocketStream::isOpen() const
{
    return m_encrypted && m_socket->state() == QAbstractSocket::ConnectedState;
}

ByteStream::Unread QtSocketStream::unread() const
{
    if (!isOpen())
        return Unread::End;
    if (m_socket->bytesAvailable() > 0)
        return Unread::Bytes;
    // Undecrypted TLS records arrive on idle connections (session tickets): only the end of the
    // TCP stream itself says the server is gone.
    return pendingInput(m_socket->socketDescriptor()) == PendingInput::End ? Unread::End : Unread::Nothing;
}

bool QtSocketStream::handshaking() const
{
    return !m_encrypted && m_socket->state() == QAbstractSocket::ConnectedState;
}

void QtSocketStream::onBytesWritten()
{
    // Stamped like TcpStream: before the write that handed over the last bytes (for a request
    // that fits the socket buffer, when write() was called).
    if (m_handler && m_socket->bytesToWrite() == 0 && m_socket->encryptedBytesToWrite() == 0)
        m_handler->streamWritten(m_writeStartNs);
}

void QtSocketStream::onReadyRead()
{
    // Stamped before anything is parsed; every event in these bytes shares the stamp.
    const std::int64_t stamp = m_clock.nowNs();
    std::array<char, 16384> buffer;
    while (m_handler && m_socket->bytesAvailable() > 0) {
        const qint64 n = m_socket->read(buffer.data(), qint64(buffer.size()));
        if (n <= 0)
            break;
        m_handler->streamReceived(buffer.data(), std::size_t(n), stamp);
    }
}

void QtSocketStream::onSslErrors(const QList<QSslError> &errors)
{
    // Qt checks the host name whatever the verify mode and reports a mismatch here, also with
    // VerifyNone (which only spares the chain): --insecure accepts both, as curl -k does.
    if (!m_endpoint.verifyTls) {
        m_socket->ignoreSslErrors();
        return;
    }
    ByteStreamHandler *handler = m_handler;
    abort();
    if (!handler)
        return;
    QString message = QStringLiteral("TLS error");
    if (!errors.isEmpty()) {
        const QSslError &first = errors.first();
        message = first.errorString();
        if (first.error() == QSslError::HostNameMismatch)
            message += QStringLiteral(" (host %1; the certificate is for %2; --insecure skips the check)")
                           .arg(m_endpoint.host, certificateNames(first.certificate()));
    }
    handler->streamFailed(RequestStatus::Tls, message, m_clock.nowNs());
}

void QtSocketStream::onError()
{
    const QAbstractSocket::SocketError error = m_socket->error();
    if (error == QAbstractSocket::RemoteHostClosedError)
        return; // disconnected() reports the end of the stream
    ByteStreamHandler *handler = m_handler;
    if (!handler)
        return;
    const bool tls = error == QAbstractSocket::SslHandshakeFailedError || error == QAbstractSocket::SslInternalError ||
                     error == QAbstractSocket::SslInvalidUserDataError;
    const bool proxy =
        error == QAbstractSocket::ProxyAuthenticationRequiredError ||
        error == QAbstractSocket::ProxyConnectionRefusedError || error == QAbstractSocket::ProxyConnectionClosedError ||
        error == QAbstractSocket::ProxyConnectionTimeoutError || error == QAbstractSocket::ProxyNotFoundError ||
        error == QAbstractSocket::ProxyProtocolError
        // Before the tunnel opened, every failure is the proxy's word (a refused
        // CONNECT is SocketAccessError "Proxy denied connection").
        || (!m_endpoint.proxy.direct && !m_tunnelOpen);
    const RequestStatus status = proxy ? RequestStatus::Proxy
                                 : tls ? RequestStatus::Tls
                                       : (m_encrypted ? RequestStatus::Protocol : RequestStatus::Connect);
    QString message = m_socket->errorString();
    if (proxy)
        message = QStringLiteral("proxy %1: %2").arg(m_endpoint.proxy.describe(), message);
    // OpenSSL's words when the peer answered the ClientHello with text ("HTTP/1.1 400 …").
    if (tls && !m_encrypted &&
        (message.contains(QLatin1String("wrong version number")) ||
         message.contains(QLatin1String("packet length too long"))))
        message = QStringLiteral("TLS handshake failed: the server answered in plain HTTP? (try http://) — ") + message;
    abort();
    handler->streamFailed(status, message, m_clock.nowNs());
}

} // namespace tb
