#include "client/qnamtransport.h"

#include "api/requestbuilder.h"
#include "net/bytestream.h"
#include "net/targetaccess.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <algorithm>

namespace tb {

namespace {

/// How much QNAM may hold unread for one reply once its reader fell behind. Not set from the
/// start: with a bound, every read sends QNAM's thread a queued readBufferFreed and a readyReadSlot
/// back (two more thread hops per SSE event, 34.1k -> 29.5k Ir per event without them); every
/// readyRead is drained at once, so only a reply whose one drain brings more than this (the worker
/// decodes slower than the server sends) is put under QNAM's flow control, and TCP's, from then on.
constexpr qint64 kReplyBufferBytes = 1024 * 1024;
constexpr std::size_t kReadBytes = 64 * 1024;

/// The errors QNAM makes of an HTTP status (404 → ContentNotFoundError, 500 →
/// InternalServerError, …): the response itself arrived, and its status says what went wrong.
bool isHttpStatusError(QNetworkReply::NetworkError e)
{
    return (e >= QNetworkReply::ContentAccessDenied && e <= QNetworkReply::UnknownContentError) ||
           (e >= QNetworkReply::InternalServerError && e <= QNetworkReply::UnknownServerError) ||
           e == QNetworkReply::ProtocolInvalidOperationError;
}

} // namespace

/// One request on a manager: its reply, stamped on arrival and handed to the sink as it comes.
class QnamExchange final : public QObject, public Exchange
{
public:
    QnamExchange(QnamTransport *transport, std::size_t manager, int pool, QString origin, const Endpoint &endpoint)
        : QObject(transport)
        , m_transport(transport)
        , m_manager(manager)
        , m_pool(pool)
        , m_origin(std::move(origin))
        , m_endpoint(endpoint)
    {}

    bool isConnected() const override { return m_opened; }
    // QNAM says when TLS is done (encrypted), not when TCP is: over https a connect deadline is
    // taken for the handshake (docs/measuring.md "Transports").
    bool handshaking() const override { return m_endpoint.tls && !m_opened; }
    const Endpoint &endpoint() const override { return m_endpoint; }

    /// POSTs `body`, or GETs when `post` is false (a redirect's hop after 301, 302, 303).
    void start(const QNetworkRequest &request, bool post, const QByteArray &body, ResponseSink *sink)
    {
        m_request = request;
        m_post = post;
        m_body = body;
        m_sink = sink;
        m_postedNs = m_transport->m_clock.nowNs();
        QNetworkAccessManager *nam = m_transport->m_managers[m_manager].nam;
        m_reply = post ? nam->post(request, body) : nam->get(request);
        m_reply->setParent(this);
        connect(m_reply, &QNetworkReply::encrypted, this, [this] { opened(); });
        connect(m_reply, &QNetworkReply::requestSent, this, [this] { sent(); });
        connect(m_reply, &QNetworkReply::metaDataChanged, this, [this] { head(m_transport->m_clock.nowNs()); });
        connect(m_reply, &QNetworkReply::readyRead, this, [this] { read(m_transport->m_clock.nowNs()); });
        connect(m_reply, &QNetworkReply::finished, this, [this] { finished(m_transport->m_clock.nowNs()); });
        // QNAM does not say when TCP is up: over https the whole wait counts as the handshake, as
        // handshaking() and the connect deadline take it.
        if (m_endpoint.tls && !m_opened)
            sink->connectionHandshaking();
    }

    /// The sink hears nothing more; QNAM stops the transfer.
    void stop()
    {
        m_sink = nullptr;
        if (m_reply) {
            m_reply->disconnect(this);
            m_reply->abort();
        }
    }

    std::size_t manager() const { return m_manager; }
    int pool() const { return m_pool; }
    const QString &origin() const { return m_origin; }

private:
    void opened()
    {
        if (m_opened)
            return;
        m_opened = true;
        if (m_sink)
            m_sink->connectionOpened();
    }

    /// Stamped with when the request was handed to QNAM: its requestSent comes through QNAM's
    /// thread, later than the bytes left — after the server has them, at times.
    void sent()
    {
        opened();
        if (m_sink && !m_sent) {
            m_sent = true;
            m_sink->requestSent(m_postedNs);
        }
    }

    void head(std::int64_t stampNs)
    {
        const QVariant status = m_reply->attribute(QNetworkRequest::HttpStatusCodeAttribute);
        if (m_headSeen || !m_sink || !status.isValid())
            return;
        m_headSeen = true;
        sent(); // QNAM may not say when the request left (HTTP/2): its answer says it did
        if (!m_sink)
            return;
        ResponseHead h;
        h.status = status.toInt();
        h.http2 = m_reply->attribute(QNetworkRequest::Http2WasUsedAttribute).toBool();
        if (!h.http2 && m_endpoint.tls && m_endpoint.httpVersion == HttpVersion::Http2) {
            // --http2 insists, as native does; QNAM only prefers h2 over TLS.
            refuse(notHttp2ByAlpn(m_reply->sslConfiguration().nextNegotiatedProtocol()), stampNs);
            return;
        }
        // What native's parser refuses, QNAM takes: a status of any number of digits, and a head
        // beyond its bounds (more than 100 fields, a field over 100 KiB, 256 KiB in all), which
        // it drops whole and reads on without Content-Length or Content-Type — a body until the
        // connection closes, judged as JSON. An HTTP/1 head without any field is that (no API
        // server answers without Content-Type): refused here, before the body, as native does.
        if (!HttpResponseParser::validStatus(h.status)) {
            const QString line = QStringLiteral("HTTP/%1 %2 %3")
                                     .arg(h.http2 ? QStringLiteral("2") : QStringLiteral("1.1"))
                                     .arg(h.status)
                                     .arg(m_reply->attribute(QNetworkRequest::HttpReasonPhraseAttribute).toString());
            refuse(QLatin1String(HttpResponseParser::kMalformed) +
                       QString::fromStdString(HttpResponseParser::badStatusLine(line.toStdString())),
                   stampNs);
            return;
        }
        if (!h.http2 && m_reply->rawHeaderPairs().isEmpty()) {
            refuse(QLatin1String(HttpResponseParser::kMalformed) +
                       QStringLiteral("no header fields (QNAM drops a head of more than 100 fields, a field "
                                      "over 100 KiB or 256 KiB in all)"),
                   stampNs);
            return;
        }
        // One manager holds one HTTP/2 connection per origin: its exchanges there are its streams.
        h.streams = h.http2 ? m_transport->load(m_manager, m_pool, m_origin) : 1;
        for (const auto &[name, value] : m_reply->rawHeaderPairs())
            HttpResponseParser::readHeadField(h, name.toLower().toStdString(), value.trimmed().toStdString());
        m_transport->learn(m_origin, h.http2);
        if (m_sink)
            m_sink->responseHead(h, stampNs);
    }

    /// The response breaks what the engine accepts: the sink hears `message` as a protocol
    /// failure, and QNAM stops the transfer.
    void refuse(const QString &message, std::int64_t stampNs)
    {
        ResponseSink *sink = m_sink;
        stop();
        sink->responseFailed(RequestStatus::Protocol, message, false, stampNs);
        m_transport->dispose(this);
    }

    void read(std::int64_t stampNs)
    {
        if (!m_headSeen)
            head(stampNs);
        std::vector<char> &buffer = m_transport->m_readBuffer;
        qint64 drained = 0;
        while (m_sink) {
            const qint64 n = m_reply->read(buffer.data(), qint64(buffer.size()));
            if (n <= 0)
                break;
            drained += n;
            m_sink->responseBody(buffer.data(), std::size_t(n), stampNs);
            if (n < qint64(buffer.size()))
                break; // drained: another read would only find QNAM's buffer empty
        }
        if (m_sink && drained > kReplyBufferBytes && m_reply->readBufferSize() == 0)
            m_reply->setReadBufferSize(kReplyBufferBytes);
    }

    void finished(std::int64_t stampNs)
    {
        read(stampNs);
        if (!m_sink)
            return;
        const QNetworkReply::NetworkError error = m_reply->error();
        if (neverLeft(error)) {
            ++m_reposts;
            m_sink->sentAgain();
            m_reply->disconnect(this);
            m_reply->deleteLater();
            m_reply = nullptr;
            start(m_request, m_post, m_body, m_sink);
            return;
        }
        ResponseSink *sink = std::exchange(m_sink, nullptr);
        if (error == QNetworkReply::NoError || (m_headSeen && isHttpStatusError(error))) {
            sink->responseComplete(stampNs);
            return; // the worker releases us
        }
        auto [status, message] = classify(error);
        // Through a proxy, what keeps the connection from opening is the proxy's (as native says).
        if (status == RequestStatus::Connect && !m_endpoint.proxy.direct) {
            status = RequestStatus::Proxy;
            message = QStringLiteral("proxy %1: %2").arg(m_endpoint.proxy.describe(), message);
        }
        // Only a connection that closed is a cut-off body; what QNAM could not parse is malformed.
        sink->responseFailed(status, message, m_headSeen && error == QNetworkReply::RemoteHostClosedError, stampNs);
        m_transport->dispose(this);
    }

    /// When one of a host's HTTP/1 connections closes, QNAM fails every request still queued for
    /// that host with the same error (its channel hands the error to all waiting replies), though
    /// none of them was written: a server cutting one stream made its neighbours "closed before any
    /// response" without their reaching it. Such a request is posted again, a bounded number of
    /// times. Only over HTTP/1, where QNAM says when a request left (requestSent, ordered before
    /// its error): a POST the server may have had is never sent twice.
    bool neverLeft(QNetworkReply::NetworkError error) const
    {
        return error == QNetworkReply::RemoteHostClosedError && !m_sent && !m_headSeen && m_reposts < kReposts &&
               !m_request.attribute(QNetworkRequest::Http2AllowedAttribute).toBool();
    }

    /// Qt's own error text, without the request URL it may hold (a query may carry a key).
    QString qtText() const
    {
        QString text = m_reply->errorString();
        const QString where = QStringLiteral("%1:%2").arg(m_endpoint.host).arg(m_endpoint.port);
        text.replace(m_reply->url().toString(), where);
        text.replace(m_reply->url().toDisplayString(), where);
        return text.left(300);
    }

    std::pair<RequestStatus, QString> classify(QNetworkReply::NetworkError error) const
    {
        const QString where = QStringLiteral("%1:%2").arg(m_endpoint.host).arg(m_endpoint.port);
        switch (error) {
        case QNetworkReply::ConnectionRefusedError:
            return {RequestStatus::Connect, QStringLiteral("connection refused by %1").arg(where)};
        case QNetworkReply::HostNotFoundError:
            return {RequestStatus::Connect, QStringLiteral("cannot resolve '%1'").arg(m_endpoint.host)};
        case QNetworkReply::RemoteHostClosedError:
            if (m_headSeen)
                return {RequestStatus::Protocol, QStringLiteral("connection closed mid-response")};
            if (m_endpoint.tls && !m_opened)
                return {RequestStatus::Tls, QStringLiteral("TLS handshake failed: the server closed the connection "
                                                           "(does it speak plain HTTP? try http://)")};
            return {RequestStatus::Protocol, QStringLiteral("connection closed before any response")};
        case QNetworkReply::TimeoutError:
            return {RequestStatus::Timeout, QStringLiteral("QNAM timed out the transfer")};
        case QNetworkReply::OperationCanceledError:
            return {RequestStatus::Cancelled, QStringLiteral("cancelled")};
        case QNetworkReply::SslHandshakeFailedError: {
            const QString why = qtText();
            // OpenSSL's words for an answer that is not TLS: a plain-HTTP server's 400.
            const bool plain = why.contains(QLatin1String("wrong version number"));
            return {RequestStatus::Tls,
                    QStringLiteral("TLS handshake failed: ") + why +
                        (plain ? QStringLiteral(" (does it speak plain HTTP? try http://)") : QString())};
        }
        case QNetworkReply::ProxyConnectionRefusedError:
            return {RequestStatus::Proxy,
                    QStringLiteral("proxy %1: connection refused").arg(m_endpoint.proxy.describe())};
        case QNetworkReply::ProxyConnectionClosedError:
            return {RequestStatus::Proxy,
                    QStringLiteral("proxy %1 closed the connection").arg(m_endpoint.proxy.describe())};
        case QNetworkReply::ProxyNotFoundError:
            return {RequestStatus::Proxy,
                    QStringLiteral("proxy %1: cannot resolve its host").arg(m_endpoint.proxy.describe())};
        case QNetworkReply::ProxyTimeoutError:
            return {RequestStatus::Proxy, QStringLiteral("proxy %1 timed out").arg(m_endpoint.proxy.describe())};
        case QNetworkReply::ProxyAuthenticationRequiredError:
            return {
                RequestStatus::Proxy,
                QStringLiteral("proxy %1: HTTP 407 (Proxy Authentication Required)").arg(m_endpoint.proxy.describe())};
        case QNetworkReply::UnknownProxyError:
            return {RequestStatus::Proxy,
                    QStringLiteral("proxy %1 refused the tunnel: %2").arg(m_endpoint.proxy.describe(), qtText())};
        case QNetworkReply::ProtocolFailure:
        case QNetworkReply::ProtocolUnknownError:
            return {RequestStatus::Protocol, m_headSeen ? QStringLiteral("broken response after its head")
                                                        : QStringLiteral("not an HTTP response (QNAM could not "
                                                                         "parse it)")};
        default:
            break;
        }
        // Once the connection was open (a reset while the body was going out, too), a network
        // failure is the exchange's, not the connect's.
        const QString text = qtText();
        if (error < QNetworkReply::ContentAccessDenied && !m_opened && !text.contains(QLatin1String("reset")))
            return {RequestStatus::Connect, QStringLiteral("%1: %2").arg(where, text)};
        if (error < QNetworkReply::ContentAccessDenied)
            return {RequestStatus::Protocol, QStringLiteral("connection failed mid-exchange: ") + text};
        return {RequestStatus::Protocol, QStringLiteral("QNetworkReply error %1").arg(int(error))};
    }

    /// Each cut of a neighbour on the host may fail a queued request once more; a server that
    /// closes every connection unanswered is still reported after this many.
    static constexpr int kReposts = 3;

    QnamTransport *m_transport;
    std::size_t m_manager;
    int m_pool;
    QString m_origin;
    Endpoint m_endpoint;
    QNetworkReply *m_reply = nullptr;
    ResponseSink *m_sink = nullptr;
    bool m_opened = false;
    bool m_sent = false;
    bool m_headSeen = false;
    std::int64_t m_postedNs = 0;
    QNetworkRequest m_request; // kept to post again a request QNAM failed before it left
    bool m_post = false;
    QByteArray m_body;
    int m_reposts = 0;
};

QnamTransport::QnamTransport(const RunClock &clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_readBuffer(kReadBytes)
{}

QnamTransport::~QnamTransport()
{
    // Every exchange (those disposed of too, deleteLater) goes before the managers of its reply.
    const QObjectList exchanges = children();
    for (QObject *o : exchanges) {
        static_cast<QnamExchange *>(o)->stop();
        delete o;
    }
    for (Manager &m : m_managers)
        delete m.nam;
}

QString QnamTransport::originKey(const Endpoint &endpoint)
{
    return QStringLiteral("%1://%2:%3/%4")
        .arg(endpoint.tls ? QLatin1String("https") : QLatin1String("http"), endpoint.host)
        .arg(endpoint.port)
        .arg(httpVersionName(endpoint.httpVersion));
}

int QnamTransport::capacity(const QString &origin) const
{
    const auto it = m_origins.constFind(origin);
    return it != m_origins.cend() && it->http2 ? kHttp2Streams : kHttp1Connections;
}

int QnamTransport::pools(const Endpoint &endpoint)
{
    return endpoint.tls || endpoint.httpVersion == HttpVersion::Http2 ? 1 : kHttp1Pools;
}

int QnamTransport::load(std::size_t manager, int pool, const QString &origin) const
{
    const auto &loads = m_managers[manager].load;
    const auto it = loads.constFind(origin);
    return it == loads.cend() ? 0 : (*it)[std::size_t(pool)];
}

void QnamTransport::learn(const QString &origin, bool http2)
{
    m_origins[origin].http2 = http2;
}

Exchange *QnamTransport::acquire(const Endpoint &endpoint, bool /*fresh*/)
{
    const QString origin = originKey(endpoint);
    if (!m_origins.contains(origin)) // until an answer says otherwise, HTTP/2 where it is asked for
        m_origins.insert(origin, {endpoint.httpVersion == HttpVersion::Http2});
    const int cap = capacity(origin);
    const int poolCount = pools(endpoint);
    std::size_t chosen = m_managers.size();
    int pool = 0;
    for (std::size_t i = 0; i < m_managers.size() && chosen == m_managers.size(); ++i) {
        if (!(m_managers[i].proxy == endpoint.proxy))
            continue;
        for (pool = 0; pool < poolCount; ++pool) {
            if (load(i, pool, origin) < cap) {
                chosen = i;
                break;
            }
        }
    }
    if (chosen == m_managers.size()) {
        pool = 0;
        Manager m;
        m.nam = new QNetworkAccessManager; // no parent: deleted after every exchange (destructor)
        m.nam->setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy); // reported, as native does
        m.nam->setAutoDeleteReplies(false);
        // The proxy resolver decided (environment, system, --proxy, --no-proxy): never QNAM's own lookup.
        m.nam->setProxy(endpoint.proxy.networkProxy());
        m.proxy = endpoint.proxy;
        m_managers.push_back(std::move(m));
    }
    std::vector<int> &loads = m_managers[chosen].load[origin];
    loads.resize(std::size_t(poolCount));
    ++loads[std::size_t(pool)];
    return new QnamExchange(this, chosen, pool, origin, endpoint);
}

const QSslConfiguration &QnamTransport::tlsFor(const Endpoint &endpoint)
{
    const QString key =
        (endpoint.verifyTls ? QLatin1String("verify:") : QLatin1String("none:")) + endpoint.caCertificate;
    auto it = m_tls.find(key);
    if (it == m_tls.end()) {
        it = m_tls.insert(key, TargetAccess::tls(endpoint.verifyTls, endpoint.caCertificate));
    }
    return *it;
}

void QnamTransport::send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink)
{
    const Endpoint &endpoint = hop.endpoint;
    QNetworkRequest request(hop.url);
    for (const auto &[name, value] : builder.requestHeaders(hop.credentials, hop.post))
        request.setRawHeader(name, value);
    TargetAccess::setHttpVersion(request, endpoint.tls, endpoint.httpVersion); // never Upgrade: h2c
    request.setAttribute(QNetworkRequest::CookieLoadControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CookieSaveControlAttribute, QNetworkRequest::Manual);
    request.setAttribute(QNetworkRequest::CacheLoadControlAttribute, QNetworkRequest::AlwaysNetwork);
    request.setAttribute(QNetworkRequest::CacheSaveControlAttribute, false);
    request.setTransferTimeout(0); // the worker's deadlines rule
    if (endpoint.tls)
        request.setSslConfiguration(tlsFor(endpoint));
    else if (const int pool = static_cast<QnamExchange *>(exchange)->pool(); pool > 0)
        request.setPeerVerifyName(QStringLiteral("pool%1").arg(pool)); // see the class comment
    static_cast<QnamExchange *>(exchange)->start(
        request, hop.post, hop.post ? QByteArray(hop.json.data(), qsizetype(hop.json.size())) : QByteArray(), sink);
}

void QnamTransport::release(Exchange *exchange)
{
    dispose(static_cast<QnamExchange *>(exchange));
}

void QnamTransport::abandon(Exchange *exchange)
{
    auto *e = static_cast<QnamExchange *>(exchange);
    e->stop();
    dispose(e);
}

void QnamTransport::dispose(QnamExchange *exchange)
{
    Manager &m = m_managers[exchange->manager()];
    if (const auto it = m.load.find(exchange->origin()); it != m.load.end()) {
        --(*it)[std::size_t(exchange->pool())];
        if (std::all_of(it->cbegin(), it->cend(), [](int n) { return n <= 0; }))
            m.load.erase(it);
    }
    exchange->deleteLater();
}

void QnamTransport::closeIdle()
{
    for (Manager &m : m_managers)
        m.nam->clearConnectionCache();
}

} // namespace tb
