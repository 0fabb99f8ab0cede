#include "client/transportworker.h"

#include "api/streamdecoder.h"
#include "client/nativetransport.h"
#include "client/qnamtransport.h"
#include "config/saturating.h"
#include "net/jsonbodyend.h"
#include "net/sseparser.h"

#include <QAbstractEventDispatcher>

#include <chrono>
#include <optional>
#include <utility>

namespace tb {

namespace {

/// Server text reaches the error column (an HTML page's NUL, terminal escapes): no control
/// characters in what is recorded.
void makePrintable(QString &text)
{
    for (QChar &c : text) {
        if (c.category() == QChar::Other_Control)
            c = (c == u'\t' || c == u'\n' || c == u'\r') ? QChar(u' ') : QChar(QChar::ReplacementCharacter);
    }
}

} // namespace

/// One request in flight: the record being filled in, and the decoding state of its response.
class ActiveRequest final : public ResponseSink
{
public:
    ActiveRequest(TransportWorker *worker, const RequestJob &job, const RequestBuilder &builder)
        : m_worker(worker)
        , m_builder(builder)
        , m_decoder(builder.api(), worker->m_plan->targets.at(std::size_t(job.target)).tokenizer.get(), job.turn > 0,
                    worker->m_plan->config.quality.saveOutputs)
        , m_url(builder.url())
    {
        m_record = job.record();
        if (builder.checksOutput())
            m_decoder.checkOutput(builder.outputSchema());
        m_decoder.checkToolCalls(builder.toolSet());
        m_decoder.begin(&m_record);
    }

    RequestRecord &record() { return m_record; }
    const RequestBuilder &builder() const { return m_builder; }
    /// Closes what carries the exchange in progress, if any; its sink (this) hears nothing more.
    void abandonExchange()
    {
        if (Exchange *e = std::exchange(exchange, nullptr))
            transport->abandon(e);
    }
    Transport *transport = nullptr;
    Exchange *exchange = nullptr;
    std::int64_t promptTokens = 0;
    TokenSource promptSource = TokenSource::Estimate;
    /// With images: the text's prompt tokens in the target's counting (the calibration's when the
    /// run calibrated), which the server's usage less is the images' (RequestRecord::imageTokens).
    std::int64_t textTokens = 0;
    TransportWorker::Deadlines::iterator deadline;
    /// The request body: kept until its answer begins (a stale connection's request goes again),
    /// for the whole request when redirects are followed (a 307/308 sends it on).
    std::string json;
    std::optional<TransportWorker::Deadlines::iterator> connectDeadline;
    /// --cancel-rate chose it: abandoned at --cancel-after (a deadline from its start, or set at its
    /// first token), unless its answer is whole first.
    bool chosenToAbandon = false;
    std::optional<TransportWorker::Deadlines::iterator> cancelDeadline;

    /// The hop in flight, to send it again after a stale connection.
    struct Resend {
        Endpoint endpoint;
        bool post = true;
        bool credentials = true;
        QByteArray message;
    };
    std::optional<Resend> resend;

    /// An attempt begins on `exchange`: its phases run from here (a redirect's hop, after the
    /// first was sent, is not an attempt of its own).
    void attemptStarted(std::int64_t nowNs, bool connecting)
    {
        if (m_sentSeen)
            return;
        m_attemptNs = nowNs;
        m_connecting = connecting;
        m_tcpNs = m_openNs = -1;
    }

    /// Counted as connecting until the connection opens or the request ends.
    void startConnecting()
    {
        if (m_phase != Phase::Open) // a redirect hop while still connecting counts once
            return;
        m_phase = Phase::Connecting;
        m_worker->m_counters->connecting.fetch_add(1, std::memory_order_relaxed);
    }

    void connectionHandshaking() override
    {
        m_tcpNs = m_worker->m_clock.nowNs();
        if (m_phase != Phase::Connecting)
            return;
        m_worker->m_counters->connecting.fetch_sub(1, std::memory_order_relaxed);
        m_worker->m_counters->handshaking.fetch_add(1, std::memory_order_relaxed);
        m_phase = Phase::Handshaking;
    }

    void exchangeMoved(Exchange *next) override
    {
        exchange = next;
        m_record.connection = next->connectionNumber();
    }

    void connectionOpened() override
    {
        m_openNs = m_worker->m_clock.nowNs();
        leaveConnecting();
        if (connectDeadline) {
            m_worker->m_deadlines.erase(*connectDeadline);
            connectDeadline.reset();
        }
    }

    void requestSent(std::int64_t stampNs) override
    {
        if (m_sentSeen)
            return; // a redirect's hop: latencies count from the original send
        m_sentSeen = true;
        m_record.sentNs = stampNs;
        notePhases(stampNs);
        if (!m_counted) {
            m_counted = true;
            m_worker->m_counters->requestSent();
        }
    }

    void responseHead(const ResponseHead &head, std::int64_t stampNs) override
    {
        m_record.headersNs = stampNs;
        resend.reset(); // answered: it will not go again
        if (!m_builder.followsRedirects())
            std::string().swap(json);
        m_record.httpStatus = head.status;
        m_record.httpVersion = head.http2 ? 2 : 1;
        m_record.streams = head.streams;
        m_record.retryAfterS = head.retryAfterS;
        if (head.status == 407 && exchange && exchange->endpoint().proxiedPlain()) {
            m_worker->endRequest(this, RequestStatus::Proxy,
                                 QStringLiteral("proxy %1: HTTP 407 (Proxy Authentication Required)")
                                     .arg(exchange->endpoint().proxy.describe()),
                                 stampNs);
            return; // ended: `this` is gone
        }
        if (m_builder.followsRedirects() && isRedirect(head.status)) {
            if (m_record.redirects >= limits::kMaxRedirects) {
                m_worker->endRequest(
                    this, RequestStatus::Http,
                    QStringLiteral("HTTP %1: more than %2 redirects").arg(head.status).arg(limits::kMaxRedirects),
                    stampNs);
                return;
            }
            m_mode = Mode::Redirect; // its body is not the answer: read past it, then follow
            m_location = head.location;
            return;
        }
        if (!head.contentEncoding.isEmpty()) {
            // Asked for identity; encoded bytes would read as a broken stream or binary text.
            const QString what =
                QStringLiteral("response is Content-Encoding: ") + QString::fromLatin1(head.contentEncoding.left(40));
            const bool ok = head.status >= 200 && head.status < 300;
            m_worker->endRequest(this, ok ? RequestStatus::Protocol : RequestStatus::Http,
                                 ok ? what : QStringLiteral("HTTP %1: %2").arg(head.status).arg(what), stampNs);
            return; // ended: `this` is gone
        }
        if (head.status < 200 || head.status >= 300)
            m_mode = Mode::ErrorBody;
        else if (head.contentType == "text/event-stream")
            m_mode = Mode::EventStream;
        else
            m_mode = Mode::JsonBody;
        // Only a body that says it is JSON may end at its value: NDJSON's first line is a value too.
        m_jsonTyped = head.contentType == "application/json" || head.contentType.endsWith("+json");
    }

    void responseBody(const char *data, std::size_t size, std::int64_t stampNs) override
    {
        if (m_mode == Mode::Redirect)
            return;
        if (m_mode == Mode::EventStream) {
            const int before = m_record.chunks;
            m_sse.feed(data, size, [this, stampNs](std::string_view event, std::string_view payload) {
                m_decoder.onEvent(event, payload, stampNs);
            });
            if (m_record.chunks != before)
                m_worker->m_counters->chunks.fetch_add(m_record.chunks - before, std::memory_order_relaxed);
            if (before == 0 && m_record.chunks > 0 && chosenToAbandon && !cancelDeadline)
                cancelDeadline =
                    m_worker->addDeadline(m_record.firstGeneratedNs() + m_worker->m_cancelAfter->ms * 1'000'000, this,
                                          TransportWorker::Deadline::Cancel);
            if (m_sse.error())
                m_worker->endRequest(this, RequestStatus::Protocol, QString::fromLatin1(m_sse.error()), stampNs);
            else if (m_endedNs < 0 && m_decoder.streamEnded())
                responseEnded(stampNs);
            return;
        }
        if (m_body.size() + size <= std::size_t(HttpResponseParser::kMaxBodyBytes)) {
            m_body.append(data, size);
            if (m_jsonTyped && m_endedNs < 0 && m_jsonEnd.feed(m_body, size))
                responseEnded(stampNs);
        } else if (m_mode == Mode::JsonBody) { // an error body's first 32 MiB are message enough
            m_worker->endRequest(this, RequestStatus::Protocol, QStringLiteral("response body exceeds 32 MiB"),
                                 stampNs);
        }
    }

    void responseComplete(std::int64_t stampNs) override { complete(stampNs); }

    /// The response said its last word and the server did not end its HTTP body after it (see
    /// responseEnded): the exchange's connection was closed, and the response is complete as of
    /// its last word.
    void completeUnended()
    {
        m_record.unendedBody = true;
        complete(m_endedNs);
    }

    /// When the response said its last word ([DONE], the API's finish event, its JSON body's
    /// value closed) while its HTTP body had not ended; -1 until then.
    std::int64_t endedNs() const { return m_endedNs; }

    void responseFailed(RequestStatus status, const QString &message, bool cutAfterHead, std::int64_t stampNs) override
    {
        if (m_endedNs >= 0) {   // the connection broke after the last word: the response is whole
            exchange = nullptr; // the transport disposes of it
            completeUnended();
            return;
        }
        m_record.doneNs = stampNs;
        exchange = nullptr;     // the transport disposes of it
        if (m_decoder.failed()) // what the stream said before it broke (a server's error event) tells more
            fail(m_decoder.failure(), m_record.errorMessage);
        else if (cutAfterHead && status == RequestStatus::Protocol && m_mode == Mode::EventStream)
            status = RequestStatus::StreamTruncated;
        fail(status, message);
        settle();
    }

    void connectionStale(RequestStatus status, const QString &message, std::int64_t stampNs) override
    {
        exchange = nullptr; // the transport disposes of it
        if (m_record.retries >= limits::kMaxRetries || !resend) {
            responseFailed(status, message, false, stampNs);
            return;
        }
        ++m_record.retries;
        m_sentSeen = false; // the next attempt's send is the one the server reads
        const Resend hop = *resend;
        m_worker->sendOn(this, Hop{hop.endpoint, m_url, json, hop.post, hop.credentials, hop.message}, stampNs, true);
    }

    void sentAgain() override { ++m_record.retries; }

    /// Ends the request from the outside (deadline, Stop).
    void abort(RequestStatus status, const QString &message, std::int64_t stampNs)
    {
        m_record.doneNs = stampNs;
        fail(status, message);
        settle();
    }

private:
    enum class Mode { None, EventStream, JsonBody, ErrorBody, Redirect };

    /// The response said its last word at `stampNs` and its HTTP body has not ended: a server that
    /// ends it ends it now (the rest of the read, the next one); the worker gives it
    /// TransportWorker::kBodyEndGraceNs, then closes the connection (completeUnended).
    void responseEnded(std::int64_t stampNs)
    {
        m_endedNs = stampNs;
        m_worker->awaitBodyEnd(this, stampNs);
    }

    /// The response is complete: decoded, classified, recorded as done at `stampNs`.
    void complete(std::int64_t stampNs)
    {
        m_record.doneNs = stampNs;
        if (m_mode == Mode::Redirect) {
            follow(stampNs);
            return;
        }
        switch (m_mode) {
        case Mode::ErrorBody:
            m_record.status = RequestStatus::Http;
            m_record.errorMessage =
                QStringLiteral("HTTP %1: %2").arg(m_record.httpStatus).arg(StreamDecoder::errorMessageFromBody(m_body));
            break;
        case Mode::JsonBody:
            if (!m_body.empty() && (m_body.front() == '<'))
                fail(RequestStatus::Protocol, QStringLiteral("expected JSON or an event stream, got HTML"));
            else
                m_decoder.onBody(m_body, stampNs);
            break;
        case Mode::EventStream:
        case Mode::None:
        case Mode::Redirect:
            break;
        }
        if (m_record.status == RequestStatus::Ok) {
            if (m_decoder.failed())
                m_record.status = m_decoder.failure();
            else if (!m_decoder.complete()) {
                m_record.status = RequestStatus::StreamTruncated;
                m_record.errorMessage = m_decoder.dialect().truncatedMessage();
            }
        }
        settle();
    }

    void follow(std::int64_t stampNs)
    {
        QString why;
        const auto next = m_builder.redirect(m_url, m_location, m_record.httpStatus, json, &why);
        if (!next) {
            fail(RequestStatus::Http, why);
            settle();
            return;
        }
        ++m_record.redirects;
        m_url = next->url;
        m_mode = Mode::None;
        m_location.clear();
        m_worker->sendOn(this, Hop{next->endpoint, m_url, json, next->keepsBody, next->credentials, next->message},
                         stampNs, false);
    }
    enum class Phase { Open, Connecting, Handshaking };

    void fail(RequestStatus status, const QString &message)
    {
        if (m_record.status == RequestStatus::Ok) {
            m_record.status = status;
            m_record.errorMessage = message;
        }
    }

    void leaveConnecting()
    {
        if (m_phase == Phase::Connecting)
            m_worker->m_counters->connecting.fetch_sub(1, std::memory_order_relaxed);
        else if (m_phase == Phase::Handshaking)
            m_worker->m_counters->handshaking.fetch_sub(1, std::memory_order_relaxed);
        m_phase = Phase::Open;
    }

    /// The attempt's phases (docs/SPEC.md §3 request phases) into the record, up to `endNs`: when it was
    /// sent, or when it ended unsent. Which phases the transport can time: Transport::timesPhases.
    void notePhases(std::int64_t endNs)
    {
        if (m_attemptNs < 0)
            return;
        RequestRecord &r = m_record;
        if (r.scheduledNs >= 0)
            r.blockedNs = std::max<std::int64_t>(0, m_attemptNs - r.scheduledNs);
        if (!transport->timesPhases()) {
            r.connectNs = r.tlsNs = r.sendingNs = -1;
            return;
        }
        if (!m_connecting) {
            r.connectNs = r.tlsNs = 0;
            r.sendingNs = std::max<std::int64_t>(0, endNs - m_attemptNs);
            return;
        }
        // In clear there is no handshake: open is TCP up. Unopened, the phase in progress ran
        // until the end.
        const std::int64_t tcp = m_tcpNs >= 0 ? m_tcpNs : m_openNs >= 0 ? m_openNs : endNs;
        r.connectNs = std::max<std::int64_t>(0, tcp - m_attemptNs);
        r.tlsNs = m_tcpNs < 0 ? 0 : std::max<std::int64_t>(0, (m_openNs >= 0 ? m_openNs : endNs) - m_tcpNs);
        r.sendingNs = m_openNs >= 0 ? std::max<std::int64_t>(0, endNs - m_openNs) : -1;
    }

    void settle()
    {
        if (!m_sentSeen)
            notePhases(m_record.doneNs);
        leaveConnecting();
        m_decoder.finish(promptTokens, promptSource);
        if (m_record.images > 0 && m_record.ok() && m_record.promptTokenSource == TokenSource::Usage)
            m_record.imageTokens = m_record.promptTokens - textTokens; // both at most limits::kMaxTokenCount
        if (m_counted)
            m_worker->m_counters->requestDone();
        m_worker->finish(this);
    }

    TransportWorker *m_worker;
    const RequestBuilder &m_builder;
    RequestRecord m_record;
    StreamDecoder m_decoder;
    SseParser m_sse;
    std::string m_body;
    JsonBodyEnd m_jsonEnd;
    bool m_jsonTyped = false; ///< the body says it is JSON (Content-Type): it may end at its value
    std::int64_t m_endedNs = -1;
    Mode m_mode = Mode::None;
    QUrl m_url; ///< of the request in flight: where a redirect's Location is resolved
    QByteArray m_location;
    bool m_counted = false;  ///< counted as sent in the live counters (once, whatever the attempts)
    bool m_sentSeen = false; ///< the attempt's request was sent
    Phase m_phase = Phase::Open;
    std::int64_t m_attemptNs = -1; ///< the attempt's start: its connect began, or its bytes began to go out
    std::int64_t m_tcpNs = -1;     ///< TCP up, TLS handshake begins
    std::int64_t m_openNs = -1;    ///< the connection is open (TCP, and TLS)
    bool m_connecting = false;     ///< the attempt waited for a connection to open
};

TransportWorker::TransportWorker(std::shared_ptr<const RunPlan> plan, const RunClock &clock,
                                 std::shared_ptr<LiveCounters> counters, CompletedFn completed)
    : m_plan(std::move(plan))
    , m_clock(clock)
    , m_counters(std::move(counters))
    , m_completed(std::move(completed))
{
    m_deadlineTimer.setParent(this); // moves to the worker thread with us
    m_native = new NativeTransport(m_clock, m_counters, this);
    m_deadlineTimer.setSingleShot(true);
    m_deadlineTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &TransportWorker::checkDeadlines);
    if (m_plan->config.load.cancelRate > 0)
        m_cancelAfter = parseCancelAfter(m_plan->config.load.cancelAfter); // validated with the configuration
}

TransportWorker::~TransportWorker()
{
    m_completed = nullptr; // nobody listens any more; just tear down
    for (auto &[raw, request] : m_active)
        request->abandonExchange();
    m_active.clear();
    delete m_qnam;
    delete m_native;
}

void TransportWorker::execute(const RequestJob &job)
{
    if (!m_passesWatched) {
        m_passesWatched = true;
        if (QAbstractEventDispatcher *dispatcher = QAbstractEventDispatcher::instance(thread()))
            connect(dispatcher, &QAbstractEventDispatcher::awake, this, [this] { m_sliceUsedNs = 0; });
    }
    if (m_queued.empty() && m_sliceUsedNs < kStartSliceNs) {
        start(job);
        return;
    }
    m_queued.push_back(job);
    if (!std::exchange(m_drainPosted, true))
        QMetaObject::invokeMethod(this, &TransportWorker::startQueued, Qt::QueuedConnection);
}

void TransportWorker::startQueued()
{
    m_drainPosted = false;
    m_sliceUsedNs = 0; // the pass's first posted call, or a dispatcher that never says "awake"
    while (!m_queued.empty() && m_sliceUsedNs < kStartSliceNs) {
        const RequestJob job = std::move(m_queued.front());
        m_queued.pop_front();
        start(job);
    }
    if (!m_queued.empty() && !std::exchange(m_drainPosted, true))
        QMetaObject::invokeMethod(this, &TransportWorker::startQueued, Qt::QueuedConnection);
}

void TransportWorker::start(const RequestJob &job)
{
    const std::int64_t began = m_clock.nowNs();
    ActiveRequest *raw = admit(job, began);
    sendOn(raw, Hop{raw->builder().endpoint(), raw->builder().url(), raw->json, true, true, {}}, began, false);
    m_sliceUsedNs += m_clock.nowNs() - began;
}

ActiveRequest *TransportWorker::admit(const RequestJob &job, std::int64_t now)
{
    const RequestBuilder &builder = m_plan->targets.at(std::size_t(job.target)).instances.at(std::size_t(job.instance));
    auto request = std::make_unique<ActiveRequest>(this, job, builder);
    ActiveRequest *raw = request.get();
    Prompt generated;
    const PromptSource &prompts = m_plan->promptsOf(job.stage);
    const int batch = m_plan->config.request.batchSize;
    if (!job.prompt && batch > 1)
        generated = prompts.batch(job.id - 1, batch, builder.dialect().systemApart());
    const Prompt &prompt =
        job.prompt ? *job.prompt : (batch > 1 ? generated : (generated = prompts.prompt(job.id - 1)));
    // The prompt's count in this target's tokenizer (a comparison's targets may count differently
    // from the first, whose tokenizer sized the prompts), else TokenBench's estimate.
    const auto &own = m_plan->targets.at(std::size_t(job.target)).tokenizer;
    const Tokenizer &counting = own ? *own : *Tokenizer::approx();
    raw->promptSource = own ? TokenSource::Tokenizer : TokenSource::Estimate;
    raw->promptTokens = &counting == &prompts.tokenizer() ? prompt.tokens : PromptSource::count(prompt, counting);
    if (!builder.dialect().generates())
        raw->record().inputs = prompt.inputs.empty() ? 1 : int(prompt.inputs.size());
    if (!prompt.images.empty()) {
        RequestRecord &r = raw->record();
        r.images = int(prompt.images.size());
        for (const auto &image : prompt.images)
            r.imageBytes += image->bytes;
        const PromptCalibration &calibration = prompts.calibration();
        raw->textTokens = saturatingRound(double(calibration.overhead) + calibration.scale * double(prompt.tokens), 0,
                                          limits::kMaxTokenCount);
    }
    raw->deadline = addDeadline(now + m_plan->config.load.timeoutMs * 1'000'000, raw, Deadline::Total);
    // The draw is the request's own (stream 1 of the run's draws, its id), whatever worker takes it.
    if (m_cancelAfter && !job.warmup && prompts.unitDraw(1, job.id) < m_plan->config.load.cancelRate) {
        raw->chosenToAbandon = true;
        if (!m_cancelAfter->afterFirstToken)
            raw->cancelDeadline = addDeadline(now + m_cancelAfter->ms * 1'000'000, raw, Deadline::Cancel);
    }
    const int model = m_plan->modelFor(job.target, job.id, job.conversation, prompt);
    raw->record().model = model;
    m_active.emplace(raw, std::move(request));
    raw->transport = transportFor(builder);
    raw->json = builder.bodyText(prompt, toStd(m_plan->targets.at(std::size_t(job.target)).models.value(model)));
    return raw;
}

Transport *TransportWorker::transportFor(const RequestBuilder &builder)
{
    if (builder.transport() == TransportKind::Native)
        return m_native;
    if (!m_qnam)
        m_qnam = new QnamTransport(m_clock, this);
    return m_qnam;
}

void TransportWorker::sendOn(ActiveRequest *request, const Hop &hop, std::int64_t nowNs, bool fresh)
{
    if (Exchange *previous = std::exchange(request->exchange, nullptr))
        request->transport->release(previous);
    request->resend = ActiveRequest::Resend{hop.endpoint, hop.post, hop.credentials, hop.message};
    request->exchange = request->transport->acquire(hop.endpoint, fresh);
    // The last hop's, and after a stale connection the new one's: the connection that answered.
    request->record().connection = request->exchange->connectionNumber();
    request->attemptStarted(nowNs, !request->exchange->isConnected());
    if (!request->exchange->isConnected()) {
        if (!request->connectDeadline)
            request->connectDeadline =
                addDeadline(nowNs + m_plan->config.load.connectTimeoutMs * 1'000'000, request, Deadline::Connect);
        request->startConnecting();
        // A request that joins a connection whose handshake is under way (ALPN and HTTP/2 carry
        // several on one) missed that connection's "handshaking": it is in that phase too.
        if (request->exchange->handshaking())
            request->connectionHandshaking();
    }
    request->transport->send(request->exchange, request->builder(), hop, request);
}

TransportWorker::Deadlines::iterator TransportWorker::addDeadline(std::int64_t dueNs, ActiveRequest *request,
                                                                  Deadline kind)
{
    const auto it = m_deadlines.emplace(dueNs, std::make_pair(request, kind));
    // Re-armed only for an earlier deadline; one that fires for a request already gone re-arms.
    if (!m_deadlineTimer.isActive() || dueNs < m_armedNs)
        armDeadlineTimer(dueNs);
    return it;
}

void TransportWorker::finish(ActiveRequest *request)
{
    auto it = m_active.find(request);
    if (it == m_active.end())
        return;
    std::unique_ptr<ActiveRequest> owned = std::move(it->second);
    m_active.erase(it);
    m_deadlines.erase(owned->deadline);
    if (owned->connectDeadline)
        m_deadlines.erase(*owned->connectDeadline);
    if (owned->cancelDeadline)
        m_deadlines.erase(*owned->cancelDeadline);
    if (Exchange *e = std::exchange(owned->exchange, nullptr))
        owned->transport->release(e);
    if (m_deadlines.empty())
        m_deadlineTimer.stop();
    if (const RequestRecord &r = owned->record(); r.sentNs >= 0 && r.doneNs >= r.sentNs) {
        // Failures count too: a closed loop's user turns around after either.
        const std::int64_t took = r.doneNs - r.sentNs;
        m_exchangeMeanNs = m_exchangeMeanNs < 0 ? took : m_exchangeMeanNs + (took - m_exchangeMeanNs) / 8;
        owned->transport->exchangesTake(m_exchangeMeanNs);
    }
    // Servers echo requests in their errors; whatever they echo of a credential stops here.
    RequestRecord &record = owned->record();
    if (!m_plan->secrets.isEmpty()) {
        record.errorMessage = maskSecrets(record.errorMessage, m_plan->secrets);
        record.responseId = maskSecrets(record.responseId, m_plan->secrets);
    }
    makePrintable(record.errorMessage);
    if (m_completed)
        m_completed(std::move(record));
}

void TransportWorker::endRequest(ActiveRequest *request, RequestStatus status, const QString &message,
                                 std::int64_t nowNs)
{
    request->abandonExchange();
    request->abort(status, message, nowNs);
}

void TransportWorker::awaitBodyEnd(ActiveRequest *request, std::int64_t stampNs)
{
    const std::int64_t due = stampNs + kBodyEndGraceNs;
    if (due >= request->deadline->first)
        return;
    m_deadlines.erase(request->deadline);
    request->deadline = addDeadline(due, request, Deadline::Total);
}

void TransportWorker::endUnended(ActiveRequest *request)
{
    request->abandonExchange();
    request->completeUnended();
}

void TransportWorker::armDeadlineTimer(std::int64_t dueNs)
{
    m_armedNs = dueNs;
    m_deadlineTimer.start(timerIntervalMs(dueNs - m_clock.nowNs()));
}

void TransportWorker::checkDeadlines()
{
    const std::int64_t now = m_clock.nowNs();
    // Ending a request erases its deadlines, so the earliest is always the next to look at.
    while (!m_deadlines.empty() && m_deadlines.begin()->first <= now) {
        const auto [request, kind] = m_deadlines.begin()->second;
        const Exchange *exchange = request->exchange;
        if (kind != Deadline::Connect && request->endedNs() >= 0) {
            endUnended(request);
            continue;
        }
        if (kind == Deadline::Cancel) {
            abandonChosen(request, now);
            continue;
        }
        if (kind == Deadline::Total || !exchange) {
            endRequest(
                request, RequestStatus::Timeout,
                QStringLiteral("no complete response within %1").arg(formatDuration(m_plan->config.load.timeoutMs)),
                now);
            continue;
        }
        const QString within = formatDuration(m_plan->config.load.connectTimeoutMs);
        const Endpoint &endpoint = exchange->endpoint();
        if (!endpoint.proxy.direct && !exchange->handshaking())
            endRequest(request, RequestStatus::Proxy,
                       QStringLiteral("no connection to %1:%2 through proxy %3 within %4 (--connect-timeout)")
                           .arg(endpoint.host)
                           .arg(endpoint.port)
                           .arg(endpoint.proxy.describe(), within),
                       now);
        else if (exchange->handshaking())
            endRequest(
                request, RequestStatus::Tls,
                QStringLiteral("TLS handshake not finished within %1 (--connect-timeout): the server may speak plain "
                               "HTTP (try http://)")
                    .arg(within),
                now);
        else
            endRequest(request, RequestStatus::Connect,
                       QStringLiteral("no connection to %1:%2 within %3 (--connect-timeout)")
                           .arg(endpoint.host)
                           .arg(endpoint.port)
                           .arg(within),
                       now);
    }
    if (!m_deadlines.empty())
        armDeadlineTimer(m_deadlines.begin()->first);
}

void TransportWorker::abandonChosen(ActiveRequest *request, std::int64_t nowNs)
{
    const bool decoding = request->record().firstGeneratedNs() >= 0;
    endRequest(
        request, RequestStatus::Abandoned,
        QStringLiteral("abandoned in %1 (--cancel-after %2)")
            .arg(decoding ? QStringLiteral("decode") : QStringLiteral("prefill"), m_plan->config.load.cancelAfter),
        nowNs);
}

void TransportWorker::cancelAll()
{
    const std::int64_t now = m_clock.nowNs();
    // Never sent: recorded as cancelled like those that were, so that every job has its record.
    for (const RequestJob &job : std::exchange(m_queued, {}))
        admit(job, now);
    std::vector<ActiveRequest *> all;
    all.reserve(m_active.size());
    for (const auto &[raw, request] : m_active)
        all.push_back(raw);
    for (ActiveRequest *request : all) {
        if (request->endedNs() >= 0) // answered whole: Stop only cut a body that never ended
            endUnended(request);
        else
            endRequest(request, RequestStatus::Cancelled, QStringLiteral("cancelled by Stop"), now);
    }
    m_native->closeIdle();
    if (m_qnam)
        m_qnam->closeIdle();
}

} // namespace tb
