#pragma once

#include "engine/runclock.h"
#include "formats/prometheustext.h"
#include "metrics/servermetrics.h"

#include <QObject>
#include <QUrl>

class QThread;

namespace tb {

struct TargetConfig;

/// Scrapes a server's Prometheus endpoint once a second on its own thread (never the engine's
/// transport threads, so a slow, huge or broken /metrics cannot delay a measurement), appends
/// every raw series to server_metrics.csv and hands the mapped common series to the run.
/// Bounded: one request at a time, a timeout, a size cap; every failure is classified.
class MetricsScraper : public QObject
{
    Q_OBJECT

public:
    struct Options {
        QUrl url;
        /// The URL was guessed from the target (not given): the first failure ends scraping.
        bool discovered = false;
        QString csvPath; ///< server_metrics.csv; empty: none
        RunClock clock;
        int intervalMs = 1000;
        int timeoutMs = 2000;
        PromLimits limits;
    };

    /// The endpoint for a target: its server_metrics URL if given, else its base URL's server
    /// root + /metrics (discovered = true); an empty URL when scraping is off. Never carries
    /// credentials.
    static QUrl endpointFor(const TargetConfig &target, bool *discovered);
    /// The URL as shown and stored (userinfo, query and fragment removed).
    static QString displayUrl(const QUrl &url);

    /// Signals arrive on the thread that creates the scraper.
    explicit MetricsScraper(Options options, QObject *parent = nullptr);
    /// Ends the scraping thread (a request in flight is aborted).
    ~MetricsScraper() override;

    /// Starts a thread of its own and scrapes there, the first time at once.
    void start();
    /// One last scrape (so the window's end is measured), then finished(); at most timeoutMs.
    void finish();

Q_SIGNALS:
    void scraped(const tb::ServerPoint &point, const QString &engine);
    /// Every failed scrape; `stopped`: no more attempts (a discovered endpoint that did not answer).
    void scrapeFailed(const QString &problem, bool stopped);
    void finished();

private:
    class Worker;
    QThread *m_thread = nullptr;
    Worker *m_worker = nullptr; ///< lives on m_thread
};

} // namespace tb
