#pragma once

// Private to the simulated server: SimServer::Impl and the types its files share. The server is one
// class driven by one thread; its members are defined by concern in simserver.cpp (event loop and
// the public API), simconnections.cpp, simrouting.cpp (routing and HTTP responses),
// simgeneration.cpp and simstatistics.cpp.

#include "sim/simserver.h"

#include "formats/prometheustext.h"
#include "metrics/loghistogram.h"
#include "platform/pollset.h"
#include "sim/httprequestparser.h"
#include "sim/prefixcache.h"
#include "sim/ratelimiter.h"
#include "sim/requestplan.h"
#include "sim/servingmodel.h"
#include "sim/simprotocol.h"
#include "tokenize/tokenizer.h"

#include <nghttp2/nghttp2.h>

#include <QDateTime>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <queue>
#include <unordered_map>

namespace tb::sim {

using json = nlohmann::json;

inline qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// What the loop's sockets are to dispatch(): the listener's fixed id, connection ids above.
constexpr quint64 kListenerId = 0;
constexpr quint64 kFirstConnectionId = 16;

inline std::string hex(std::uint64_t n, int width = 0)
{
    char buf[24];
    const int len = std::snprintf(buf, sizeof buf, "%0*llx", width, static_cast<unsigned long long>(n));
    return std::string(buf, std::size_t(len));
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
    qint64 droppedTokens = 0;   ///< prompt tokens cut off to fit slot_context
    qint64 firstDueNs = -1;     ///< when the serving model produced the first token
    qint64 promptNs = 0;        ///< from the batch slot to the first token (llama.cpp's prompt_ms)
    /// Structured output: the reply's JSON text, sent over the content tokens in shares
    /// (simgeneration.cpp structuredSlice).
    std::string json;
    bool jsonReply = false;   ///< the content is `json`: a structured reply or a tool call's arguments
    std::size_t jsonSent = 0; ///< bytes of it sent
    qint64 jsonTokens = 0;    ///< the content tokens it is spread over
    qint64 jsonTokensDone = 0;
    std::string heldStart; ///< nagle_writes: the stream's opening events, sent with the first token
};

/// llama.cpp's server_metrics: its /metrics counters, kept by the server thread.
struct LlamacppCounters {
    qint64 promptTokens = 0;    ///< evaluated (not served from the cache), at each request's first token
    quint64 promptMs = 0;       ///< whole milliseconds per request, as llama.cpp adds them up
    qint64 predictedTokens = 0; ///< of requests that finished
    quint64 predictedMs = 0;
    double decodes = 0; ///< batch steps: each token a sequence gets is a share of one
    qint64 busySlots = 0;
    // Since the last scrape (llama.cpp's "bucket", behind the throughput gauges).
    qint64 windowPromptTokens = 0;
    quint64 windowPromptMs = 0;
    qint64 windowPredictedTokens = 0;
    quint64 windowPredictedMs = 0;
};

/// Trace fields a write stamps.
enum Stamp : unsigned { StampHeaders = 1, StampFirstToken = 2, StampLastToken = 4, StampDone = 8 };

struct Mark {
    std::uint64_t offset; ///< stamp when this many bytes were handed to the kernel
    unsigned stamps;
};

/// An HTTP/2 connection's protocol state (simh2.cpp): nghttp2 frames, HPACK and flow control;
/// each of its streams is a Connection of its own that routing and generation answer as usual.
struct H2Session {
    H2Session() = default;
    H2Session(const H2Session &) = delete;
    H2Session &operator=(const H2Session &) = delete;
    ~H2Session();
    nghttp2_session *session = nullptr;
    std::unordered_map<qint32, quint64> streams; ///< stream id -> its Connection, until that is reaped
    std::vector<quint64> touched;                ///< streams nghttp2 took bytes of since the last pump
    struct Flush {
        std::uint64_t offset;       ///< once the TCP connection flushed this many bytes...
        quint64 stream;             ///< ...the kernel has this stream's bytes
        std::uint64_t streamOffset; ///< up to here
    };
    std::vector<Flush> flushes;
    bool dirty = false; ///< queued for a pump
};

/// An HTTP/2 stream's side of its Connection: the request as its frames arrive.
struct H2Stream {
    qint32 id = 0;
    quint64 parent = 0; ///< the TCP connection carrying it
    HttpRequest request;
    std::size_t headerBytes = 0;
    int errorStatus = 0;     ///< 413 or 431, answered when the request ends
    std::uint64_t taken = 0; ///< bytes of the response nghttp2 took (the head counts as its size)
    bool headersSubmitted = false;
    bool closed = false; ///< nghttp2 closed the stream (or its connection went)
};

/// Hands the PollSet's events for one of the loop's sockets (the listener, a connection) to
/// SimServer::Impl::dispatch under its id.
class SimPollHandler : public PollHandler
{
public:
    SimPollHandler(SimServer::Impl *server, quint64 id)
        : m_server(server)
        , m_id(id)
    {}
    void pollReady(std::uint32_t events) override;

private:
    SimServer::Impl *m_server;
    quint64 m_id;
};

struct Connection {
    explicit Connection(std::size_t maxBody)
        : parser(maxBody)
    {}
    quint64 id = 0;
    SocketHandle socket = kNoSocket;
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
    bool fresh = true;                ///< nothing parsed yet: the HTTP/2 preface may still come
    bool metricsDeferred = false;     ///< a GET /metrics waits for a prefill to end
    qint64 requests = 0;              ///< requests parsed (for keep_alive_max)
    std::unique_ptr<H2Session> h2;    ///< a TCP connection speaking HTTP/2
    std::unique_ptr<H2Stream> stream; ///< an HTTP/2 stream (no descriptor of its own)
    /// Its socket's events (a stream has none).
    SimPollHandler pollHandler{nullptr, 0};
};

struct Timer {
    enum Kind { HeaderDelay, ResumeAccept, AcceptDue, IdleSweep, MetricsDue };
    qint64 dueNs;
    Kind kind;
    quint64 connection;
    bool operator>(const Timer &o) const { return dueNs > o.dueNs; }
};

class SimServer::Impl
{
public:
    explicit Impl(SimConfig config);
    ~Impl();

    // --- event loop (simserver.cpp) ------------------------------------------------------------------

    void run();
    void dispatch(quint64 id, std::uint32_t events);
    /// Chunks and timers that are due.
    void runDue();

    // --- connections (simconnections.cpp) ------------------------------------------------------------

    /// A connection waiting to be accepted: now, or after accept_delay_ms.
    void listenerReady();
    /// Accepts what the kernel queued; false when out of descriptors (accepting resumes later).
    bool acceptAll();
    qint64 idleTimeoutNs() const { return qint64(config.idleTimeoutS * 1e9); }
    /// Idle connections must not hold descriptors other clients need: close those with no
    /// request under way (a partial one counts as idle) that have been quiet for the timeout.
    void closeIdle(qint64 now);
    void readable(Connection &conn);
    /// Parses and answers requests in order, one at a time per connection.
    void processInput(Connection &conn);
    /// Writes or queues bytes; the kernel gets them right away when nothing is waiting.
    void send(Connection &conn, std::string_view data);
    /// Writes what waits; the stamps of what the kernel took get stampNs (0: now).
    void flush(Connection &conn, qint64 stampNs = 0);
    /// Writes a piece of the response and stamps trace fields with the moment the kernel gets it:
    /// just before the write (so no reader can see the bytes before the stamp exists) or, when
    /// earlier output still waits, when that drains. Returns the time of the write.
    qint64 write(Connection &conn, std::string_view data, unsigned stamps = 0);
    /// Writes the last piece of a response. Its trace is published before the bytes leave when
    /// nothing waits (so a client that got the response finds it in the log), else once written;
    /// then the connection serves its next request.
    qint64 writeLast(Connection &conn, std::string_view data, unsigned stamps = 0);
    void publishTrace(Connection &conn);
    void finishResponse(Connection &conn);
    /// Closes now; the object goes at the next safe point (callers may still hold it).
    void closeConnection(Connection &conn);
    void reapDead();
    /// Nothing of the connection's output waits: for a stream, the kernel has all its bytes.
    static bool drained(const Connection &conn)
    {
        return conn.stream ? conn.flushedTotal >= conn.queuedTotal : conn.outSent >= conn.out.size();
    }

    // --- HTTP/2 (simh2.cpp) --------------------------------------------------------------------------

    /// True when a fresh connection's first bytes are (the start of) the HTTP/2 preface; starts
    /// the session once all of it is in. *wait: the bytes so far are a prefix of it.
    bool detectH2(Connection &conn, bool *wait);
    void h2Input(Connection &conn);
    /// A stream's output: the first piece carries the head, sent as HEADERS, the rest as DATA.
    void h2Send(Connection &stream, std::string_view data);
    /// A stream closed by the server (done, cut, failed) or by its client or connection.
    void h2StreamClosed(Connection &stream);
    void h2ConnectionClosed(Connection &conn);
    /// Streams whose bytes the kernel took since the last call get their stamps, maybe finish.
    void h2Flushed(Connection &conn, qint64 stampNs = 0);
    void h2MarkDirty(Connection &conn);
    /// An HTTP/2 connection with a stream being answered (streams still arriving count as idle, as a
    /// partial HTTP/1.1 request does).
    bool h2Answering(const Connection &conn) const;
    /// Moves nghttp2's frames of every connection marked dirty to the kernel.
    void pumpH2();
    void h2Pump(Connection &conn);
    void h2Dispatch(Connection &stream);
    Connection *h2Stream(qint32 id);
    int h2BeginStream(const nghttp2_frame *frame);
    // nghttp2's callbacks (user data: this); h2Current is the connection being read or written.
    static int h2OnBeginHeaders(nghttp2_session *, const nghttp2_frame *frame, void *self);
    static int h2OnHeader(nghttp2_session *, const nghttp2_frame *frame, const std::uint8_t *name,
                          std::size_t nameLength, const std::uint8_t *value, std::size_t valueLength,
                          std::uint8_t flags, void *self);
    static int h2OnData(nghttp2_session *, std::uint8_t flags, qint32 id, const std::uint8_t *data, std::size_t length,
                        void *self);
    static int h2OnFrame(nghttp2_session *, const nghttp2_frame *frame, void *self);
    static int h2OnStreamClose(nghttp2_session *, qint32 id, std::uint32_t errorCode, void *self);
    static ssize_t h2Read(nghttp2_session *, qint32 id, std::uint8_t *buf, std::size_t length, std::uint32_t *flags,
                          nghttp2_data_source *, void *self);
    Connection *h2Current = nullptr;

    // --- HTTP responses (simrouting.cpp) -------------------------------------------------------------

    std::string head(const Connection &conn, int status, std::string_view contentType, qint64 contentLength,
                     std::string_view extraHeaders = {}) const;
    void respond(Connection &conn, int status, std::string_view contentType, std::string_view body,
                 std::string_view extraHeaders = {});
    void respondJson(Connection &conn, const json &body) { respond(conn, 200, "application/json", body.dump()); }
    void respondError(Connection &conn, Endpoint endpoint, const ApiError &error, std::string_view extraHeaders = {});

    // --- routing (simrouting.cpp) --------------------------------------------------------------------

    void route(Connection &conn, HttpRequest &request);
    /// vLLM's and SGLang's POST /tokenize: {"model", "prompt"} counts the text as a completions
    /// request would, {"model", "messages"} the chat with its template, as usage.prompt_tokens does.
    void tokenize(Connection &conn, const HttpRequest &request);
    /// llama.cpp's POST /tokenize: only {"content"} is counted (a string, or strings and ids),
    /// with its "add_special" and "with_pieces"; any other body gets {"tokens": []}.
    void tokenizeLlamacpp(Connection &conn, const HttpRequest &request);
    /// llama.cpp's JSON response (its MIME type, its error bodies {"error": {"code", …}}).
    void respondLlamacpp(Connection &conn, int status, const json &body);
    /// GET /metrics in the configured dialect.
    void respondMetrics(Connection &conn);
    /// A GET /metrics held by metrics_stall_while_prefilling, once its prefill has ended.
    void answerDeferredMetrics(quint64 connection);
    void methodNotAllowed(Connection &conn, const char *allowed);
    void models(Connection &conn, const HttpRequest &request);
    void requestLog(Connection &conn, const HttpRequest &request);

    // --- generation (simgeneration.cpp) --------------------------------------------------------------

    void generate(Connection &conn, Endpoint endpoint, HttpRequest &request);
    /// Hands the request to the serving model; streaming responses start right away.
    void admit(Connection &conn);
    /// Frames a piece of a streaming body (chunked coding on HTTP/1.1).
    static void appendBody(const Connection &conn, std::string &out, std::string_view data);
    void onChunk(const Chunk &chunk);
    /// Writes a chunk of tokens (streaming) or, with the last one, the whole body. Counters and
    /// the trace are updated before the bytes leave, so what a client got is already counted.
    void deliver(Connection &conn, const Chunk &chunk);
    void recordPacing(qint64 lateNs);
    /// llama.cpp's counters and the request's timings as a chunk is produced; the timings once it
    /// is the last.
    std::optional<Timings> countLlamacpp(Exchange &ex, const Chunk &chunk);
    void countSent(Connection &conn, qint64 tokens, qint64 reasoningTokens);
    /// The exchange leaves the model (finished, cut, refused or abandoned).
    void endExchange(Connection &conn);
    void exchangeCountChanged(int delta);

    // --- statistics (simstatistics.cpp) --------------------------------------------------------------

    void updateGauges();
    SimStats snapshot() const;
    /// The request-level histograms of /metrics, from a finished request's trace (server thread).
    void observeLatencies(const RequestTrace &t);
    /// GET /metrics: vLLM's names, types and label, from the same counters as /sim/stats.
    std::string prometheusText();
    /// GET /metrics as llama.cpp writes it: its names, no labels, no histograms; a scrape
    /// restarts the throughput gauges' window.
    std::string llamacppMetricsText();
    /// GET /dcgm: the DCGM exporter's series from the power model (simconfig.h).
    std::string dcgmText();
    void resetStats();

    const SimConfig config;
    ServingModel model;
    PrefixCache cache;
    RateLimiter limiter;
    TraceLog traces;
    QString tokenizerError;
    const std::shared_ptr<const Tokenizer> tokenizer; ///< nullptr when the file would not load

    /// core/platform's poll set (Linux: epoll, a timerfd for the next chunk's nanosecond, an
    /// eventfd for stop()); the loop waits in it.
    PollSet poll;
    SimPollHandler listenerPoll{this, kListenerId};
    SocketHandle listener = kNoSocket;
    quint16 boundPort = 0;
    bool stopRequested = false;
    qint64 startNs = 0;
    /// GET /dcgm's previous answer: its power gauge is the energy since then over the time since.
    double dcgmLastEnergyMj = -1;
    qint64 dcgmLastNs = 0;
    qint64 startSeconds = QDateTime::currentSecsSinceEpoch();

    std::unordered_map<quint64, std::unique_ptr<Connection>> connections;
    std::unordered_map<quint64, quint64> bySeq; ///< model sequence -> connection
    std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers;
    std::vector<quint64> ready; ///< connections that may parse their next request
    std::vector<quint64> dead;  ///< closed connections to delete at a safe point
    /// HTTP/2 connections with frames to send
    std::vector<quint64> h2Dirty;
    quint64 nextConnectionId = kFirstConnectionId;
    qint64 generationIndex = 0;
    quint64 responseCounter = 0;
    quint64 toolCallReplies = 0;   ///< requests answered with a tool call (--invalid-tool-call-rate counts them)
    quint64 structuredOutputs = 0; ///< requests answered with structured output (--invalid-json-rate counts them)
    qint64 inProgress = 0;
    std::string idPrefix;
    std::string scratchText;
    std::string scratchEvents;
    std::string scratchFrame;
    std::string scratchH2;

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
    LlamacppCounters llamacpp;
};

} // namespace tb::sim
