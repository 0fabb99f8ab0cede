#pragma once

// A server's own metrics beside the client's: the series that vLLM, SGLang, TGI and llama.cpp
// expose under different names, mapped to common ones (running and waiting requests, KV cache use,
// prefix-cache hits, token counters, TTFT/ITL/E2E histograms), and what a run makes of them — the
// live rows of the dashboard and the `server` block of summary.json.

#include "formats/prometheustext.h"

#include <QMetaType>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace tb {

/// A cumulative histogram of one scrape, summed over its label sets.
struct CumulativeHistogram {
    std::vector<double> bounds; ///< finite `le` bounds, ascending
    std::vector<double> counts; ///< cumulative per bound, then +Inf (= total)
    double sum = 0;

    bool isEmpty() const { return counts.empty(); }
    double count() const { return counts.empty() ? 0 : counts.back(); }
};

/// The q-quantile (0..1) of the observations between two scrapes of a histogram (`earlier` may be
/// null: since the server started), interpolated linearly inside the bucket as Prometheus's
/// histogram_quantile() does; a quantile in the +Inf bucket is the largest finite bound. None
/// without observations. A counter reset (later < earlier) counts from zero.
std::optional<double> histogramQuantile(const CumulativeHistogram &later, const CumulativeHistogram *earlier, double q);

/// One scrape, in the common series. Gauges and counters are summed over label sets (several
/// engines or models), KV use is their largest.
struct ServerPoint {
    double tS = 0;                          ///< run time of the scrape
    std::optional<double> running;          ///< requests being decoded/prefilled
    std::optional<double> waiting;          ///< requests queued
    std::optional<double> kvCacheFraction;  ///< 0..1 of the KV cache in use
    std::optional<double> promptTokens;     ///< counter
    std::optional<double> generationTokens; ///< counter
    std::optional<double> prefixQueries;    ///< counter: prompt tokens looked up in the prefix cache
    std::optional<double> prefixHits;       ///< counter: of those, found
    std::optional<double> prefixHitRate;    ///< a server's own hit-rate gauge (SGLang), 0..1
    CumulativeHistogram ttft;               ///< seconds
    CumulativeHistogram itl;                ///< seconds
    CumulativeHistogram e2e;                ///< seconds
};

/// "vllm", "sglang", "tgi", "llamacpp" by the names present, else "unknown".
QString detectServerEngine(const PromExposition &exposition);
/// Maps the known names of one scrape (every raw series is kept apart, in server_metrics.csv).
ServerPoint mapServerMetrics(const PromExposition &exposition, double tS);

/// One scrape as the dashboard draws it: gauges as read, rates and percentiles over the interval
/// since the previous scrape. NaN where the server has no such series.
struct ServerRow {
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    double tS = 0;
    double running = kNone;
    double waiting = kNone;
    double kvCachePct = kNone;
    double ttftP50Ms = kNone;
    double ttftP99Ms = kNone;
    double itlP50Ms = kNone;
    double promptTokensPerS = kNone;
    double generationTokensPerS = kNone;
    double prefixHitRatio = kNone;
};

/// Each scrape of a saved scrape file (server_metrics.csv, gpu_metrics.csv: `t_s,name,labels,value`
/// and, since several instances were scraped, `instance`), in order, as the Prometheus text it was
/// parsed from: `scrape` gets its run time, instance and exposition, and may fail with *error. False
/// with *error when the file is damaged or `scrape` failed.
bool forEachCsvScrape(QByteArrayView csv,
                      const std::function<bool(double tS, const std::string &instance, const PromExposition &exposition,
                                               QString *error)> &scrape,
                      QString *error);

/// The rows of a saved run from its server_metrics.csv (`t_s,name,labels,value`), scrape by scrape
/// through the same mapping as the live run. None with *error when the file is damaged.
std::optional<std::vector<ServerRow>> serverRowsFromCsv(QByteArrayView csv, QString *error);

/// Percentiles of a server histogram over the window, in ms.
struct ServerLatency {
    double count = 0;
    std::optional<double> mean;
    std::optional<double> p50;
    std::optional<double> p90;
    std::optional<double> p99;
};

/// summary.json's `server` block: one scraped endpoint's, or with several (one per instance of the
/// target) their combination, each endpoint's own block in `instances`.
struct ServerSummary {
    QString url;        ///< scraped endpoint (no credentials); several: joined with ", "
    QString instance;   ///< the target instance the endpoint belongs to; empty when several or none
    QString engine;     ///< detectServerEngine(); "mixed" when several endpoints differ
    int scrapes = 0;    ///< successful scrapes
    int failures = 0;   ///< failed scrapes
    QString problem;    ///< the first failure, as reported; empty when none
    double windowS = 0; ///< from the baseline scrape to the last one
    ServerLatency ttft; ///< from the histogram's bucket deltas over the window
    ServerLatency itl;
    ServerLatency e2e;
    std::optional<double> runningMean, runningMax;
    std::optional<double> waitingMean, waitingMax;
    std::optional<double> kvCachePctMean, kvCachePctPeak;
    std::optional<double> prefixHitRatio; ///< hits / queries over the window, else the server's gauge
    std::optional<double> promptTokensPerS;
    std::optional<double> generationTokensPerS;
    /// The prompt-token counter's increase over the window: what llama.cpp evaluated (its cache
    /// hits are not in it), every prompt token for vLLM and SGLang.
    std::optional<double> promptTokens;
    /// The server's own share of prompt tokens served from its cache over the window, and what it
    /// comes from (compareCacheHits()).
    std::optional<double> cacheHitRatio;
    QString cacheHitSource;
    std::optional<std::int64_t> promptTokensSent; ///< the client's prompt tokens it is measured against
    std::vector<ServerSummary> instances;         ///< several endpoints: each one's block

    /// Sets the server-side cache hits from its counters against the prompt tokens the client's
    /// measured requests sent: llama.cpp's evaluated prompt tokens give 1 − evaluated / sent, vLLM's
    /// and SGLang's prefix-cache counters hits / queries. Returns a warning when that differs from
    /// `responsesRatio` (the responses' cached_tokens / prompt tokens) by 10 points or more; empty
    /// otherwise.
    QString compareCacheHits(std::int64_t sent, std::optional<double> responsesRatio);

    nlohmann::json toJson() const;
    static std::optional<ServerSummary> fromJson(const nlohmann::json &json, QString *error);
};

/// A run's scrapes of one or more endpoints (a target's instances): the dashboard rows and the
/// summary over the measurement window (from each endpoint's last scrape before the first measured
/// request was sent — after warm-up — to its last scrape). Keeps the rows (small) and only the
/// histogram snapshots the window needs.
class ServerSeries
{
public:
    /// A scraped endpoint: its URL as shown and the target instance it belongs to (may be empty);
    /// returns its index for add() and addFailure().
    int addSource(const QString &url, const QString &instance = {});
    /// The measurement starts (warm-up over) at run time tS.
    void markMeasurementStart(double tS);
    void add(int index, const ServerPoint &point, const QString &engine);
    /// A failed scrape of source `index` at run time tS.
    void addFailure(int index, double tS, const QString &problem);

    bool isEmpty() const { return m_rows.empty(); }
    /// One row per scrape of any source; with several, over each one's latest scrape: gauges and
    /// rates summed, KV use the largest, percentiles of the summed histogram deltas.
    const std::vector<ServerRow> &rows() const { return m_rows; }
    /// None before the first scrape or failure.
    std::optional<ServerSummary> summary() const;
    /// A source whose metrics never came, or stopped coming, with the reason and the run time.
    QStringList warnings() const;

private:
    /// What one scrape says against an earlier one, in a form that sums over sources.
    struct Interval {
        double seconds = 0;
        std::optional<double> running, waiting, kvPct;
        std::optional<double> hitRate; ///< a hit-rate gauge (the mean when combined)
        int hitRates = 0;              ///< gauges in hitRate
        std::optional<double> promptTokens, generationTokens, prefixHits, prefixQueries; ///< counter deltas
        std::optional<double> promptPerS, generationPerS;
        CumulativeHistogram ttft, itl, e2e; ///< bucket deltas
    };
    struct Accumulator {
        double sum = 0;
        double max = -std::numeric_limits<double>::infinity();
        int n = 0;
        void add(const std::optional<double> &v);
        std::optional<double> mean() const { return n ? std::optional<double>(sum / n) : std::nullopt; }
        std::optional<double> peak() const { return n ? std::optional<double>(max) : std::nullopt; }
    };
    struct Gauges {
        Accumulator running, waiting, kv, hitRate;
    };
    struct Source {
        QString url;
        QString instance;
        QString engine;
        QString problem; ///< the first failure
        QString lastProblem;
        int scrapes = 0;
        int failures = 0;
        int failuresSinceScrape = 0;
        std::optional<double> firstFailureS, lastFailureS, lastScrapeS;
        std::optional<ServerPoint> baseline;
        std::optional<ServerPoint> last;
        std::optional<Interval> latest; ///< its last scrape against the one before
        Gauges gauges;
    };

    /// `point` against `earlier`: none, no deltas (a first scrape); an empty point, since the start.
    static Interval intervalOf(const ServerPoint &point, const ServerPoint *earlier);
    static Interval combine(const std::vector<const Interval *> &intervals);
    static ServerRow rowOf(double tS, const Interval &interval);
    /// The source's measurement window, and its length (0: one scrape, counted since the start).
    static Interval windowOf(const Source &source, double *seconds);
    static void fill(ServerSummary &s, const Interval &window, const Gauges &gauges);
    static ServerSummary summaryOf(const Source &source);

    std::vector<Source> m_sources;
    std::optional<double> m_markS;
    std::vector<ServerRow> m_rows;
    Gauges m_gauges; ///< of the rows (all sources' latest scrapes)
};

} // namespace tb

Q_DECLARE_METATYPE(tb::ServerPoint)
