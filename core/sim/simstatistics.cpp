#include "sim/simserver_p.h"

#include "metrics/gpumetrics.h"

#include <cmath>

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

std::string SimServer::Impl::dcgmText()
{
    const SimStats s = snapshot();
    const qint64 now = nowNs();
    // The model's energy, exactly: idle power over the uptime, plus a fixed energy per token.
    const double energyMj = 1000 * (config.gpuIdleW * s.uptimeS + config.gpuJPerToken * double(s.tokensSent) +
                                    config.gpuJPerPromptToken * double(s.promptTokens));
    double powerW = config.gpuIdleW;
    if (dcgmLastEnergyMj >= 0 && now > dcgmLastNs && energyMj >= dcgmLastEnergyMj)
        powerW = (energyMj - dcgmLastEnergyMj) / 1000 / (double(now - dcgmLastNs) / 1e9);
    dcgmLastEnergyMj = energyMj;
    dcgmLastNs = now;
    const auto gpus = double(config.gpus);
    const double memoryUsed = std::round(0.9 * double(config.gpuMemoryMib));
    const double util = model.active() > 0 ? 100 : 0;
    PromWriter w;
    // dcgm-exporter's families, help texts and labels (etc/default-counters.csv).
    const struct {
        const char *name;
        PromType type;
        const char *help;
        double value;
    } series[] = {
        {dcgm::kUtil, PromType::Gauge, "GPU utilization (in %).", util},
        {dcgm::kFbFree, PromType::Gauge, "Framebuffer memory free (in MiB).", double(config.gpuMemoryMib) - memoryUsed},
        {dcgm::kFbUsed, PromType::Gauge, "Framebuffer memory used (in MiB).", memoryUsed},
        {dcgm::kPower, PromType::Gauge, "Power draw (in W).", powerW / gpus},
        {dcgm::kEnergy, PromType::Counter, "Total energy consumption since boot (in mJ).", energyMj / gpus},
    };
    for (const auto &one : series) {
        w.family(one.name, one.type, one.help);
        for (qint64 i = 0; i < config.gpus; ++i) {
            char uuid[48];
            std::snprintf(uuid, sizeof uuid, "GPU-5e1f0000-0000-4000-8000-%012lld", static_cast<long long>(i));
            const PromLabels labels{{"gpu", std::to_string(i)},
                                    {"UUID", uuid},
                                    {"device", "nvidia" + std::to_string(i)},
                                    {"modelName", "TokenBench simulated GPU"},
                                    {"Hostname", "tokenbench-sim"}};
            w.sample(one.name, labels, one.value);
        }
    }
    return w.text();
}

std::string SimServer::Impl::llamacppMetricsText()
{
    LlamacppCounters &c = llamacpp;
    const auto rate = [](qint64 tokens, quint64 ms) { return tokens ? 1e3 / double(ms) * double(tokens) : 0.0; };
    struct Metric {
        const char *name;
        const char *type;
        const char *help;
        double value;
    };
    // llama.cpp's names, help texts and order (counters, then gauges); n_busy_slots_per_decode is
    // an average it calls a counter.
    const Metric metrics[] = {
        {"prompt_tokens_total", "counter", "Number of prompt tokens processed.", double(c.promptTokens)},
        {"prompt_seconds_total", "counter", "Prompt process time", double(c.promptMs) / 1e3},
        {"tokens_predicted_total", "counter", "Number of generation tokens processed.", double(c.predictedTokens)},
        {"tokens_predicted_seconds_total", "counter", "Predict process time", double(c.predictedMs) / 1e3},
        {"n_decode_total", "counter", "Total number of llama_decode() calls", std::round(c.decodes)},
        {"n_busy_slots_per_decode", "counter", "Average number of busy slots per llama_decode() call",
         double(c.busySlots) / std::max(std::round(c.decodes), 1.0)},
        {"prompt_tokens_seconds", "gauge", "Average prompt throughput in tokens/s.",
         rate(c.windowPromptTokens, c.windowPromptMs)},
        {"predicted_tokens_seconds", "gauge", "Average generation throughput in tokens/s.",
         rate(c.windowPredictedTokens, c.windowPredictedMs)},
        {"kv_cache_usage_ratio", "gauge", "KV-cache usage. 1 means 100 percent usage.",
         double(model.kvTokens()) / double(config.kvCacheTokens)},
        {"kv_cache_tokens", "gauge", "KV-cache tokens.", double(model.kvTokens())},
        {"requests_processing", "gauge", "Number of requests processing.", double(model.active())},
        {"requests_deferred", "gauge", "Number of requests deferred.", double(model.queued())},
    };
    // A scrape starts the gauges' next window, as in llama.cpp.
    c.windowPromptTokens = c.windowPredictedTokens = 0;
    c.windowPromptMs = c.windowPredictedMs = 0;
    std::string text;
    char value[32];
    for (const Metric &m : metrics) {
        // llama.cpp writes doubles with a stream's default six significant digits (1.23457e+06).
        std::snprintf(value, sizeof value, "%g", m.value);
        text += std::string("# HELP llamacpp:") + m.name + " " + m.help + "\n# TYPE llamacpp:" + m.name + " " + m.type +
                "\nllamacpp:" + m.name + " " + value + "\n";
    }
    return text;
}

void SimServer::Impl::resetStats()
{
    llamacpp = {};
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
