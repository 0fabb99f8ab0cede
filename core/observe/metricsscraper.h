#pragma once

#include "formats/prometheustext.h"
#include "metrics/gpumetrics.h"
#include "metrics/servermetrics.h"
#include "net/runclock.h"

#include <QObject>
#include <QUrl>

#include <vector>

class QThread;

namespace tb {

struct TargetConfig;

/// Scrapes Prometheus endpoints (a target's instances) once a second on its own thread (never the
/// engine's transport threads, so a slow, huge or broken /metrics cannot delay a measurement),
/// appends every raw series to server_metrics.csv with the instance it came from, and hands the
/// mapped common series to the run. Bounded: one request at a time per endpoint, a timeout, a size
/// cap; every failure is classified.
///
/// A scrape without an answer within timeoutMs is reported as failed but is not abandoned until
/// patienceMs: llama.cpp answers /metrics from its main loop, busy with a prefill, and holds one of
/// its few HTTP threads per request until then, so a retry each second would pile them up. Its
/// late answer is a scrape like any other, and the next follows on the interval.
class MetricsScraper : public QObject
{
    Q_OBJECT

public:
    struct Endpoint {
        QUrl url;
        /// Guessed from the target (not given): given up when it is plainly not there — refused,
        /// a 4xx, not Prometheus text — before its first scrape. Timeouts are retried.
        bool discovered = false;
        /// The target instance (its base URL, as the run records it) whose endpoint this is; empty
        /// for an endpoint given for a target of several instances.
        QString instance;
    };

    struct Options {
        std::vector<Endpoint> endpoints;
        QString csvPath; ///< server_metrics.csv; empty: none
        RunClock clock;
        int intervalMs = 1000;
        int timeoutMs = 2000;   ///< a scrape not answered by then counts as failed…
        int patienceMs = 30000; ///< …and is given up (aborted) after this long
        PromLimits limits;
        /// A DCGM exporter (--gpu-metrics): its scrapes arrive as gpuScraped(), not scraped().
        bool gpu = false;
    };

    /// The endpoints for a target: its server_metrics URL if given, else each instance's server
    /// root + /metrics (discovered); none when scraping is off. Never carries credentials.
    static std::vector<Endpoint> endpointsFor(const TargetConfig &target);
    /// The target's DCGM exporter (--gpu-metrics), given, never guessed; none when not given.
    static std::vector<Endpoint> gpuEndpointsFor(const TargetConfig &target);
    /// The URL as shown and stored (userinfo, query and fragment removed).
    static QString displayUrl(const QUrl &url);

    /// Signals arrive on the thread that creates the scraper.
    explicit MetricsScraper(Options options, QObject *parent = nullptr);
    /// Ends the scraping thread (requests in flight are aborted).
    ~MetricsScraper() override;

    /// Starts a thread of its own and scrapes there, the first time at once.
    void start();
    /// One last scrape of each endpoint (so the window's end is measured), then finished().
    void finish();

Q_SIGNALS:
    /// `endpoint` indexes Options::endpoints.
    void scraped(int endpoint, const tb::ServerPoint &point, const QString &engine);
    /// A DCGM exporter's scrape (Options::gpu).
    void gpuScraped(int endpoint, const tb::GpuPoint &point);
    /// Every failed scrape, at run time tS; `stopped`: that endpoint is not asked again (a
    /// discovered endpoint that is not there).
    void scrapeFailed(int endpoint, double tS, const QString &problem, bool stopped);
    /// Each endpoint has answered, failed or gone unanswered for timeoutMs once: the probe a run
    /// waits for before its load starts. Once.
    void probed();
    void finished();

private:
    class Worker;
    QThread *m_thread = nullptr;
    Worker *m_worker = nullptr; ///< lives on m_thread
};

} // namespace tb
