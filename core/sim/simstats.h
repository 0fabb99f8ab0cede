#pragma once

// What the simulator reports about itself: counters (GET /sim/stats), the simulator's own pacing
// accuracy, and one trace per finished request (GET /sim/requests) — the ground truth a client's
// measurements are checked against.

#include <QList>
#include <QMap>
#include <QString>

#include <nlohmann/json.hpp>

#include <deque>
#include <mutex>

namespace tb::sim {

/// How late the simulator wrote token chunks compared with its serving model's schedule.
struct PacingSummary {
    qint64 count = 0; ///< chunks written
    double p50Us = 0;
    double p99Us = 0;
    double maxUs = 0;
};

/// A snapshot of GET /sim/stats. Counters run since start or the last POST /sim/reset; peaks
/// restart from the current level at a reset.
struct SimStats {
    qint64 requestsReceived = 0;       ///< generation requests received (valid or not)
    qint64 requestsServed = 0;         ///< generation responses completed with 200
    qint64 requestsActive = 0;         ///< in the batch (prefill or decode)
    qint64 requestsQueued = 0;         ///< waiting for a batch slot
    qint64 requestsInProgress = 0;     ///< received, response not finished (incl. slow-header hold)
    qint64 peakConcurrentRequests = 0; ///< peak of requestsInProgress
    qint64 openConnections = 0;
    qint64 peakOpenConnections = 0;
    /// connections that spoke HTTP/2 (prior knowledge)
    qint64 h2Connections = 0;
    qint64 tokensSent = 0; ///< completion tokens written (reasoning included)
    qint64 reasoningTokensSent = 0;
    qint64 promptTokens = 0; ///< of requests admitted to the serving model
    qint64 cachedTokens = 0;
    qint64 promptsTruncated = 0;  ///< prompts cut to fit slot_context (llama.cpp's "input truncated")
    QMap<int, qint64> rejections; ///< error responses by HTTP status
    qint64 streamsCut = 0;        ///< responses cut by the cut_rate fault
    qint64 clientDisconnects = 0; ///< clients that closed before their response finished
    /// Tokens generated for requests whose client had left (ignore_cancel): capacity not freed.
    qint64 tokensAfterClientLeft = 0;
    double uptimeS = 0;
    PacingSummary pacing;

    nlohmann::json toJson() const;
};

/// One finished generation request. Times are std::chrono::steady_clock nanoseconds since its
/// epoch (directly comparable with a client's steady_clock on the same machine), -1 when the
/// request never got there.
struct RequestTrace {
    qint64 seq = 0; ///< 1-based, in order of finishing
    QString id;     ///< the response's "id"
    QString model;
    QString endpoint; ///< "chat" | "completions" | "messages"
    bool stream = false;
    int status = 0;  ///< HTTP status sent
    QString outcome; ///< "ok" | "error" | "cut" | "client_closed"
    qint64 promptTokens = 0;
    qint64 completionTokens = 0; ///< tokens written, reasoning included (and hidden reasoning: as usage counts)
    qint64 cachedTokens = 0;
    qint64 reasoningTokens = 0;
    qint64 receivedNs = -1;   ///< request fully received
    qint64 headersNs = -1;    ///< response headers written
    qint64 firstTokenNs = -1; ///< first token written to the socket (hidden reasoning is not written)
    qint64 lastTokenNs = -1;  ///< last token written
    qint64 doneNs = -1;       ///< response complete (or connection closed)

    nlohmann::json toJson() const;
};

/// The last `capacity` traces; thread-safe (the server appends, any thread reads).
class TraceLog
{
public:
    explicit TraceLog(qint64 capacity);
    void append(RequestTrace trace);
    /// Traces with seq > since, oldest first, at most `limit` (≤ 0: all).
    QList<RequestTrace> since(qint64 since, qint64 limit = 0) const;
    /// The seq of the newest trace (0 when none yet).
    qint64 lastSeq() const;

private:
    mutable std::mutex m_mutex;
    std::deque<RequestTrace> m_traces;
    qint64 m_capacity;
    qint64 m_lastSeq = 0;
};

} // namespace tb::sim
