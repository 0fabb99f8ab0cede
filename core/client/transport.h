#pragma once

#include "metrics/requestrecord.h"
#include "net/httpresponseparser.h"

#include <QString>
#include <QUrl>

#include <cstdint>
#include <string>

namespace tb {

class Exchange;
class RequestBuilder;
struct Endpoint;

/// One request a transport sends: a job's first, or a redirect's next hop
/// (RequestBuilder::redirect), with the JSON body the job renders once.
struct Hop {
    const Endpoint &endpoint;
    const QUrl &url;
    const std::string &json;
    bool post = true;        ///< false: a GET without body (after a 301, 302 or 303)
    bool credentials = true; ///< with the target's credential headers (its own origin only)
    /// The whole HTTP/1.1 message when already made (a redirect's); empty: the builder's for json.
    QByteArray message;
};

/// What a transport reports about an exchange in progress. All calls come on the worker's
/// thread; after responseComplete or responseFailed there are no more calls.
class ResponseSink
{
public:
    virtual ~ResponseSink() = default;
    /// The connection (TCP, and TLS for https) is open: connecting is over.
    virtual void connectionOpened() = 0;
    /// https: connected over TCP, the TLS handshake begins.
    virtual void connectionHandshaking() {}
    /// The transport moved the exchange onto another: a first connection's request, once the
    /// server picked h2 or http/1.1 by ALPN. `next` is the exchange from now on.
    virtual void exchangeMoved(Exchange *next) = 0;
    /// The whole request was handed to the kernel — or, when the server answered before taking
    /// all of it (413 to a large body), when its answer began.
    virtual void requestSent(std::int64_t stampNs) = 0;
    virtual void responseHead(const ResponseHead &head, std::int64_t stampNs) = 0;
    /// A piece of the (de-chunked) body; stampNs is when its bytes arrived (see ByteStream).
    virtual void responseBody(const char *data, std::size_t size, std::int64_t stampNs) = 0;
    virtual void responseComplete(std::int64_t stampNs) = 0;
    /// Connection, TLS or HTTP-level failure: Connect, Tls or Protocol; `cutAfterHead` when the
    /// connection broke after the response had begun (a body cut off, not a malformed one).
    virtual void responseFailed(RequestStatus status, const QString &message, bool cutAfterHead,
                                std::int64_t stampNs) = 0;
    /// The exchange went out on a kept-alive connection that the server had closed, or closed as
    /// the request arrived, before any byte of a response: the server never answered it (real
    /// servers close idle connections when they like — llama.cpp after every streamed response).
    /// The exchange is over (the transport disposed of it); the request may go again on a new
    /// connection. Never after a response began, never for a connection opened for the exchange.
    /// `status` and `message` are its failure when it does not go again.
    virtual void connectionStale(RequestStatus status, const QString &message, std::int64_t stampNs) = 0;
    /// The transport sent the request again by itself (QNAM failed it before it left): a retry,
    /// counted like the worker's own.
    virtual void sentAgain() = 0;
};

/// One exchange a transport carries, as the worker's deadlines see it.
class Exchange
{
public:
    virtual ~Exchange() = default;
    /// Open: connected, and past the TLS handshake for https.
    virtual bool isConnected() const = 0;
    /// Connected over TCP, TLS handshake not finished.
    virtual bool handshaking() const = 0;
    /// Where it goes, through which proxy.
    virtual const Endpoint &endpoint() const = 0;
    /// The run-unique number of the connection that carries it (RequestRecord::connection); 0
    /// when the transport cannot tell (QNAM picks its connections itself and does not say which).
    virtual std::uint64_t connectionNumber() const { return 0; }
};

/// How a TransportWorker's requests reach their servers (docs/measuring.md "Transports"): the native
/// HTTP/1.1 and HTTP/2 client or QNetworkAccessManager. Lives on the worker's thread and is used only there;
/// both feed the same ResponseSink, so decoding, records and deadlines are the worker's, once.
class Transport
{
public:
    virtual ~Transport() = default;
    /// An exchange to `endpoint`, on a kept-alive connection when there is one and `fresh` is
    /// false. It lives until release() or abandon(), or until it reports responseFailed or
    /// connectionStale (then the transport disposes of it).
    virtual Exchange *acquire(const Endpoint &endpoint, bool fresh) = 0;
    /// Starts the exchange: the sink may hear from it before this returns.
    virtual void send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink) = 0;
    /// The sink heard responseComplete: the exchange's connection may carry another.
    virtual void release(Exchange *exchange) = 0;
    /// Ends an exchange in progress (a deadline, Stop, a response not to be read on): closes what
    /// carries it; the sink hears nothing more.
    virtual void abandon(Exchange *exchange) = 0;
    /// Closes idle connections (Stop).
    virtual void closeIdle() = 0;
    /// Whether its sinks hear when TCP is up and TLS done (connectionHandshaking,
    /// connectionOpened) and requestSent when the bytes reached the kernel: what the request
    /// phases connect, tls and sending need. QNAM says neither.
    virtual bool timesPhases() const = 0;
    /// How long the worker's exchanges take, request sent to response done (a running mean, after
    /// each): a transport that holds reads back to handle several in one pass keeps that delay small
    /// against it, as a closed loop's next request waits for the last read of the one before.
    virtual void exchangesTake(std::int64_t meanNs) { (void)meanNs; }
};

} // namespace tb
