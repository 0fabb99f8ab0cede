#include "sim/simserver.h"

#include "formats/prometheustext.h"
#include "metrics/loghistogram.h"
#include "sim/httprequestparser.h"
#include "sim/prefixcache.h"
#include "sim/ratelimiter.h"
#include "sim/requestplan.h"
#include "sim/servingmodel.h"
#include "sim/simprotocol.h"
#include "tokenize/tokenizer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <QDateTime>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <limits>
#include <mutex>
#include <queue>
#include <random>
#include <unordered_map>

namespace tb::sim {

namespace {

using json = nlohmann::json;

qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// epoll user data: fixed ids for the loop's own descriptors, connection ids above.
constexpr quint64 kListenerId = 0;
constexpr quint64 kTimerId = 1;
constexpr quint64 kWakeId = 2;
constexpr quint64 kFirstConnectionId = 16;

constexpr std::size_t kReadBytes = 64 * 1024;
/// A client that stops reading is dropped when this much output waits for it.
constexpr std::size_t kMaxPendingOutput = 64 * 1024 * 1024;
constexpr qint64 kAcceptRetryNs = 100'000'000;
/// How often idle connections are looked for: a connection goes within a quarter of the idle
/// timeout after it (at most a second) — one wake-up per interval whatever the connections.
constexpr qint64 kMaxIdleSweepNs = 1'000'000'000;
constexpr qint64 kMinIdleSweepNs = 10'000'000;

const char *reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

std::string hex(std::uint64_t n, int width = 0)
{
    char buf[24];
    const int len = std::snprintf(buf, sizeof buf, "%0*llx", width, static_cast<unsigned long long>(n));
    return std::string(buf, std::size_t(len));
}

std::string errnoText(int error)
{
    return std::strerror(error);
}

struct Exchange {
    GenerationRequest request;
    ResponseMeta meta;
    std::optional<SseFormatter> sse;
    RequestPlan plan;
    Usage usage;
    quint64 seq = 0; ///< in the serving model; 0 while held by the slow-header fault
    TextSource text{0};
    std::string reasoningText; ///< non-streaming: the whole response is written at the end
    std::string contentText;
    bool hideReasoning = false; ///< chat with hide_reasoning: reasoning is counted, never sent
    qint64 hiddenTokens = 0;    ///< reasoning tokens generated and not sent so far
    bool chunked = true;        ///< HTTP/1.1 chunked framing (HTTP/1.0: close-delimited)
    qint64 lastTokenNs = 0;     ///< when the previous chunk was produced (inter-token latency)
};

/// Trace fields a write stamps.
enum Stamp : unsigned { StampHeaders = 1, StampFirstToken = 2, StampLastToken = 4, StampDone = 8 };

void applyStamps(RequestTrace &trace, unsigned stamps, qint64 ns)
{
    if (stamps & StampHeaders)
        trace.headersNs = ns;
    if (stamps & StampFirstToken)
        trace.firstTokenNs = ns;
    if (stamps & StampLastToken)
        trace.lastTokenNs = ns;
    if (stamps & StampDone)
        trace.doneNs = ns;
}

struct Mark {
    std::uint64_t offset; ///< stamp when this many bytes were handed to the kernel
    unsigned stamps;
};

struct Connection {
    explicit Connection(std::size_t maxBody)
        : parser(maxBody)
    {}
    quint64 id = 0;
    int fd = -1;
    std::string in;
    HttpRequestParser parser;
    std::string out;         ///< output the kernel did not take yet
    std::size_t outSent = 0; ///< bytes of `out` already written
    std::uint64_t queuedTotal = 0;
    std::uint64_t flushedTotal = 0;
    std::vector<Mark> marks;
    std::optional<RequestTrace> trace; ///< of the generation request being answered
    std::unique_ptr<Exchange> exchange;
    qint64 lastReadNs = 0;
    qint64 idleSinceNs = 0;  ///< accepted, or its last response finished
    bool responding = false; ///< a request is being answered; later ones wait in `in`
    bool responseComplete = false;
    bool keepAlive = true;
    bool continueSent = false;
    bool writeWatched = false;
    bool dead = false;
};

struct Timer {
    enum Kind { HeaderDelay, ResumeAccept, IdleSweep };
    qint64 dueNs;
    Kind kind;
    quint64 connection;
    bool operator>(const Timer &o) const { return dueNs > o.dueNs; }
};

} // namespace

class SimServer::Impl
{
public:
    explicit Impl(SimConfig config)
        : config(std::move(config))
        , model(this->config)
        , cache(this->config.prefixCacheTokens)
        , limiter(this->config.rpmLimit, this->config.tpmLimit)
        , traces(this->config.traceCapacity)
        , tokenizer(this->config.tokenizer.isEmpty() ? Tokenizer::approx()
                                                     : Tokenizer::load(this->config.tokenizer, &tokenizerError))
    {
        std::random_device random;
        // Fixed widths: a random per-server part and a counter, unique across runs and requests.
        idPrefix = hex((quint64(random()) << 32) | random(), 16);
        wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        timerFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        epollFd = epoll_create1(EPOLL_CLOEXEC);
        watch(wakeFd, kWakeId, EPOLLIN);
        watch(timerFd, kTimerId, EPOLLIN);
        startNs = nowNs();
    }

    ~Impl()
    {
        for (int fd : {listenFd, wakeFd, timerFd, epollFd}) {
            if (fd >= 0)
                ::close(fd);
        }
    }

    // --- event loop --------------------------------------------------------------------------

    void watch(int fd, quint64 id, quint32 events)
    {
        epoll_event ev{};
        ev.events = events;
        ev.data.u64 = id;
        epoll_ctl(epollFd, EPOLL_CTL_ADD, fd, &ev);
    }

    void modify(int fd, quint64 id, quint32 events)
    {
        epoll_event ev{};
        ev.events = events;
        ev.data.u64 = id;
        epoll_ctl(epollFd, EPOLL_CTL_MOD, fd, &ev);
    }

    void run()
    {
        // Timer slack would let the kernel fire our timer up to 50 µs late to batch wake-ups.
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
        if (idleTimeoutNs() > 0)
            closeIdle(nowNs());
        std::vector<epoll_event> events(256);
        while (!stopRequested) {
            runDue();
            const qint64 next =
                std::min(model.nextDueNs(), timers.empty() ? std::numeric_limits<qint64>::max() : timers.top().dueNs);
            int timeout = -1;
            if (next <= nowNs())
                timeout = 0;
            else
                armTimer(next);
            const int n = epoll_wait(epollFd, events.data(), int(events.size()), timeout);
            for (int i = 0; i < n; ++i)
                dispatch(events[size_t(i)]);
            reapDead();
        }
        // Stopped: free the port at once (the object lives on to answer stats()).
        for (auto &[id, conn] : connections)
            closeConnection(*conn);
        reapDead();
        epoll_ctl(epollFd, EPOLL_CTL_DEL, listenFd, nullptr);
        ::close(listenFd);
        listenFd = -1;
    }

    void armTimer(qint64 dueNs)
    {
        if (dueNs == armedNs)
            return;
        armedNs = dueNs;
        itimerspec spec{};
        spec.it_value.tv_sec = time_t(dueNs / 1'000'000'000);
        spec.it_value.tv_nsec = long(dueNs % 1'000'000'000);
        timerfd_settime(timerFd, TFD_TIMER_ABSTIME, &spec, nullptr);
    }

    void dispatch(const epoll_event &ev)
    {
        switch (ev.data.u64) {
        case kListenerId:
            acceptAll();
            return;
        case kTimerId: {
            std::uint64_t expirations = 0;
            [[maybe_unused]] const auto r = ::read(timerFd, &expirations, sizeof expirations);
            armedNs = -1;
            return;
        }
        case kWakeId:
            stopRequested = true;
            return;
        default:
            break;
        }
        const auto it = connections.find(ev.data.u64);
        if (it == connections.end() || it->second->dead)
            return;
        Connection &conn = *it->second;
        try {
            if (ev.events & EPOLLOUT)
                flush(conn);
            if (!conn.dead && (ev.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
                readable(conn);
            processInput(conn);
        } catch (const std::exception &) {
            // A bug or an allocation failure on one request must not take the server down.
            closeConnection(conn);
        }
    }

    /// Chunks and timers that are due.
    void runDue()
    {
        qint64 now = nowNs();
        model.takeDue(now, [this](const Chunk &chunk) { onChunk(chunk); });
        while (!timers.empty() && timers.top().dueNs <= now) {
            const Timer timer = timers.top();
            timers.pop();
            if (timer.kind == Timer::ResumeAccept) {
                modify(listenFd, kListenerId, EPOLLIN);
                continue;
            }
            if (timer.kind == Timer::IdleSweep) {
                closeIdle(now);
                continue;
            }
            // A request held by the slow-header fault goes to the serving model now.
            const auto it = connections.find(timer.connection);
            if (it == connections.end() || it->second->dead || !it->second->exchange || it->second->exchange->seq != 0)
                continue;
            try {
                admit(*it->second);
            } catch (const std::exception &) {
                closeConnection(*it->second);
            }
        }
        // Answering may queue more connections (a response finished at once): take a copy.
        std::vector<quint64> waiting;
        waiting.swap(ready);
        for (quint64 id : waiting) {
            const auto it = connections.find(id);
            if (it == connections.end() || it->second->dead)
                continue;
            try {
                processInput(*it->second);
            } catch (const std::exception &) {
                closeConnection(*it->second);
            }
        }
        reapDead();
    }

    // --- connections -------------------------------------------------------------------------

    void acceptAll()
    {
        while (true) {
            const int fd = accept4(listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0) {
                const int error = errno;
                if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
                    // Out of descriptors: stop accepting for a while instead of spinning on a
                    // listener that stays readable.
                    modify(listenFd, kListenerId, 0);
                    timers.push({nowNs() + kAcceptRetryNs, Timer::ResumeAccept, 0});
                }
                if (error == EINTR || error == ECONNABORTED)
                    continue;
                return;
            }
            const int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            auto conn = std::make_unique<Connection>(std::size_t(config.maxBodyBytes));
            conn->id = nextConnectionId++;
            conn->fd = fd;
            conn->idleSinceNs = nowNs();
            watch(fd, conn->id, EPOLLIN | EPOLLRDHUP);
            connections.emplace(conn->id, std::move(conn));
            std::lock_guard lock(statsMutex);
            ++stats.openConnections;
            stats.peakOpenConnections = std::max(stats.peakOpenConnections, stats.openConnections);
        }
    }

    qint64 idleTimeoutNs() const { return qint64(config.idleTimeoutS * 1e9); }

    /// Idle connections must not hold descriptors other clients need: close those with no
    /// request under way (a partial one counts as idle) that have been quiet for the timeout.
    void closeIdle(qint64 now)
    {
        const qint64 timeout = idleTimeoutNs();
        for (auto &[id, conn] : connections) {
            if (!conn->dead && !conn->responding && !conn->exchange &&
                now - std::max(conn->lastReadNs, conn->idleSinceNs) >= timeout)
                closeConnection(*conn);
        }
        timers.push({now + std::clamp(timeout / 4, kMinIdleSweepNs, kMaxIdleSweepNs), Timer::IdleSweep, 0});
    }

    void readable(Connection &conn)
    {
        char buf[kReadBytes];
        const ssize_t n = ::recv(conn.fd, buf, sizeof buf, 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n <= 0) {
            closeConnection(conn); // peer closed (or reset): frees its batch slot
            return;
        }
        conn.lastReadNs = nowNs();
        conn.in.append(buf, std::size_t(n));
        // Bytes that arrive while a response is under way wait; a flood of them is abuse.
        if (conn.responding && conn.in.size() > std::size_t(config.maxBodyBytes) + HttpRequestParser::kMaxHeaderBytes)
            closeConnection(conn);
    }

    /// Parses and answers requests in order, one at a time per connection.
    void processInput(Connection &conn)
    {
        while (!conn.dead && !conn.responding && !conn.in.empty()) {
            const auto result = conn.parser.feed(conn.in);
            if (result == HttpRequestParser::Result::NeedMore) {
                if (conn.parser.awaitingBody() && conn.parser.expectsContinue() && !conn.continueSent) {
                    conn.continueSent = true;
                    send(conn, "HTTP/1.1 100 Continue\r\n\r\n");
                }
                return;
            }
            if (result == HttpRequestParser::Result::Error) {
                conn.responding = true;
                conn.keepAlive = false; // where the next message starts is unknown
                respondError(conn, Endpoint::Chat, {conn.parser.errorStatus(), conn.parser.errorText(), {}, {}});
                return;
            }
            HttpRequest request = std::move(conn.parser.request());
            conn.parser.reset();
            conn.continueSent = false;
            conn.responding = true;
            conn.responseComplete = false;
            conn.keepAlive = request.keepAlive();
            route(conn, request);
        }
    }

    /// Writes or queues bytes; the kernel gets them right away when nothing is waiting.
    void send(Connection &conn, std::string_view data)
    {
        if (conn.dead || data.empty())
            return;
        conn.queuedTotal += data.size();
        if (conn.outSent < conn.out.size()) {
            conn.out.append(data);
            if (conn.out.size() - conn.outSent > kMaxPendingOutput)
                closeConnection(conn);
            return;
        }
        const ssize_t n = ::send(conn.fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            closeConnection(conn);
            return;
        }
        const std::size_t written = n < 0 ? 0 : std::size_t(n);
        conn.flushedTotal += written;
        if (written < data.size()) {
            conn.out.assign(data.substr(written));
            conn.outSent = 0;
            if (!conn.writeWatched) {
                conn.writeWatched = true;
                modify(conn.fd, conn.id, EPOLLIN | EPOLLRDHUP | EPOLLOUT);
            }
        }
    }

    void flush(Connection &conn)
    {
        while (conn.outSent < conn.out.size()) {
            const ssize_t n = ::send(conn.fd, conn.out.data() + conn.outSent, conn.out.size() - conn.outSent,
                                     MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    break;
                closeConnection(conn);
                return;
            }
            conn.outSent += std::size_t(n);
            conn.flushedTotal += std::size_t(n);
        }
        const qint64 now = nowNs();
        std::erase_if(conn.marks, [&](const Mark &m) {
            if (m.offset > conn.flushedTotal)
                return false;
            if (conn.trace)
                applyStamps(*conn.trace, m.stamps, now);
            return true;
        });
        if (conn.outSent < conn.out.size())
            return;
        conn.out.clear();
        conn.outSent = 0;
        if (conn.writeWatched) {
            conn.writeWatched = false;
            modify(conn.fd, conn.id, EPOLLIN | EPOLLRDHUP);
        }
        if (conn.responseComplete) {
            publishTrace(conn);
            finishResponse(conn);
        }
    }

    /// Writes a piece of the response and stamps trace fields with the moment the kernel gets it:
    /// just before the write (so no reader can see the bytes before the stamp exists) or, when
    /// earlier output still waits, when that drains. Returns the time of the write.
    qint64 write(Connection &conn, std::string_view data, unsigned stamps = 0)
    {
        const qint64 now = nowNs();
        if (conn.dead)
            return now;
        if (conn.trace && stamps) {
            if (conn.outSent >= conn.out.size())
                applyStamps(*conn.trace, stamps, now);
            else
                conn.marks.push_back({conn.queuedTotal + data.size(), stamps});
        }
        send(conn, data);
        return now;
    }

    /// Writes the last piece of a response. Its trace is published before the bytes leave when
    /// nothing waits (so a client that got the response finds it in the log), else once written;
    /// then the connection serves its next request.
    qint64 writeLast(Connection &conn, std::string_view data, unsigned stamps = 0)
    {
        qint64 now = 0;
        if (conn.trace && conn.outSent >= conn.out.size()) {
            now = nowNs();
            applyStamps(*conn.trace, stamps | StampDone, now);
            publishTrace(conn);
            send(conn, data);
        } else {
            now = write(conn, data, stamps | StampDone);
        }
        if (conn.dead)
            return now;
        conn.responseComplete = true;
        if (conn.outSent >= conn.out.size()) {
            publishTrace(conn);
            finishResponse(conn);
        }
        return now;
    }

    void publishTrace(Connection &conn)
    {
        if (conn.trace) {
            observeLatencies(*conn.trace);
            traces.append(std::move(*conn.trace));
            conn.trace.reset();
        }
    }

    void finishResponse(Connection &conn)
    {
        conn.responding = false;
        conn.idleSinceNs = nowNs();
        conn.responseComplete = false;
        conn.marks.clear();
        if (!conn.keepAlive) {
            closeConnection(conn);
            return;
        }
        ready.push_back(conn.id);
    }

    /// Closes now; the object goes at the next safe point (callers may still hold it).
    void closeConnection(Connection &conn)
    {
        if (conn.dead)
            return;
        conn.dead = true;
        if (conn.exchange) {
            // The client left (or the stream was cut): free the batch slot for the next request.
            if (conn.trace && conn.trace->outcome.isEmpty()) {
                conn.trace->outcome = QStringLiteral("client_closed");
                std::lock_guard lock(statsMutex);
                ++stats.clientDisconnects;
            }
            endExchange(conn);
        }
        if (conn.trace && conn.trace->doneNs < 0)
            conn.trace->doneNs = nowNs();
        publishTrace(conn);
        epoll_ctl(epollFd, EPOLL_CTL_DEL, conn.fd, nullptr);
        ::close(conn.fd);
        dead.push_back(conn.id);
        std::lock_guard lock(statsMutex);
        --stats.openConnections;
    }

    void reapDead()
    {
        for (quint64 id : dead)
            connections.erase(id);
        dead.clear();
    }

    // --- HTTP responses ----------------------------------------------------------------------

    std::string head(const Connection &conn, int status, std::string_view contentType, qint64 contentLength,
                     std::string_view extraHeaders = {}) const
    {
        std::string h = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) + "\r\ncontent-type: ";
        h += contentType;
        h += "\r\n";
        if (contentLength >= 0)
            h += "content-length: " + std::to_string(contentLength) + "\r\n";
        else if (conn.exchange && conn.exchange->chunked)
            h += "transfer-encoding: chunked\r\n";
        h += conn.keepAlive ? "connection: keep-alive\r\n" : "connection: close\r\n";
        h += "server: tokenbench-sim\r\n";
        h += extraHeaders;
        h += "\r\n";
        return h;
    }

    void respond(Connection &conn, int status, std::string_view contentType, std::string_view body,
                 std::string_view extraHeaders = {})
    {
        if (status >= 400) {
            std::lock_guard lock(statsMutex);
            ++stats.rejections[status];
        }
        if (conn.trace) {
            conn.trace->status = status;
            if (conn.trace->outcome.isEmpty())
                conn.trace->outcome = status == 200 ? QStringLiteral("ok") : QStringLiteral("error");
        }
        writeLast(conn, head(conn, status, contentType, qint64(body.size()), extraHeaders) + std::string(body),
                  StampHeaders);
    }

    void respondJson(Connection &conn, const json &body) { respond(conn, 200, "application/json", body.dump()); }

    void respondError(Connection &conn, Endpoint endpoint, const ApiError &error, std::string_view extraHeaders = {})
    {
        respond(conn, error.status, "application/json", errorBody(endpoint, error), extraHeaders);
    }

    // --- routing -----------------------------------------------------------------------------

    void route(Connection &conn, HttpRequest &request)
    {
        const std::string &path = request.path;
        const bool get = request.method == "GET";
        const bool post = request.method == "POST";
        struct Generation {
            const char *path;
            Endpoint endpoint;
        };
        for (const Generation &g :
             {Generation{"/v1/chat/completions", Endpoint::Chat}, Generation{"/v1/completions", Endpoint::Completions},
              Generation{"/v1/messages", Endpoint::Messages}, Generation{"/v1/responses", Endpoint::Responses}}) {
            if (path == g.path) {
                if (!post)
                    return methodNotAllowed(conn, "POST");
                return generate(conn, g.endpoint, request);
            }
        }
        if (path == "/v1/models" || path.starts_with("/v1/models/")) {
            if (!get)
                return methodNotAllowed(conn, "GET");
            return models(conn, request);
        }
        if (path == "/tokenize") {
            if (!post)
                return methodNotAllowed(conn, "POST");
            return tokenize(conn, request);
        }
        if (path == "/metrics") {
            if (!get)
                return methodNotAllowed(conn, "GET");
            return respond(conn, 200, "text/plain; version=0.0.4; charset=utf-8", prometheusText());
        }
        if (path == "/health" || path == "/sim/stats" || path == "/sim/requests" || path == "/sim/config") {
            if (!get)
                return methodNotAllowed(conn, "GET");
            if (path == "/health")
                return respondJson(conn, {{"status", "ok"}});
            if (path == "/sim/stats")
                return respondJson(conn, snapshot().toJson());
            if (path == "/sim/config")
                return respondJson(conn, config.toJson());
            return requestLog(conn, request);
        }
        if (path == "/sim/reset") {
            if (!post)
                return methodNotAllowed(conn, "POST");
            resetStats();
            return respondJson(conn, {{"reset", true}});
        }
        respondError(conn, Endpoint::Chat, {404, "Unknown path '" + path + "' (try /v1/models)", {}, "not_found"});
    }

    /// vLLM's and SGLang's POST /tokenize: {"model", "prompt"} counts the text as a completions
    /// request would, {"model", "messages"} the chat with its template, as usage.prompt_tokens does.
    void tokenize(Connection &conn, const HttpRequest &request)
    {
        const json body = json::parse(request.body, nullptr, false);
        const bool chat = body.is_object() && body.contains("messages");
        const Endpoint endpoint = chat ? Endpoint::Chat : Endpoint::Completions;
        auto parsed = parseGenerationRequest(endpoint, request.body, config);
        if (const auto *error = std::get_if<ApiError>(&parsed))
            return respondError(conn, endpoint, *error);
        const GenerationRequest &req = std::get<GenerationRequest>(parsed);
        const qint64 count =
            tokenizer->count(req.prompt) + req.promptTokenIds + (chat ? qint64(config.templateTokens) : 0);
        respondJson(conn, {{"count", count}});
    }

    void methodNotAllowed(Connection &conn, const char *allowed)
    {
        respondError(conn, Endpoint::Chat, {405, std::string("Method not allowed; use ") + allowed, {}, {}},
                     std::string("allow: ") + allowed + "\r\n");
    }

    void models(Connection &conn, const HttpRequest &request)
    {
        const bool anthropic = request.header("anthropic-version") != nullptr;
        const qint64 created = startSeconds;
        const auto entry = [&](const QString &name) -> json {
            if (anthropic) {
                return {
                    {"type", "model"},
                    {"id", name.toStdString()},
                    {"display_name", name.toStdString()},
                    {"created_at", QDateTime::fromSecsSinceEpoch(created).toUTC().toString(Qt::ISODate).toStdString()}};
            }
            json model = {
                {"id", name.toStdString()}, {"object", "model"}, {"created", created}, {"owned_by", "tokenbench-sim"}};
            if (config.maxModelLen > 0)
                model["max_model_len"] = config.maxModelLen;
            return model;
        };
        const QStringList names = QStringList{config.model} + config.aliases;
        if (request.path.size() > std::string_view("/v1/models/").size()) {
            const QString id = QString::fromStdString(request.path.substr(std::string_view("/v1/models/").size()));
            if (!config.servesModel(id))
                return respondError(
                    conn, anthropic ? Endpoint::Messages : Endpoint::Chat,
                    {404, "The model '" + id.toStdString() + "' does not exist", "model", "model_not_found"});
            return respondJson(conn, entry(id));
        }
        json data = json::array();
        for (const QString &name : names)
            data.push_back(entry(name));
        json body = {{"object", "list"}, {"data", data}};
        if (anthropic) {
            body = {{"data", data},
                    {"has_more", false},
                    {"first_id", names.first().toStdString()},
                    {"last_id", names.last().toStdString()}};
        }
        respondJson(conn, body);
    }

    void requestLog(Connection &conn, const HttpRequest &request)
    {
        const auto number = [&](const char *key) -> std::optional<qint64> {
            const std::string text = request.queryValue(key);
            if (text.empty())
                return qint64(0);
            bool ok = false;
            const qint64 v = QString::fromStdString(text).toLongLong(&ok);
            return ok && v >= 0 ? std::optional<qint64>(v) : std::nullopt;
        };
        const auto since = number("since");
        const auto limit = number("limit");
        if (!since || !limit)
            return respondError(conn, Endpoint::Chat,
                                {400, "'since' and 'limit' must be whole numbers >= 0", since ? "limit" : "since", {}});
        json list = json::array();
        for (const RequestTrace &t : traces.since(*since, *limit))
            list.push_back(t.toJson());
        respondJson(conn, {{"requests", list}, {"last_seq", traces.lastSeq()}});
    }

    // --- generation --------------------------------------------------------------------------

    void generate(Connection &conn, Endpoint endpoint, HttpRequest &request)
    {
        const qint64 now = nowNs();
        {
            std::lock_guard lock(statsMutex);
            ++stats.requestsReceived;
        }
        conn.trace.emplace();
        RequestTrace &trace = *conn.trace;
        trace.endpoint = QLatin1String(endpointName(endpoint));
        trace.receivedNs = conn.lastReadNs > 0 ? conn.lastReadNs : now;

        auto parsed = parseGenerationRequest(endpoint, request.body, config);
        if (const auto *error = std::get_if<ApiError>(&parsed))
            return respondError(conn, endpoint, *error);
        auto ex = std::make_unique<Exchange>();
        ex->request = std::move(std::get<GenerationRequest>(parsed));
        const GenerationRequest &req = ex->request;
        trace.model = QString::fromStdString(req.model);
        trace.stream = req.stream;

        const qint64 promptTokens = tokenizer->count(req.prompt) + req.promptTokenIds +
                                    (endpoint == Endpoint::Completions ? 0 : config.templateTokens);
        trace.promptTokens = promptTokens;
        PlanInput input;
        input.index = generationIndex++;
        input.promptTokens = promptTokens;
        input.maxTokens = req.maxTokens;
        input.minTokens = req.minTokens;
        input.ignoreEos = req.ignoreEos;
        input.reasoning = endpoint != Endpoint::Completions;
        ex->plan = planRequest(config, input);
        ex->text = TextSource(ex->plan.textSeed);

        static constexpr const char *kIdPrefix[] = {"chatcmpl-", "cmpl-", "msg_", "resp_"};
        ex->meta.endpoint = endpoint;
        ex->meta.id = kIdPrefix[int(endpoint)] + idPrefix + hex(++responseCounter, 8);
        ex->meta.model = req.model;
        ex->meta.created = QDateTime::currentSecsSinceEpoch();
        ex->meta.includeUsage = req.includeUsage;
        ex->usage.promptTokens = promptTokens;
        ex->chunked = request.minorVersion >= 1;
        ex->hideReasoning = config.hideReasoning && (endpoint == Endpoint::Chat || endpoint == Endpoint::Responses);
        if (!ex->chunked)
            conn.keepAlive = false; // an HTTP/1.0 stream ends when the connection does
        trace.id = QString::fromStdString(ex->meta.id);

        const RateLimiter::Verdict verdict = limiter.admit(promptTokens + req.maxTokens.value_or(0), now);
        if (!verdict.allowed) {
            const qint64 retryMs = (verdict.retryAfterNs + 999'999) / 1'000'000;
            const std::string headers = "retry-after: " + std::to_string(std::max<qint64>(1, (retryMs + 999) / 1000)) +
                                        "\r\nretry-after-ms: " + std::to_string(retryMs) + "\r\n";
            return respondError(conn, endpoint, {429, verdict.reason, {}, "rate_limit_exceeded"}, headers);
        }
        if (ex->plan.serverError)
            return respondError(
                conn, endpoint,
                {500, "The server had an error while processing your request (simulated fault)", {}, {}});

        conn.exchange = std::move(ex);
        exchangeCountChanged(+1);
        if (conn.exchange->plan.headerDelayNs > 0) {
            timers.push({now + conn.exchange->plan.headerDelayNs, Timer::HeaderDelay, conn.id});
            return;
        }
        admit(conn);
    }

    /// Hands the request to the serving model; streaming responses start right away.
    void admit(Connection &conn)
    {
        Exchange &ex = *conn.exchange;
        const std::string &prompt = ex.request.prompt;
        const auto blocks = PrefixCache::blocks(prompt);
        const std::size_t cachedBytes = cache.cachedBytes(blocks);
        // A server computes at least the last prompt token itself, so never all are cached.
        ex.usage.cachedTokens = std::clamp<qint64>(tokenizer->count(std::string_view(prompt).substr(0, cachedBytes)), 0,
                                                   std::max<qint64>(ex.usage.promptTokens - 1, 0));

        const bool cut = ex.plan.cutAfter >= 0;
        Job job;
        job.promptTokens = ex.usage.promptTokens;
        job.cachedTokens = ex.usage.cachedTokens;
        job.outputTokens = cut && ex.request.stream ? ex.plan.cutAfter : ex.plan.outputTokens;
        job.reasoningTokens = std::min(ex.plan.reasoningTokens, job.outputTokens);
        job.chunkTokens = ex.request.stream ? config.tokensPerChunk : job.outputTokens;
        const auto seq = model.submit(job, nowNs());
        if (!seq) {
            const Endpoint endpoint = ex.request.endpoint;
            endExchange(conn);
            return respondError(conn, endpoint,
                                {503,
                                 "The server is overloaded: the batch and the queue are full (queue_limit " +
                                     std::to_string(config.queueLimit) + ")",
                                 {},
                                 "overloaded"},
                                "retry-after: 1\r\n");
        }
        cache.insert(blocks);
        ex.seq = *seq;
        bySeq.emplace(*seq, conn.id);
        ex.request.prompt = std::string(); // not needed any more; long prompts are big
        conn.trace->cachedTokens = ex.usage.cachedTokens;
        {
            std::lock_guard lock(statsMutex);
            stats.promptTokens += ex.usage.promptTokens;
            stats.cachedTokens += ex.usage.cachedTokens;
        }
        updateGauges();

        if (ex.request.stream) {
            ex.sse.emplace(ex.meta);
            conn.trace->status = 200;
            std::string out = head(conn, 200, "text/event-stream; charset=utf-8", -1,
                                   "cache-control: no-cache\r\nx-request-id: " + ex.meta.id + "\r\n");
            std::string events;
            ex.sse->start(events, ex.usage);
            appendBody(conn, out, events);
            write(conn, out, StampHeaders);
        }
    }

    /// Frames a piece of a streaming body (chunked coding on HTTP/1.1).
    static void appendBody(const Connection &conn, std::string &out, std::string_view data)
    {
        if (data.empty())
            return;
        if (!conn.exchange->chunked) {
            out += data;
            return;
        }
        out += hex(data.size());
        out += "\r\n";
        out += data;
        out += "\r\n";
    }

    void onChunk(const Chunk &chunk)
    {
        const auto at = bySeq.find(chunk.seq);
        if (at == bySeq.end())
            return;
        const auto it = connections.find(at->second);
        if (it == connections.end() || it->second->dead || !it->second->exchange)
            return;
        Connection &conn = *it->second;
        try {
            deliver(conn, chunk);
        } catch (const std::exception &) {
            closeConnection(conn);
        }
    }

    /// Writes a chunk of tokens (streaming) or, with the last one, the whole body. Counters and
    /// the trace are updated before the bytes leave, so what a client got is already counted.
    void deliver(Connection &conn, const Chunk &chunk)
    {
        Exchange &ex = *conn.exchange;
        const bool first = ex.usage.completionTokens == ex.hiddenTokens; // nothing sent yet
        const bool hidden = chunk.reasoning && ex.hideReasoning;
        if (ex.request.stream) {
            // As vLLM measures it: the gap between two outputs of the sequence, per token.
            const qint64 now = nowNs();
            if (ex.lastTokenNs != 0)
                itlHistogram.observe(double(now - ex.lastTokenNs) / 1e9 / double(chunk.tokens),
                                     std::uint64_t(chunk.tokens));
            ex.lastTokenNs = now;
        }
        ex.usage.completionTokens += chunk.tokens;
        if (chunk.reasoning)
            ex.usage.reasoningTokens += chunk.tokens;
        const bool cut = chunk.last && ex.plan.cutAfter >= 0;
        const bool complete = chunk.last && !cut;

        scratchFrame.clear();
        unsigned stamps = 0;
        if (hidden) {
            // Generated and counted (the trace says what usage says), but nothing leaves.
            ex.hiddenTokens += chunk.tokens;
            conn.trace->completionTokens += chunk.tokens;
            conn.trace->reasoningTokens += chunk.tokens;
        } else if (ex.request.stream) {
            scratchText.clear();
            ex.text.append(scratchText, chunk.tokens);
            scratchEvents.clear();
            ex.sse->delta(scratchEvents, chunk.reasoning, scratchText);
            if (complete)
                ex.sse->finish(scratchEvents, ex.plan.stoppedByLength, ex.usage);
            appendBody(conn, scratchFrame, scratchEvents);
            if (complete && ex.chunked)
                scratchFrame += "0\r\n\r\n";
            countSent(conn, chunk.tokens, chunk.reasoning ? chunk.tokens : 0);
            stamps = (first ? unsigned(StampFirstToken) : 0U) | (chunk.last ? unsigned(StampLastToken) : 0U);
        } else {
            ex.text.append(chunk.reasoning ? ex.reasoningText : ex.contentText, chunk.tokens);
            if (!chunk.last)
                return;
            const std::string body =
                completeBody(ex.meta, ex.reasoningText, ex.contentText, ex.plan.stoppedByLength, ex.usage);
            conn.trace->status = 200;
            // A cut response promises the whole body in its headers, and half of it arrives.
            scratchFrame =
                head(conn, 200, "application/json", qint64(body.size()), "x-request-id: " + ex.meta.id + "\r\n") +
                (cut ? body.substr(0, body.size() / 2) : body);
            if (cut) {
                stamps = StampHeaders;
            } else {
                const qint64 sent = ex.usage.completionTokens - ex.hiddenTokens;
                countSent(conn, sent, ex.usage.reasoningTokens - ex.hiddenTokens);
                stamps = StampHeaders | StampFirstToken | StampLastToken;
            }
        }

        if (!complete) {
            const qint64 writtenNs = write(conn, scratchFrame, stamps);
            recordPacing(writtenNs - chunk.dueNs);
            if (cut && !conn.dead) {
                // The stream ends abruptly, as when a server process dies or a proxy drops it.
                conn.trace->outcome = QStringLiteral("cut");
                {
                    std::lock_guard lock(statsMutex);
                    ++stats.streamsCut;
                }
                closeConnection(conn);
            }
            return;
        }
        conn.trace->outcome = QStringLiteral("ok");
        ++(ex.plan.stoppedByLength ? successLength : successStop);
        endExchange(conn);
        {
            std::lock_guard lock(statsMutex);
            ++stats.requestsServed;
        }
        recordPacing(writeLast(conn, scratchFrame, stamps) - chunk.dueNs);
    }

    void recordPacing(qint64 lateNs)
    {
        std::lock_guard lock(statsMutex);
        pacing.record(double(lateNs) / 1000.0); // µs
    }

    void countSent(Connection &conn, qint64 tokens, qint64 reasoningTokens)
    {
        conn.trace->completionTokens += tokens;
        conn.trace->reasoningTokens += reasoningTokens;
        std::lock_guard lock(statsMutex);
        stats.tokensSent += tokens;
        stats.reasoningTokensSent += reasoningTokens;
    }

    /// The exchange leaves the model (finished, cut, refused or abandoned).
    void endExchange(Connection &conn)
    {
        if (!conn.exchange)
            return;
        if (const quint64 seq = conn.exchange->seq) {
            model.cancel(seq, nowNs()); // a no-op when it already finished
            bySeq.erase(seq);
        }
        conn.exchange.reset();
        exchangeCountChanged(-1);
    }

    void exchangeCountChanged(int delta)
    {
        inProgress += delta;
        updateGauges();
    }

    // --- statistics --------------------------------------------------------------------------

    void updateGauges()
    {
        std::lock_guard lock(statsMutex);
        stats.requestsActive = model.active();
        stats.requestsQueued = model.queued();
        stats.requestsInProgress = inProgress;
        stats.peakConcurrentRequests = std::max(stats.peakConcurrentRequests, inProgress);
    }

    SimStats snapshot() const
    {
        std::lock_guard lock(statsMutex);
        SimStats s = stats;
        s.uptimeS = double(nowNs() - startNs) / 1e9;
        s.pacing.count = qint64(pacing.count());
        if (!pacing.isEmpty()) {
            s.pacing.p50Us = pacing.percentile(0.5);
            s.pacing.p99Us = pacing.percentile(0.99);
            s.pacing.maxUs = pacing.max();
        }
        return s;
    }

    /// The request-level histograms of /metrics, from a finished request's trace (server thread).
    void observeLatencies(const RequestTrace &t)
    {
        if (t.receivedNs < 0)
            return;
        if (t.firstTokenNs >= 0)
            ttftHistogram.observe(double(t.firstTokenNs - t.receivedNs) / 1e9);
        if (t.outcome != QLatin1String("ok") || t.doneNs < 0)
            return;
        e2eHistogram.observe(double(t.doneNs - t.receivedNs) / 1e9);
        if (t.stream && t.completionTokens >= 2 && t.lastTokenNs > t.firstTokenNs)
            tpotHistogram.observe(double(t.lastTokenNs - t.firstTokenNs) / 1e9 / double(t.completionTokens - 1));
    }

    /// GET /metrics: vLLM's names, types and label, from the same counters as /sim/stats.
    std::string prometheusText()
    {
        const SimStats s = snapshot();
        const PromLabels labels{{"model_name", config.model.toStdString()}, {"engine", "0"}};
        PromWriter w;
        const auto one = [&](const char *name, PromType type, const char *help, double value) {
            w.family(name, type, help);
            w.sample(name, labels, value);
        };
        one("vllm:num_requests_running", PromType::Gauge, "Number of requests in model execution batches.",
            double(s.requestsActive));
        one("vllm:num_requests_waiting", PromType::Gauge, "Number of requests waiting to be processed.",
            double(s.requestsQueued));
        one("vllm:kv_cache_usage_perc", PromType::Gauge, "KV-cache usage. 1 means 100 percent usage.",
            std::min(1.0, double(model.kvTokens()) / double(config.kvCacheTokens)));
        one("vllm:prefix_cache_queries_total", PromType::Counter,
            "Prefix cache queries, in terms of number of queried tokens.", double(s.promptTokens));
        one("vllm:prefix_cache_hits_total", PromType::Counter,
            "Prefix cache hits, in terms of number of cached tokens.", double(s.cachedTokens));
        one("vllm:prompt_tokens_total", PromType::Counter, "Number of prefill tokens processed.",
            double(s.promptTokens));
        one("vllm:generation_tokens_total", PromType::Counter, "Number of generation tokens processed.",
            double(s.tokensSent));
        w.family("vllm:request_success_total", PromType::Counter, "Count of successfully processed requests.");
        for (const auto &[reason, count] : {std::pair{"stop", successStop}, std::pair{"length", successLength}}) {
            PromLabels withReason = labels;
            withReason.emplace_back("finished_reason", reason);
            w.sample("vllm:request_success_total", withReason, double(count));
        }
        const auto histogram = [&](const char *name, const char *help, const PromHistogram &h) {
            w.family(name, PromType::Histogram, help);
            w.histogram(name, labels, h.bounds(), h.cumulative(), h.sum());
        };
        histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttftHistogram);
        histogram("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itlHistogram);
        histogram("vllm:request_time_per_output_token_seconds",
                  "Histogram of time_per_output_token_seconds per request.", tpotHistogram);
        histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", e2eHistogram);
        return w.text();
    }

    void resetStats()
    {
        ttftHistogram.clear();
        itlHistogram.clear();
        tpotHistogram.clear();
        e2eHistogram.clear();
        successStop = successLength = 0;
        std::lock_guard lock(statsMutex);
        SimStats fresh;
        fresh.requestsActive = stats.requestsActive;
        fresh.requestsQueued = stats.requestsQueued;
        fresh.requestsInProgress = stats.requestsInProgress;
        fresh.peakConcurrentRequests = stats.requestsInProgress;
        fresh.openConnections = stats.openConnections;
        fresh.peakOpenConnections = stats.openConnections;
        stats = fresh;
        pacing.clear();
    }

    const SimConfig config;
    ServingModel model;
    PrefixCache cache;
    RateLimiter limiter;
    TraceLog traces;
    QString tokenizerError;
    const std::shared_ptr<const Tokenizer> tokenizer; ///< nullptr when the file would not load

    int listenFd = -1;
    int wakeFd = -1;
    int timerFd = -1;
    int epollFd = -1;
    quint16 boundPort = 0;
    qint64 armedNs = -1;
    bool stopRequested = false;
    qint64 startNs = 0;
    qint64 startSeconds = QDateTime::currentSecsSinceEpoch();

    std::unordered_map<quint64, std::unique_ptr<Connection>> connections;
    std::unordered_map<quint64, quint64> bySeq; ///< model sequence -> connection
    std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;
    std::vector<quint64> ready; ///< connections that may parse their next request
    std::vector<quint64> dead;  ///< closed connections to delete at a safe point
    quint64 nextConnectionId = kFirstConnectionId;
    qint64 generationIndex = 0;
    quint64 responseCounter = 0;
    qint64 inProgress = 0;
    std::string idPrefix;
    std::string scratchText;
    std::string scratchEvents;
    std::string scratchFrame;

    mutable std::mutex statsMutex;
    SimStats stats;
    LogHistogram pacing; ///< chunk lateness, µs

    // /metrics' request-level series, in vLLM's bucket bounds so the simulator reads like vLLM
    // (touched by the server thread only).
    PromHistogram ttftHistogram{{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25,  0.5,   0.75,
                                 1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0}};
    PromHistogram itlHistogram{
        {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0}};
    PromHistogram tpotHistogram{itlHistogram.bounds()};
    PromHistogram e2eHistogram{{0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,   10.0,   15.0,  20.0,
                                30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0}};
    qint64 successStop = 0;
    qint64 successLength = 0;
};

SimServer::SimServer(SimConfig config)
    : d(std::make_unique<Impl>(std::move(config)))
{}

SimServer::~SimServer() = default;

bool SimServer::listen(const QHostAddress &address, quint16 port, QString *error)
{
    const auto fail = [&](const QString &what) {
        if (error)
            *error = what;
        if (d->listenFd >= 0) {
            ::close(d->listenFd);
            d->listenFd = -1;
        }
        return false;
    };
    if (!d->tokenizer)
        return fail(d->tokenizerError);
    if (d->epollFd < 0 || d->timerFd < 0 || d->wakeFd < 0)
        return fail(QStringLiteral("cannot create the event loop: %1").arg(QString::fromStdString(errnoText(errno))));

    sockaddr_storage storage{};
    socklen_t length = 0;
    const bool any = address == QHostAddress(QHostAddress::Any) || address == QHostAddress(QHostAddress::AnyIPv6);
    int family = AF_INET;
    if (address.protocol() == QAbstractSocket::IPv4Protocol || address == QHostAddress(QHostAddress::AnyIPv4)) {
        auto *in4 = reinterpret_cast<sockaddr_in *>(&storage);
        in4->sin_family = AF_INET;
        in4->sin_port = htons(port);
        in4->sin_addr.s_addr = htonl(address.toIPv4Address());
        length = sizeof(sockaddr_in);
    } else if (address.protocol() == QAbstractSocket::IPv6Protocol || any) {
        family = AF_INET6;
        auto *in6 = reinterpret_cast<sockaddr_in6 *>(&storage);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        const Q_IPV6ADDR a = any ? Q_IPV6ADDR{} : address.toIPv6Address();
        std::memcpy(&in6->sin6_addr, &a, sizeof a);
        length = sizeof(sockaddr_in6);
    } else {
        return fail(QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    }

    d->listenFd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (d->listenFd < 0)
        return fail(QStringLiteral("cannot create a socket: %1").arg(QString::fromStdString(errnoText(errno))));
    const int one = 1;
    const int zero = 0;
    setsockopt(d->listenFd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6 && any)
        setsockopt(d->listenFd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); // Any: IPv4 too
    if (::bind(d->listenFd, reinterpret_cast<sockaddr *>(&storage), length) != 0)
        return fail(QStringLiteral("cannot listen on %1 port %2: %3")
                        .arg(address.toString())
                        .arg(port)
                        .arg(QString::fromStdString(errnoText(errno))));
    if (::listen(d->listenFd, 4096) != 0)
        return fail(QStringLiteral("cannot listen: %1").arg(QString::fromStdString(errnoText(errno))));
    getsockname(d->listenFd, reinterpret_cast<sockaddr *>(&storage), &length);
    d->boundPort = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in *>(&storage)->sin_port
                                           : reinterpret_cast<sockaddr_in6 *>(&storage)->sin6_port);
    d->watch(d->listenFd, kListenerId, EPOLLIN);
    return true;
}

quint16 SimServer::port() const
{
    return d->boundPort;
}

void SimServer::run()
{
    d->run();
}

void SimServer::stop()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto r = ::write(d->wakeFd, &one, sizeof one);
}

SimStats SimServer::stats() const
{
    return d->snapshot();
}

QList<RequestTrace> SimServer::requests(qint64 since, qint64 limit) const
{
    return d->traces.since(since, limit);
}

const SimConfig &SimServer::config() const
{
    return d->config;
}

qint64 raiseOpenFileLimit()
{
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return -1;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        setrlimit(RLIMIT_NOFILE, &limit);
        getrlimit(RLIMIT_NOFILE, &limit);
    }
    return limit.rlim_cur == RLIM_INFINITY ? std::numeric_limits<qint64>::max() : qint64(limit.rlim_cur);
}

} // namespace tb::sim
