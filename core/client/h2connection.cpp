#include "client/h2connection.h"

#include <nghttp2/nghttp2.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace tb {

namespace {

std::string_view view(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

/// Fields of an HTTP/1.1 head that HTTP/2 forbids (RFC 9113 §8.2.2), or that its pseudo-headers
/// and framing replace.
bool notForHttp2(const QByteArray &lowerName)
{
    return lowerName == "connection" || lowerName == "keep-alive" || lowerName == "proxy-connection" ||
           lowerName == "transfer-encoding" || lowerName == "upgrade" || lowerName == "host" ||
           lowerName == "content-length";
}

/// What a server's RST_STREAM says: a broken exchange (the framing's fault) or its own refusal.
RequestStatus resetStatus(std::uint32_t code)
{
    switch (code) {
    case NGHTTP2_PROTOCOL_ERROR:
    case NGHTTP2_FLOW_CONTROL_ERROR:
    case NGHTTP2_FRAME_SIZE_ERROR:
    case NGHTTP2_COMPRESSION_ERROR:
    case NGHTTP2_STREAM_CLOSED:
    case NGHTTP2_HTTP_1_1_REQUIRED:
        return RequestStatus::Protocol;
    default:
        return RequestStatus::ServerError; // INTERNAL_ERROR, REFUSED_STREAM, CANCEL, ENHANCE_YOUR_CALM …
    }
}

QString codeName(std::uint32_t code)
{
    return QString::fromLatin1(nghttp2_http2_strerror(code));
}

} // namespace

H2Exchange::H2Exchange(H2Connection *connection)
    : QObject(connection)
    , m_connection(connection)
{}

bool H2Exchange::isConnected() const
{
    return m_connection->isConnected();
}

bool H2Exchange::handshaking() const
{
    return m_connection->handshaking();
}

const Endpoint &H2Exchange::endpoint() const
{
    return m_connection->endpoint();
}

std::uint64_t H2Exchange::connectionNumber() const
{
    return m_connection->number();
}

/// nghttp2's callbacks, on the connection passed as user data. No exception may cross nghttp2's C
/// frames: one that would (out of memory) ends the connection.
struct H2Callbacks {
    static H2Connection &self(void *user) { return *static_cast<H2Connection *>(user); }

    template<typename F> static int guarded(F &&f)
    {
        try {
            return f();
        } catch (const std::exception &) {
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
    }

    static int onHeader(nghttp2_session *, const nghttp2_frame *frame, const std::uint8_t *name, std::size_t nameLen,
                        const std::uint8_t *value, std::size_t valueLen, std::uint8_t, void *user)
    {
        return guarded([&] {
            H2Connection &c = self(user);
            H2Exchange *e = c.exchangeOf(frame->hd.stream_id);
            if (!e || !e->m_sink || e->m_headSeen)
                return 0;                                // trailers tell nothing the engine uses
            e->m_headerBytes += nameLen + valueLen + 32; // RFC 9113's size of a field
            if (e->m_headerBytes > HttpResponseParser::kMaxHeadBytes ||
                ++e->m_headerFields > HttpResponseParser::kMaxHeaderFields) {
                c.failExchange(e, RequestStatus::Protocol,
                               QStringLiteral("malformed HTTP/2 response: header list over %1 KiB or %2 fields")
                                   .arg(HttpResponseParser::kMaxHeadBytes / 1024)
                                   .arg(HttpResponseParser::kMaxHeaderFields),
                               c.m_stampNs, false);
                return int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE); // nghttp2 resets the stream
            }
            const std::string_view n = view(name, nameLen);
            std::string_view v = view(value, valueLen);
            if (n == ":status") {
                int status = 0;
                for (const char ch : v)
                    status = status * 10 + (ch - '0'); // nghttp2 let through three digits only
                e->m_head.status = status;
            } else if (!n.starts_with(':')) {
                while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
                    v.remove_prefix(1);
                while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
                    v.remove_suffix(1);
                // nghttp2 let only lower-case names through
                HttpResponseParser::readHeadField(e->m_head, std::string(n), std::string(v));
            }
            return 0;
        });
    }

    static int onFrameRecv(nghttp2_session *, const nghttp2_frame *frame, void *user)
    {
        return guarded([&] {
            H2Connection &c = self(user);
            if (frame->hd.type == NGHTTP2_GOAWAY) {
                c.m_goingAway = true;
                c.m_serverGoaway = frame->goaway.error_code;
                return 0;
            }
            H2Exchange *e = c.exchangeOf(frame->hd.stream_id);
            if (!e)
                return 0;
            if (frame->hd.type == NGHTTP2_RST_STREAM) {
                e->m_resetByServer = frame->rst_stream.error_code;
                return 0;
            }
            if (frame->hd.type == NGHTTP2_HEADERS && e->m_sink && !e->m_headSeen) {
                if (e->m_head.status >= 100 && e->m_head.status < 200) {
                    e->m_head = {}; // an interim response: the real one follows
                    return 0;
                }
                e->m_headSeen = true;
                e->m_head.http2 = true;
                e->m_head.streams = c.load();
                if (!e->m_sentReported) {
                    // Answered before the request was all written: its answer says it arrived.
                    e->m_sentReported = true;
                    e->m_sink->requestSent(c.m_stampNs);
                }
                if (e->m_sink)
                    e->m_sink->responseHead(e->m_head, c.m_stampNs);
            }
            if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
                e->m_ended = true;
                if (ResponseSink *sink = std::exchange(e->m_sink, nullptr); sink && e->m_headSeen)
                    sink->responseComplete(c.m_stampNs); // the worker releases it
            }
            return 0;
        });
    }

    static int onData(nghttp2_session *, std::uint8_t, std::int32_t stream, const std::uint8_t *data, std::size_t size,
                      void *user)
    {
        return guarded([&] {
            H2Connection &c = self(user);
            H2Exchange *e = c.exchangeOf(stream);
            if (e && e->m_sink && e->m_headSeen)
                e->m_sink->responseBody(reinterpret_cast<const char *>(data), size, c.m_stampNs);
            return 0;
        });
    }

    static int onStreamClose(nghttp2_session *, std::int32_t stream, std::uint32_t code, void *user)
    {
        return guarded([&] {
            H2Connection &c = self(user);
            H2Exchange *e = c.exchangeOf(stream);
            if (!e)
                return 0;
            e->m_closed = true;
            if (!e->m_sink) {
                c.m_byStream.erase(stream); // it ended (complete); the worker releases it
                return 0;
            }
            // RFC 9113 §8.7: a stream the server refused, or one above its GOAWAY's last stream,
            // was not processed — it may go again, on another connection.
            if (e->m_resetByServer == NGHTTP2_REFUSED_STREAM && !e->m_headSeen) {
                c.staleExchange(e, QStringLiteral("server refused the HTTP/2 stream (REFUSED_STREAM)"), c.m_stampNs);
            } else if (e->m_resetByServer >= 0) {
                const auto serverCode = std::uint32_t(e->m_resetByServer);
                c.failExchange(e, resetStatus(serverCode),
                               QStringLiteral("server reset the HTTP/2 stream (%1)").arg(codeName(serverCode)),
                               c.m_stampNs, e->m_headSeen);
            } else if (code == NGHTTP2_REFUSED_STREAM && c.m_goingAway) {
                c.staleExchange(e,
                                QStringLiteral("server retired the HTTP/2 connection before this stream (GOAWAY %1)")
                                    .arg(codeName(c.m_serverGoaway.value_or(NGHTTP2_NO_ERROR))),
                                c.m_stampNs);
            } else {
                // nghttp2 reset it: the server broke HTTP/2's rules for this stream.
                c.failExchange(e, RequestStatus::Protocol,
                               QStringLiteral("malformed HTTP/2 response: %1")
                                   .arg(c.m_error.isEmpty() ? codeName(code) : c.m_error),
                               c.m_stampNs, false);
            }
            return 0;
        });
    }

    static int onFrameSend(nghttp2_session *, const nghttp2_frame *frame, void *user)
    {
        return guarded([&] {
            H2Connection &c = self(user);
            if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
                if (H2Exchange *e = c.exchangeOf(frame->hd.stream_id); e && !e->m_queued) {
                    e->m_queued = true;
                    c.m_awaitingWrite.push_back(e);
                }
            }
            return 0;
        });
    }

    static int onError(nghttp2_session *, int, const char *message, std::size_t size, void *user)
    {
        return guarded([&] {
            self(user).m_error = QString::fromUtf8(message, qsizetype(std::min<std::size_t>(size, 200)));
            return 0;
        });
    }

    static ssize_t readBody(nghttp2_session *, std::int32_t stream, std::uint8_t *buf, std::size_t length,
                            std::uint32_t *flags, nghttp2_data_source *, void *user)
    {
        H2Exchange *e = self(user).exchangeOf(stream);
        if (!e)
            return NGHTTP2_ERR_DEFERRED; // abandoned: the RST_STREAM already queued ends it
        const std::size_t n = std::min(length, std::size_t(e->m_body.size() - e->m_bodyOffset));
        std::memcpy(buf, e->m_body.constData() + e->m_bodyOffset, n);
        e->m_bodyOffset += qsizetype(n);
        if (e->m_bodyOffset >= e->m_body.size()) {
            *flags |= NGHTTP2_DATA_FLAG_EOF;
            e->m_body = {};
            e->m_bodyOffset = 0;
        }
        return ssize_t(n);
    }
};

H2Connection::H2Connection(const Endpoint &endpoint, const RunClock &clock, SocketPoller *poller, QObject *parent)
    : H2Connection(endpoint, clock, parent)
{
    m_stream = ByteStream::create(endpoint, clock, this, poller, this, alpnFor(endpoint.httpVersion));
}

H2Connection::H2Connection(const Endpoint &endpoint, const RunClock &clock, std::unique_ptr<ByteStream> open,
                           QObject *parent)
    : H2Connection(endpoint, clock, parent)
{
    m_stream = std::move(open);
    m_stream->handOver(this, this);
    m_idleSinceNs = m_clock.nowNs();
    m_opening = true;
    m_connected = true;
    flush(); // the preface and SETTINGS
}

H2Connection::H2Connection(const Endpoint &endpoint, const RunClock &clock, QObject *parent)
    : StreamConnection(endpoint, clock, parent)
{
    nghttp2_session_callbacks *callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0)
        throw std::bad_alloc();
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &H2Callbacks::onHeader);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &H2Callbacks::onFrameRecv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &H2Callbacks::onData);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &H2Callbacks::onStreamClose);
    nghttp2_session_callbacks_set_on_frame_send_callback(callbacks, &H2Callbacks::onFrameSend);
    nghttp2_session_callbacks_set_error_callback2(callbacks, &H2Callbacks::onError);
    nghttp2_option *option = nullptr;
    nghttp2_option_new(&option);
    // Until the server's SETTINGS: what RFC 9113 asks every server to allow.
    nghttp2_option_set_peer_max_concurrent_streams(option, kMaxStreams);
    const int rv = nghttp2_session_client_new2(&m_session, callbacks, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0)
        throw std::bad_alloc();
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, std::uint32_t(kStreamWindow)},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, std::uint32_t(HttpResponseParser::kMaxHeadBytes)},
    };
    nghttp2_submit_settings(m_session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    nghttp2_session_set_local_window_size(m_session, NGHTTP2_FLAG_NONE, 0, kConnectionWindow);
}

H2Connection::~H2Connection()
{
    for (H2Exchange *e : m_exchanges)
        e->m_sink = nullptr;
    m_stream->abort();
    nghttp2_session_del(m_session);
}

int H2Connection::maxStreams() const
{
    const std::uint32_t server =
        nghttp2_session_get_remote_settings(m_session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    return int(std::min<std::uint32_t>(server, kMaxStreams));
}

H2Exchange *H2Connection::exchangeOf(std::int32_t stream) const
{
    const auto it = m_byStream.find(stream);
    return it == m_byStream.end() ? nullptr : it->second;
}

H2Exchange *H2Connection::acquire()
{
    auto *e = new H2Exchange(this);
    m_exchanges.push_back(e);
    return e;
}

void H2Connection::send(H2Exchange *e, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink)
{
    e->m_sink = sink;
    QList<QPair<QByteArray, QByteArray>> fields = {{":method", hop.post ? "POST" : "GET"},
                                                   {":scheme", m_endpoint.tls ? "https" : "http"},
                                                   {":authority", RequestBuilder::hostPort(hop.url)},
                                                   {":path", RequestBuilder::requestTarget(hop.url)}};
    for (const auto &[name, value] : builder.requestHeaders(hop.credentials, hop.post)) {
        const QByteArray lower = name.toLower(); // HTTP/2 field names are lower case
        if (!notForHttp2(lower))
            fields.append({lower, value});
    }
    if (hop.post) {
        e->m_body = QByteArray(hop.json.data(), qsizetype(hop.json.size()));
        fields.append({"content-length", QByteArray::number(e->m_body.size())});
    }
    std::vector<nghttp2_nv> nva;
    nva.reserve(std::size_t(fields.size()));
    for (auto &[name, value] : fields)
        nva.push_back({reinterpret_cast<std::uint8_t *>(name.data()), reinterpret_cast<std::uint8_t *>(value.data()),
                       std::size_t(name.size()), std::size_t(value.size()), NGHTTP2_NV_FLAG_NONE});
    nghttp2_data_provider body{};
    body.read_callback = &H2Callbacks::readBody;
    const std::int32_t id =
        nghttp2_submit_request(m_session, nullptr, nva.data(), nva.size(), hop.post ? &body : nullptr, nullptr);
    if (id < 0) {
        if (id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE)
            m_goingAway = true; // stream ids used up: a new connection takes the next ones
        failExchange(e, RequestStatus::Protocol,
                     QStringLiteral("cannot start an HTTP/2 stream: %1").arg(QString::fromLatin1(nghttp2_strerror(id))),
                     m_clock.nowNs(), false);
        return;
    }
    e->m_stream = id;
    m_byStream.emplace(id, e);
    if (!m_connected && !m_opening) {
        m_opening = true;
        m_stream->open();
        return;
    }
    flush();
}

void H2Connection::release(H2Exchange *e)
{
    forget(e);
    // Over before the server ended it, or while the request was still going out: the server
    // stops this stream only (its generation ends, as for a closed HTTP/1.1 connection).
    if (e->m_stream > 0 && !e->m_closed && !(e->m_ended && e->m_queued) && !m_dead)
        nghttp2_submit_rst_stream(m_session, NGHTTP2_FLAG_NONE, e->m_stream, NGHTTP2_CANCEL);
    e->deleteLater();
    flush();
    retireIfDone();
}

void H2Connection::forget(H2Exchange *e)
{
    e->m_sink = nullptr;
    std::erase(m_exchanges, e);
    std::erase(m_awaitingWrite, e);
    m_byStream.erase(e->m_stream); // what nghttp2 still says of its stream goes unheard
    if (m_exchanges.empty())
        m_idleSinceNs = m_clock.nowNs();
}

void H2Connection::failExchange(H2Exchange *e, RequestStatus status, const QString &message, std::int64_t stampNs,
                                bool cutAfterHead)
{
    ResponseSink *sink = e->m_sink;
    forget(e);
    e->deleteLater();
    if (sink)
        sink->responseFailed(status, message, cutAfterHead, stampNs);
}

void H2Connection::staleExchange(H2Exchange *e, const QString &message, std::int64_t stampNs)
{
    ResponseSink *sink = e->m_sink;
    forget(e);
    e->deleteLater();
    if (sink)
        sink->connectionStale(RequestStatus::ServerError, message, stampNs);
}

void H2Connection::shutdown()
{
    if (m_dead)
        return;
    m_goingAway = true;
    nghttp2_session_terminate_session(m_session, NGHTTP2_NO_ERROR);
    flush();
    failAll(RequestStatus::Cancelled, QStringLiteral("connection closed"), m_clock.nowNs(), false);
}

void H2Connection::flush()
{
    if (m_inSession > 0 || !m_connected || m_dead)
        return; // after nghttp2's callbacks return; once connected
    if (m_flushing) {
        m_flushAgain = true;
        return;
    }
    m_flushing = true;
    do {
        m_flushAgain = false;
        QByteArray out;
        for (;;) {
            const std::uint8_t *data = nullptr;
            const ssize_t n = nghttp2_session_mem_send(m_session, &data);
            if (n < 0) {
                m_flushing = false;
                failAll(RequestStatus::Protocol,
                        QStringLiteral("HTTP/2: %1").arg(QString::fromLatin1(nghttp2_strerror(int(n)))),
                        m_clock.nowNs(), false);
                return;
            }
            if (n == 0)
                break;
            out.append(reinterpret_cast<const char *>(data), qsizetype(n));
        }
        if (!out.isEmpty())
            m_stream->write(out); // may report streamWritten or streamFailed before it returns
    } while (m_flushAgain && !m_dead);
    m_flushing = false;
}

void H2Connection::retireIfDone()
{
    if (m_inSession > 0 || m_dead)
        return;
    if (!nghttp2_session_want_read(m_session) && !nghttp2_session_want_write(m_session)) {
        // nghttp2 ended the session (GOAWAY sent for a server that broke HTTP/2's rules).
        failAll(RequestStatus::Protocol,
                QStringLiteral("malformed HTTP/2 response: %1")
                    .arg(m_error.isEmpty() ? QStringLiteral("the session ended") : m_error),
                m_clock.nowNs(), false);
        return;
    }
    if (m_goingAway && m_exchanges.empty())
        failAll(RequestStatus::Protocol, QStringLiteral("retired"), m_clock.nowNs(), false); // none left to hear it
}

void H2Connection::failAll(RequestStatus status, const QString &message, std::int64_t stampNs, bool broken,
                           const QString &cause)
{
    if (m_dead)
        return;
    m_dead = true;
    m_connected = false;
    m_stream->abort();
    const std::vector<H2Exchange *> exchanges = m_exchanges;
    for (H2Exchange *e : exchanges) {
        QString why = message;
        if (why.isEmpty()) {
            why = e->m_headSeen ? QStringLiteral("connection closed before the response was complete")
                                : QStringLiteral("connection closed before any response");
            if (!cause.isEmpty())
                why += QStringLiteral(": ") + cause;
        }
        // A server that said GOAWAY and then closed may close cleanly or, with the client's last
        // frames unread, reset: either way the GOAWAY is what the user needs to hear.
        if (m_serverGoaway)
            why += QStringLiteral(" (after GOAWAY %1)").arg(codeName(*m_serverGoaway));
        failExchange(e, status, why, stampNs, broken && e->m_headSeen);
    }
    reportLost();
}

void H2Connection::reportLost()
{
    if (firstLoss())
        Q_EMIT connectionLost(this);
}

void H2Connection::streamOpened()
{
    // HTTP/2 over TLS only where the server agreed by ALPN (RFC 9113 §3.2): one that did not
    // would read the preface as a broken HTTP/1.1 request.
    if (m_endpoint.tls) {
        if (const QByteArray picked = m_stream->negotiatedProtocol(); picked != "h2") {
            failAll(RequestStatus::Protocol, notHttp2ByAlpn(picked), m_clock.nowNs(), false);
            return;
        }
    }
    m_connected = true;
    tellSinks(&ResponseSink::connectionOpened);
    flush(); // the preface, SETTINGS and every request submitted meanwhile
}

void H2Connection::streamHandshaking()
{
    tellSinks(&ResponseSink::connectionHandshaking);
}

void H2Connection::tellSinks(void (ResponseSink::*what)())
{
    const std::vector<H2Exchange *> exchanges = m_exchanges;
    for (H2Exchange *e : exchanges) {
        // A sink may end its exchange or another one when it hears: the rest still on it hear.
        if (e->m_sink && std::find(m_exchanges.begin(), m_exchanges.end(), e) != m_exchanges.end())
            (e->m_sink->*what)();
    }
}

void H2Connection::streamWritten(std::int64_t stampNs)
{
    const std::vector<H2Exchange *> written = std::exchange(m_awaitingWrite, {});
    for (H2Exchange *e : written) {
        if (e->m_sink && !e->m_sentReported &&
            std::find(m_exchanges.begin(), m_exchanges.end(), e) != m_exchanges.end()) {
            e->m_sentReported = true;
            e->m_sink->requestSent(stampNs);
        }
    }
}

void H2Connection::streamReceived(const char *data, std::size_t size, std::int64_t stampNs)
{
    m_stampNs = stampNs;
    ++m_inSession;
    const ssize_t rv = nghttp2_session_mem_recv(m_session, reinterpret_cast<const std::uint8_t *>(data), size);
    --m_inSession;
    if (m_dead)
        return;
    if (rv < 0) {
        failAll(RequestStatus::Protocol,
                QStringLiteral("malformed HTTP/2 response: %1")
                    .arg(m_error.isEmpty() ? QString::fromLatin1(nghttp2_strerror(int(rv))) : m_error),
                stampNs, false);
        return;
    }
    flush();
    retireIfDone();
}

void H2Connection::streamClosed(std::int64_t stampNs)
{
    m_connected = false;
    failAll(RequestStatus::Protocol, QString(), stampNs, true);
}

void H2Connection::streamFailed(RequestStatus status, const QString &message, std::int64_t stampNs)
{
    if (!m_connected) {
        failAll(status, message, stampNs, true); // Connect or Tls
        return;
    }
    // Open, the socket failed (a reset, a broken pipe): what that means to each stream comes first.
    failAll(status, QString(), stampNs, true, message);
}

} // namespace tb
