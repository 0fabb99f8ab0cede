#include "engine/transportworker.h"

#include "engine/httpconnection.h"
#include "engine/sseparser.h"
#include "engine/streamdecoder.h"

namespace tb {

namespace {

/// Servers commonly close idle keep-alive connections after 5 s (uvicorn, which serves vLLM);
/// reusing one just as it closes would fail a request for the client's sake, so retire them first.
constexpr std::int64_t kMaxIdleNs = 4'000'000'000;
constexpr std::size_t kMaxBufferedBody = 32 * 1024 * 1024;
constexpr int kDeadlineCheckMs = 50;

} // namespace

/// One request in flight: the record being filled in, and the decoding state of its response.
class ActiveRequest final : public ResponseSink
{
public:
    ActiveRequest(TransportWorker *worker, const RequestJob &job, const RequestBuilder &builder)
        : m_worker(worker)
        , m_decoder(builder.api(), worker->m_plan->targets.at(std::size_t(job.target)).tokenizer.get())
        , m_api(builder.api())
    {
        m_record.id = job.id;
        m_record.stage = job.stage;
        m_record.target = job.target;
        m_record.instance = job.instance;
        m_record.warmup = job.warmup;
        m_record.scheduledNs = job.scheduledNs;
        m_decoder.begin(&m_record);
    }

    RequestRecord &record() { return m_record; }
    HttpConnection *connection = nullptr;
    std::int64_t deadlineNs = 0;
    std::int64_t promptTokens = 0;
    TokenSource promptSource = TokenSource::Estimate;

    void requestSent(std::int64_t stampNs) override
    {
        m_record.sentNs = stampNs;
        m_counted = true;
        m_worker->m_counters->requestSent();
    }

    void responseHead(const ResponseHead &head, std::int64_t stampNs) override
    {
        m_record.headersNs = stampNs;
        m_record.httpStatus = head.status;
        m_record.retryAfterS = head.retryAfterS;
        if (head.status < 200 || head.status >= 300)
            m_mode = Mode::ErrorBody;
        else if (head.contentType == "text/event-stream")
            m_mode = Mode::EventStream;
        else
            m_mode = Mode::JsonBody;
    }

    void responseBody(const char *data, std::size_t size, std::int64_t stampNs) override
    {
        if (m_mode == Mode::EventStream) {
            const int before = m_record.chunks;
            m_sse.feed(data, size, [this, stampNs](std::string_view event, std::string_view payload) {
                m_decoder.onEvent(event, payload, stampNs);
            });
            if (m_record.chunks != before)
                m_worker->m_counters->chunks.fetch_add(m_record.chunks - before, std::memory_order_relaxed);
            return;
        }
        if (m_body.size() + size <= kMaxBufferedBody)
            m_body.append(data, size);
    }

    void responseComplete(std::int64_t stampNs) override
    {
        m_record.doneNs = stampNs;
        switch (m_mode) {
        case Mode::ErrorBody:
            m_record.status = RequestStatus::Http;
            m_record.errorMessage = QStringLiteral("HTTP %1: %2").arg(m_record.httpStatus).arg(StreamDecoder::errorMessageFromBody(m_body));
            break;
        case Mode::JsonBody:
            if (m_body.size() > 0 && (m_body.front() == '<'))
                fail(RequestStatus::Protocol, QStringLiteral("expected JSON or an event stream, got HTML"));
            else
                m_decoder.onBody(m_body, stampNs);
            break;
        case Mode::EventStream:
        case Mode::None:
            break;
        }
        if (m_record.status == RequestStatus::Ok) {
            if (m_decoder.failed())
                m_record.status = RequestStatus::Protocol;
            else if (!m_decoder.complete()) {
                m_record.status = RequestStatus::StreamTruncated;
                m_record.errorMessage = m_api == ApiKind::AnthropicMessages
                                            ? QStringLiteral("stream ended without message_stop")
                                            : QStringLiteral("stream ended without [DONE] or a finish reason");
            }
        }
        settle();
    }

    void responseFailed(RequestStatus status, const QString &message, bool afterHead, std::int64_t stampNs) override
    {
        m_record.doneNs = stampNs;
        connection = nullptr; // the connection drops itself
        if (afterHead && status == RequestStatus::Protocol && m_mode == Mode::EventStream)
            status = RequestStatus::StreamTruncated;
        fail(status, message);
        settle();
    }

    /// Ends the request from the outside (deadline, Stop).
    void abort(RequestStatus status, const QString &message, std::int64_t stampNs)
    {
        m_record.doneNs = stampNs;
        fail(status, message);
        settle();
    }

private:
    enum class Mode { None, EventStream, JsonBody, ErrorBody };

    void fail(RequestStatus status, const QString &message)
    {
        if (m_record.status == RequestStatus::Ok) {
            m_record.status = status;
            m_record.errorMessage = message;
        }
    }

    void settle()
    {
        m_decoder.finish(promptTokens, promptSource);
        if (m_counted)
            m_worker->m_counters->requestDone();
        m_worker->finish(this);
    }

    TransportWorker *m_worker;
    RequestRecord m_record;
    StreamDecoder m_decoder;
    SseParser m_sse;
    std::string m_body;
    Mode m_mode = Mode::None;
    ApiKind m_api;
    bool m_counted = false;
};

TransportWorker::TransportWorker(std::shared_ptr<const RunPlan> plan, const RunClock &clock,
                                 std::shared_ptr<LiveCounters> counters, CompletedFn completed)
    : m_plan(std::move(plan))
    , m_clock(clock)
    , m_counters(std::move(counters))
    , m_completed(std::move(completed))
{
    m_deadlineTimer.setParent(this); // moves to the worker thread with us
    m_poller.setParent(this);
    m_deadlineTimer.setInterval(kDeadlineCheckMs);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &TransportWorker::checkDeadlines);
}

TransportWorker::~TransportWorker()
{
    m_completed = nullptr; // nobody listens any more; just tear down
    for (auto &[raw, request] : m_active) {
        if (request->connection)
            request->connection->abandon();
    }
    m_active.clear();
    // Every connection, including those already dropped (deleteLater) — before m_poller goes.
    qDeleteAll(findChildren<HttpConnection *>(Qt::FindDirectChildrenOnly));
}

void TransportWorker::execute(const RequestJob &job)
{
    const RequestBuilder &builder = m_plan->targets.at(std::size_t(job.target)).instances.at(std::size_t(job.instance));
    auto request = std::make_unique<ActiveRequest>(this, job, builder);
    ActiveRequest *raw = request.get();
    const Prompt prompt = m_plan->prompts->prompt(job.id - 1);
    // The prompt's count in this target's tokenizer (a comparison's targets may count differently
    // from the first, whose tokenizer sized the prompts), else TokenBench's estimate.
    const auto &own = m_plan->targets.at(std::size_t(job.target)).tokenizer;
    const Tokenizer &counting = own ? *own : *Tokenizer::approx();
    raw->promptSource = own ? TokenSource::Tokenizer : TokenSource::Estimate;
    raw->promptTokens =
        &counting == &m_plan->prompts->tokenizer() ? prompt.tokens : PromptSource::count(prompt, counting);
    raw->deadlineNs = m_clock.nowNs() + m_plan->config.load.timeoutMs * 1'000'000;
    m_active.emplace(raw, std::move(request));
    if (!m_deadlineTimer.isActive())
        m_deadlineTimer.start();
    raw->connection = acquireConnection(builder.endpoint());
    raw->connection->send(builder.httpRequest(prompt), raw);
}

HttpConnection *TransportWorker::acquireConnection(const Endpoint &endpoint)
{
    const std::int64_t now = m_clock.nowNs();
    while (!m_idle.empty()) {
        HttpConnection *c = m_idle.back();
        m_idle.pop_back();
        if (c->endpoint() == endpoint && c->isReusable() && now - c->idleSinceNs() < kMaxIdleNs)
            return c;
        dropConnection(c);
    }
    auto *c = new HttpConnection(endpoint, m_clock, &m_poller, this);
    connect(c, &HttpConnection::connectionLost, this, &TransportWorker::dropConnection);
    m_connections.insert(c);
    return c;
}

void TransportWorker::releaseConnection(HttpConnection *connection)
{
    if (connection->isReusable())
        m_idle.push_back(connection);
    else
        dropConnection(connection);
}

void TransportWorker::dropConnection(HttpConnection *connection)
{
    if (m_connections.remove(connection)) {
        std::erase(m_idle, connection);
        connection->deleteLater();
    }
}

void TransportWorker::finish(ActiveRequest *request)
{
    auto it = m_active.find(request);
    if (it == m_active.end())
        return;
    std::unique_ptr<ActiveRequest> owned = std::move(it->second);
    m_active.erase(it);
    if (HttpConnection *c = owned->connection) {
        owned->connection = nullptr;
        releaseConnection(c);
    }
    if (m_active.empty())
        m_deadlineTimer.stop();
    if (m_completed)
        m_completed(std::move(owned->record()));
}

void TransportWorker::checkDeadlines()
{
    const std::int64_t now = m_clock.nowNs();
    std::vector<ActiveRequest *> expired;
    for (const auto &[raw, request] : m_active) {
        if (now >= request->deadlineNs)
            expired.push_back(raw);
    }
    const QString message = QStringLiteral("no complete response within %1").arg(formatDuration(m_plan->config.load.timeoutMs));
    for (ActiveRequest *request : expired) {
        if (HttpConnection *c = request->connection) {
            request->connection = nullptr;
            c->abandon();
            dropConnection(c);
        }
        request->abort(RequestStatus::Timeout, message, now);
    }
}

void TransportWorker::cancelAll()
{
    const std::int64_t now = m_clock.nowNs();
    std::vector<ActiveRequest *> all;
    all.reserve(m_active.size());
    for (const auto &[raw, request] : m_active)
        all.push_back(raw);
    for (ActiveRequest *request : all) {
        if (HttpConnection *c = request->connection) {
            request->connection = nullptr;
            c->abandon();
            dropConnection(c);
        }
        request->abort(RequestStatus::Cancelled, QStringLiteral("cancelled by Stop"), now);
    }
    for (HttpConnection *c : std::vector<HttpConnection *>(m_idle.begin(), m_idle.end()))
        dropConnection(c);
}

} // namespace tb
