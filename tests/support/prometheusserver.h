#pragma once

// Debian's prometheus, started by a test (tst_prometheusscrape) as an ordinary process on 127.0.0.1.

#include "support/serverprocess.h"

#include <QDateTime>
#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

/// Prometheus scraping `jobs` every second (a test's run lasts seconds, not minutes), its TSDB in
/// `dir`, its web API on a free port of 127.0.0.1; stopped with the object.
class PrometheusServer
{
public:
    struct Job {
        QString name;   ///< job_name, the `job` label of its series
        QString target; ///< "127.0.0.1:PORT", scraped at /metrics
    };

    /// Writes prometheus.yml, starts `prometheus` and waits until /-/ready answers 200. false with
    /// *why (what it printed) when it did not come up.
    bool start(const QString &prometheus, const QString &dir, const QList<Job> &jobs, QString *why);
    /// "http://127.0.0.1:PORT"
    QString url() const;

    /// GET /api/v1/query?query=EXPR[&time=AT]: the answer's `data` ({"resultType", "result"}) when
    /// its status is "success"; else nullopt with *why (Prometheus's errorType and error, or the
    /// transport's error).
    std::optional<nlohmann::json> query(const QString &expr, QString *why, const QDateTime &at = {}) const;
    /// GET /api/v1/label/LABEL/values?match[]=SERIES: what Grafana's label_values(SERIES, LABEL)
    /// offers; nullopt with *why on an error.
    std::optional<nlohmann::json> labelValues(const QString &label, const QString &series, QString *why) const;

    /// The answer's bodies are bounded: a test's queries return a few series.
    static constexpr qint64 kMaxAnswerBytes = 4 * 1024 * 1024;

private:
    std::optional<nlohmann::json> get(const QString &pathAndQuery, QString *why) const;

    ServerProcess m_process;
    quint16 m_port = 0;
};
