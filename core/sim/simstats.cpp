#include "sim/simstats.h"

#include <algorithm>

namespace tb::sim {

nlohmann::json SimStats::toJson() const
{
    nlohmann::json rejected = nlohmann::json::object();
    // The statuses a client's error breakdown is compared against are always present.
    for (int status : {400, 404, 429, 500, 503})
        rejected[std::to_string(status)] = 0;
    for (auto it = rejections.cbegin(); it != rejections.cend(); ++it)
        rejected[std::to_string(it.key())] = it.value();
    return {
        {"requests_received", requestsReceived},
        {"requests_served", requestsServed},
        {"requests_active", requestsActive},
        {"requests_queued", requestsQueued},
        {"requests_in_progress", requestsInProgress},
        {"peak_concurrent_requests", peakConcurrentRequests},
        {"open_connections", openConnections},
        {"peak_open_connections", peakOpenConnections},
        {"h2_connections", h2Connections},
        {"tokens_sent", tokensSent},
        {"reasoning_tokens_sent", reasoningTokensSent},
        {"prompt_tokens", promptTokens},
        {"cached_tokens", cachedTokens},
        {"prompts_truncated", promptsTruncated},
        {"rejections", rejected},
        {"streams_cut", streamsCut},
        {"client_disconnects", clientDisconnects},
        {"tokens_after_client_left", tokensAfterClientLeft},
        {"uptime_s", uptimeS},
        {"pacing_error_us",
         {{"count", pacing.count}, {"p50", pacing.p50Us}, {"p99", pacing.p99Us}, {"max", pacing.maxUs}}},
    };
}

nlohmann::json RequestTrace::toJson() const
{
    const auto time = [](qint64 ns) { return ns < 0 ? nlohmann::json() : nlohmann::json(ns); };
    return {
        {"seq", seq},
        {"id", id.toStdString()},
        {"model", model.toStdString()},
        {"endpoint", endpoint.toStdString()},
        {"stream", stream},
        {"status", status},
        {"outcome", outcome.toStdString()},
        {"prompt_tokens", promptTokens},
        {"completion_tokens", completionTokens},
        {"cached_tokens", cachedTokens},
        {"reasoning_tokens", reasoningTokens},
        {"received_ns", time(receivedNs)},
        {"headers_ns", time(headersNs)},
        {"first_token_ns", time(firstTokenNs)},
        {"last_token_ns", time(lastTokenNs)},
        {"done_ns", time(doneNs)},
    };
}

TraceLog::TraceLog(qint64 capacity)
    : m_capacity(capacity)
{}

void TraceLog::append(RequestTrace trace)
{
    std::lock_guard lock(m_mutex);
    trace.seq = ++m_lastSeq;
    if (m_capacity <= 0)
        return;
    if (qint64(m_traces.size()) >= m_capacity)
        m_traces.pop_front();
    m_traces.push_back(std::move(trace));
}

QList<RequestTrace> TraceLog::since(qint64 since, qint64 limit) const
{
    std::lock_guard lock(m_mutex);
    QList<RequestTrace> out;
    // seq values are consecutive, so the first wanted trace is found by arithmetic.
    const qint64 oldest = m_traces.empty() ? m_lastSeq + 1 : m_traces.front().seq;
    const qint64 skip = std::max<qint64>(0, since + 1 - oldest);
    for (auto it = m_traces.begin() + std::min<qint64>(skip, qint64(m_traces.size())); it != m_traces.end(); ++it) {
        if (limit > 0 && out.size() >= limit)
            break;
        out.append(*it);
    }
    return out;
}

qint64 TraceLog::lastSeq() const
{
    std::lock_guard lock(m_mutex);
    return m_lastSeq;
}

} // namespace tb::sim
