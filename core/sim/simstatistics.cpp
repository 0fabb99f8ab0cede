#include "sim/simserver_p.h"

namespace tb::sim {

void SimServer::Impl::updateGauges()
{
    std::lock_guard lock(statsMutex);
    stats.requestsActive = model.active();
    stats.requestsQueued = model.queued();
    stats.requestsInProgress = inProgress;
    stats.peakConcurrentRequests = std::max(stats.peakConcurrentRequests, inProgress);
}

SimStats SimServer::Impl::snapshot() const
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

void SimServer::Impl::observeLatencies(const RequestTrace &t)
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

std::string SimServer::Impl::prometheusText()
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
    one("vllm:prefix_cache_hits_total", PromType::Counter, "Prefix cache hits, in terms of number of cached tokens.",
        double(s.cachedTokens));
    one("vllm:prompt_tokens_total", PromType::Counter, "Number of prefill tokens processed.", double(s.promptTokens));
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
    histogram("vllm:request_time_per_output_token_seconds", "Histogram of time_per_output_token_seconds per request.",
              tpotHistogram);
    histogram("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", e2eHistogram);
    return w.text();
}

void SimServer::Impl::resetStats()
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

} // namespace tb::sim
