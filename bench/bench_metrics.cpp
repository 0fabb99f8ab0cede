// bench_metrics: what statistics and result files cost per request.
//   - LogHistogram::record, ns per value;
//   - records/s through RunAggregator::add, RunWriter::append, and both (as the orchestrator does);
//   - heap bytes the aggregator holds per recorded request;
//   - what a live view pays to read summary() and timeSeries() at the end of the run.
// Usage: bench_metrics [requests (default 200000)] [tokens per request (default 256)]
#include "metrics/loghistogram.h"
#include "metrics/runaggregator.h"
#include "results/runwriter.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <array>
#include <chrono>
#include <cstdio>
#include <random>

using namespace tb;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since)
{
    return std::chrono::duration<double>(Clock::now() - since).count();
}

/// A closed loop at 64 users, one token per chunk 20 ms apart, 1% HTTP 503s.
class Requests
{
public:
    explicit Requests(int tokens)
        : m_tokens(tokens)
    {}

    const RequestRecord &next()
    {
        const std::uint64_t i = m_next++;
        RequestRecord &r = m_record;
        // Each user sends its next request 1 ms after its last one ended.
        std::int64_t &userFree = m_userFree[i % m_userFree.size()];
        const std::int64_t start = userFree;
        r.id = i + 1;
        r.scheduledNs = r.sentNs = start;
        r.headersNs = start + 20'000'000;
        const std::int64_t ttft = std::int64_t(m_ttft(m_rng) * 1e6);
        r.tokenChunks.clear();
        if (m_errors(m_rng)) {
            r.status = RequestStatus::Http;
            r.httpStatus = 503;
            r.firstTokenNs = r.firstContentNs = r.lastTokenNs = -1;
            r.completionTokens = 0;
            r.doneNs = r.headersNs;
            r.errorMessage = QStringLiteral("overloaded, retry later");
        } else {
            r.status = RequestStatus::Ok;
            r.httpStatus = 200;
            for (int t = 0; t < m_tokens; ++t)
                r.tokenChunks.push_back({start + ttft + t * 20'000'000LL + std::int64_t(m_jitter(m_rng)), 1 + t % 7});
            r.firstTokenNs = r.firstContentNs = r.tokenChunks.front().tNs;
            r.lastTokenNs = r.tokenChunks.back().tNs;
            r.doneNs = r.lastTokenNs + 100'000;
            r.completionTokens = m_tokens;
            r.errorMessage.clear();
        }
        userFree = r.doneNs + 1'000'000;
        r.chunks = int(r.tokenChunks.size());
        r.promptTokens = 512;
        r.cachedTokens = 128;
        r.tokenSource = TokenSource::Usage;
        r.responseId = QStringLiteral("chatcmpl-%1").arg(i);
        return r;
    }

private:
    int m_tokens;
    std::uint64_t m_next = 0;
    std::array<std::int64_t, 64> m_userFree{};
    RequestRecord m_record;
    std::mt19937_64 m_rng{1};
    std::lognormal_distribution<double> m_ttft{std::log(300.0), 0.5};
    std::uniform_real_distribution<double> m_jitter{0, 2'000'000};
    std::bernoulli_distribution m_errors{0.01};
};

RunInfo runInfo()
{
    RunConfig config;
    config.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    config.target.model = QStringLiteral("bench");
    config.load.concurrency = 64;
    config.slo.ttftMs = 500;
    return RunInfo::begin(config);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const int requests = argc > 1 ? std::atoi(argv[1]) : 200000;
    const int tokens = argc > 2 ? std::atoi(argv[2]) : 256;
    std::printf("bench_metrics: %d requests, %d one-token chunks each\n", requests, tokens);

    {
        std::mt19937_64 rng(3);
        std::lognormal_distribution<double> d(std::log(300.0), 1.0);
        std::vector<double> values(1 << 20);
        for (double &v : values)
            v = d(rng);
        LogHistogram h;
        const int rounds = 20;
        const auto start = Clock::now();
        for (int round = 0; round < rounds; ++round) {
            for (const double v : values)
                h.record(v);
        }
        const double s = seconds(start);
        const auto query = Clock::now();
        double p99 = 0;
        for (int i = 0; i < 10000; ++i)
            p99 += h.percentile(0.99) / 10000;
        std::printf("LogHistogram::record        %8.1f ns/value   (%zu KB for %llu values; p99 = %.0f in %.2f µs)\n",
                    s * 1e9 / (double(values.size()) * rounds), h.heapBytes() / 1024, (unsigned long long)h.count(),
                    p99, seconds(query) * 1e6 / 10000);
    }

    const auto measure = [&](const char *what, bool aggregate, bool write) {
        Requests source(tokens);
        RunAggregator aggregator(runInfo());
        QTemporaryDir tmp;
        RunWriter writer;
        if (write && !writer.open(tmp.filePath(QStringLiteral("run")), aggregator.info())) {
            std::printf("cannot write: %s\n", qPrintable(writer.errorString()));
            return;
        }
        const auto start = Clock::now();
        for (int i = 0; i < requests; ++i) {
            const RequestRecord &r = source.next();
            if (aggregate)
                aggregator.add(r);
            if (write)
                writer.append(r);
        }
        const double s = seconds(start);
        std::printf("%-27s %8.0f records/s  (%.2f µs per record, %.1f M chunks/s)\n", what, requests / s,
                    s * 1e6 / requests, double(requests) * tokens / s / 1e6);
        if (!aggregate)
            return;
        std::printf("  aggregator heap            %8.1f bytes per request (%.1f MB in all)\n",
                    double(aggregator.heapBytes()) / requests, double(aggregator.heapBytes()) / 1e6);
        const auto summaryStart = Clock::now();
        const RunSummary summary = aggregator.summary();
        const double summaryS = seconds(summaryStart);
        const auto seriesStart = Clock::now();
        const auto rows = aggregator.timeSeries();
        const double seriesS = seconds(seriesStart);
        std::printf("  summary() %.1f ms, timeSeries() %.1f ms for %zu rows  (peak in flight %d)\n", summaryS * 1e3,
                    seriesS * 1e3, rows.size(), summary.total.concurrency.peakInFlight);
        // A live view's refresh: a second's worth of new records, then the summary and the last rows.
        for (int i = 0; i < 1000; ++i)
            aggregator.add(source.next());
        const auto liveStart = Clock::now();
        const int peak = aggregator.summary().total.concurrency.peakInFlight;
        const std::size_t allRows = aggregator.timeSeries().size();
        std::printf("  live refresh after 1000 more records: summary() + all %zu rows %.1f ms  (peak %d)\n", allRows,
                    seconds(liveStart) * 1e3, peak);
        if (write) {
            const auto finishStart = Clock::now();
            writer.finish(summary, rows);
            std::printf("  finish() %.1f ms\n", seconds(finishStart) * 1e3);
        }
    };
    measure("RunAggregator::add", true, false);
    measure("RunWriter::append", false, true);
    measure("aggregator + writer", true, true);
    return 0;
}
