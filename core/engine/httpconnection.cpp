#include "engine/httpconnection.h"

#include <QSslSocket>
#include <QTcpSocket>

#include <array>

namespace tb {

namespace {

constexpr qint64 kReadBuffer = 64 * 1024;

RequestStatus classify(QAbstractSocket::SocketError error)
{
    switch (error) {
    case QAbstractSocket::SslHandshakeFailedError:
    case QAbstractSocket::SslInternalError:
    case QAbstractSocket::SslInvalidUserDataError:
        return RequestStatus::Tls;
    default:
        return RequestStatus::Connect;
    }
}

} // namespace

HttpConnection::HttpConnection(const Endpoint &endpoint, const RunClock &clock, QObject *parent)
    : QObject(parent)
    , m_endpoint(endpoint)
    , m_clock(clock)
{
    if (endpoint.tls) {
        auto *ssl = new QSslSocket(this);
        connect(ssl, &QSslSocket::encrypted, this, &HttpConnection::onConnected);
        connect(ssl, &QSslSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
            fail(RequestStatus::Tls, errors.isEmpty() ? QStringLiteral("TLS error") : errors.first().errorString(), m_clock.nowNs());
        });
        m_socket = ssl;
    } else {
        m_socket = new QTcpSocket(this);
        connect(m_socket, &QTcpSocket::connected, this, &HttpConnection::onConnected);
    }
    connect(m_socket, &QTcpSocket::readyRead, this, &HttpConnection::onReadyRead);
    connect(m_socket, &QTcpSocket::bytesWritten, this, &HttpConnection::onBytesWritten);
    connect(m_socket, &QTcpSocket::disconnected, this, &HttpConnection::onDisconnected);
    connect(m_socket, &QTcpSocket::errorOccurred, this, &HttpConnection::onSocketError);
}

HttpConnection::~HttpConnection()
{
    m_sink = nullptr;
    m_socket->disconnect(this);
    m_socket->abort();
}

void HttpConnection::send(QByteArray request, ResponseSink *sink)
{
    m_sink = sink;
    m_request = std::move(request);
    m_parser.reset();
    m_sentReported = false;
    ++m_exchanges;
    if (m_connected) {
        writeRequest();
        return;
    }
    if (m_socket->state() == QAbstractSocket::UnconnectedState) {
        if (m_endpoint.tls)
            static_cast<QSslSocket *>(m_socket)->connectToHostEncrypted(m_endpoint.host, m_endpoint.port);
        else
            m_socket->connectToHost(m_endpoint.host, m_endpoint.port);
    }
}

void HttpConnection::abandon()
{
    m_sink = nullptr;
    m_broken = true;
    m_socket->abort();
}

bool HttpConnection::isReusable() const
{
    return !m_sink && !m_broken && m_keepAlive && m_connected && m_socket->state() == QAbstractSocket::ConnectedState
        && m_socket->bytesAvailable() == 0;
}

void HttpConnection::onConnected()
{
    m_connected = true;
    // Tokens must leave the server's buffers and ours at once, not after Nagle's delay.
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    if (m_sink)
        writeRequest();
}

void HttpConnection::writeRequest()
{
    m_socket->write(m_request);
    m_socket->flush();
    m_request.clear();
    onBytesWritten();
}

void HttpConnection::onBytesWritten()
{
    if (m_sink && !m_sentReported && m_socket->bytesToWrite() == 0) {
        m_sentReported = true;
        m_sink->requestSent(m_clock.nowNs());
    }
}

void HttpConnection::onReadyRead()
{
    // SPEC §2: the stamp is taken when the bytes are read, before any parsing; every event parsed
    // from this read shares it.
    const std::int64_t stamp = m_clock.nowNs();
    thread_local std::array<char, kReadBuffer> buffer;
    while (m_socket->bytesAvailable() > 0) {
        const qint64 n = m_socket->read(buffer.data(), kReadBuffer);
        if (n <= 0)
            break;
        if (!m_sink) {
            // Bytes nobody asked for on an idle connection: it is out of step, do not reuse it.
            m_broken = true;
            m_socket->abort();
            reportLost();
            return;
        }
        std::size_t consumed = 0;
        ResponseSink *sink = m_sink;
        const auto result = m_parser.feed(
            buffer.data(), std::size_t(n), &consumed,
            [this, sink, stamp](const ResponseHead &head) {
                m_keepAlive = head.keepAlive;
                sink->responseHead(head, stamp);
            },
            [this, stamp](const char *data, std::size_t size) {
                if (m_sink)
                    m_sink->responseBody(data, size, stamp);
            });
        if (!m_sink)
            return; // the sink abandoned the exchange while handling the data
        if (result == HttpResponseParser::Result::Error) {
            fail(RequestStatus::Protocol, QStringLiteral("malformed HTTP response: ") + QString::fromStdString(m_parser.errorText()), stamp);
            return;
        }
        if (result == HttpResponseParser::Result::Complete) {
            if (consumed < std::size_t(n))
                m_broken = true; // a server that sends past the end of its response cannot be trusted
            finishExchange(stamp);
            return;
        }
    }
}

void HttpConnection::finishExchange(std::int64_t stampNs)
{
    ResponseSink *sink = m_sink;
    m_sink = nullptr;
    m_idleSinceNs = stampNs;
    if (!m_keepAlive || m_broken)
        m_socket->abort();
    sink->responseComplete(stampNs);
}

void HttpConnection::fail(RequestStatus status, const QString &message, std::int64_t stampNs)
{
    m_broken = true;
    ResponseSink *sink = m_sink;
    m_sink = nullptr;
    m_socket->abort();
    if (sink)
        sink->responseFailed(status, message, m_parser.headReceived(), stampNs);
    reportLost();
}

void HttpConnection::reportLost()
{
    if (!m_lostReported) {
        m_lostReported = true;
        Q_EMIT connectionLost(this);
    }
}

void HttpConnection::onDisconnected()
{
    const std::int64_t stamp = m_clock.nowNs();
    m_connected = false;
    if (!m_sink) {
        m_broken = true;
        reportLost();
        return;
    }
    if (m_parser.closeCompletes()) {
        m_broken = true;
        finishExchange(stamp);
        reportLost();
        return;
    }
    fail(RequestStatus::Protocol,
         m_parser.headReceived() ? QStringLiteral("connection closed before the response was complete")
                                 : QStringLiteral("connection closed before any response"),
         stamp);
}

void HttpConnection::onSocketError()
{
    const QAbstractSocket::SocketError error = m_socket->error();
    if (error == QAbstractSocket::RemoteHostClosedError)
        return; // handled by onDisconnected(), which knows whether the body was complete
    const std::int64_t stamp = m_clock.nowNs();
    if (!m_sink) {
        m_broken = true;
        reportLost();
        return;
    }
    // Before the connection is up, a socket error is a connect (or TLS) failure; after it, the
    // exchange broke mid-way.
    const RequestStatus status = m_connected ? (classify(error) == RequestStatus::Tls ? RequestStatus::Tls : RequestStatus::Protocol)
                                             : classify(error);
    fail(status, m_socket->errorString(), stamp);
}

} // namespace tb
