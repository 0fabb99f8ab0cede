#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

struct RequestRecord;

/// summary.json's `cancellation` block (--cancel-rate; docs/metrics.md "Request cancellation"):
/// the requests the client abandoned on purpose, in prefill or in decode, and whether the server
/// freed their capacity — the successful requests sent before the first abandonment against those
/// sent from it on. A server that keeps generating for abandoned requests serves the others
/// slower once abandonments begin.
struct CancellationSummary {
    double rate = 0; ///< load.cancel_rate
    QString after;   ///< load.cancel_after as given
    std::int64_t abandoned = 0;
    std::int64_t inPrefill = 0;            ///< abandoned before their first token
    std::int64_t inDecode = 0;             ///< abandoned after it
    std::optional<double> firstAbandonedS; ///< run time of the first abandonment; none: none was
    /// The successful requests on one side of the first abandonment, by when they were sent.
    struct Side {
        std::int64_t requests = 0;
        std::optional<double> ttftP50Ms;
        std::optional<double> e2eP50Ms;
        bool operator==(const Side &) const = default;
    };
    Side before; ///< sent before the first abandonment
    Side during; ///< sent at it or later
    /// "abandoned 30 (12 in prefill, 18 in decode); ok requests' TTFT p50 before 41 ms, during 44 ms"
    QString line() const;

    nlohmann::json toJson() const;
    static std::optional<CancellationSummary> fromJson(const nlohmann::json &json, QString *error);
    bool operator==(const CancellationSummary &) const = default;
};

/// Gathers a CancellationSummary from a run's measured records (warm-up excluded), in any order.
/// Keeps 12 bytes per successful request: the first abandonment is known only at the end.
class CancellationTracker
{
public:
    CancellationTracker(double rate, const QString &after);
    void add(const RequestRecord &record);
    CancellationSummary summary() const;

private:
    struct Sample {
        std::int64_t sentNs;
        float ttftMs; ///< NaN: none
        float e2eMs;
    };
    CancellationSummary m_counts;
    std::int64_t m_firstAbandonedNs = -1;
    std::vector<Sample> m_ok;
};

} // namespace tb
