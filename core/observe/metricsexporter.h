#pragma once

#include "metrics/runsummary.h"

#include <QHostAddress>
#include <QMutex>
#include <QObject>
#include <QString>

#include <optional>
#include <vector>

class QThread;

namespace tb {

/// What a run shows of one target to Prometheus: its live summary and requests in flight.
struct ExportedTarget {
    QString name;
    RunSummary summary;
    std::int64_t inFlight = 0;
};

/// OpenMetrics 1.0 text of TokenBench's own figures (docs/metrics.md "own metrics for Prometheus"): requests by
/// status, HTTP responses by code, tokens, requests in flight, and TTFT/ITL/E2E histograms in
/// seconds, labelled by target and stage, ending in `# EOF`. The counters are the summaries' (warm-up
/// excluded); histogram buckets come from the summaries' log histograms, so a value within 0.5% of a
/// bound may count on either side of it.
QByteArray openMetricsText(const std::vector<ExportedTarget> &targets);

/// Serves openMetricsText() of the latest published figures at GET /metrics on its own thread and
/// event loop: the run only hands it value types (publish() copies under a lock), so a scraper
/// never reaches the engine. Bounded against a hostile scraper: at most kMaxConnections at once
/// (more are closed at once), a request head of at most kMaxRequestBytes, kDeadlineMs per
/// connection from accept to the last byte written, one request per connection.
class MetricsExporter : public QObject
{
    Q_OBJECT

public:
    static constexpr int kMaxConnections = 16;
    static constexpr int kMaxRequestBytes = 8 * 1024;
    static constexpr int kDeadlineMs = 5000;
    static constexpr char kContentType[] = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /// "127.0.0.1:9464", "[::1]:9464" (port 0: any free port); none with *error otherwise.
    static std::optional<std::pair<QHostAddress, quint16>> parseAddress(const QString &text, QString *error);

    explicit MetricsExporter(QObject *parent = nullptr);
    /// Stops serving and joins its thread.
    ~MetricsExporter() override;

    /// Starts listening (once); false with *error when the address cannot be bound.
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    /// http://ADDR:PORT/metrics; empty when not listening.
    QString url() const;
    /// Thread-safe: the figures the next scrape serves.
    void publish(std::vector<ExportedTarget> targets);
    /// Thread-safe: one target's figures (targets beyond the list so far are added).
    void publish(int target, ExportedTarget figures);

private:
    class Server;
    QByteArray render() const;

    QThread *m_thread = nullptr;
    Server *m_server = nullptr; ///< lives on m_thread
    QString m_url;
    mutable QMutex m_mutex;
    std::vector<ExportedTarget> m_targets;
};

} // namespace tb
