#pragma once

#include "metrics/powerlawfit.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// A context-length sweep (--sweep p=…): TTFT against the prompt tokens the server counted, per
/// stage and per request, and the power law through the requests' points.
struct ContextSweepSummary {
    struct Stage {
        int stage = 0; ///< index into the run's stages
        QString name;
        std::int64_t requests = 0;                  ///< successful requests with a TTFT
        double promptTokens = 0;                    ///< median measured prompt tokens
        double ttftP50Ms = 0;                       ///< median TTFT
        double prefillTokensPerS = 0;               ///< promptTokens / TTFT p50
        std::optional<double> fitPrefillTokensPerS; ///< 1 / the fit's slope at promptTokens (tokens/s)
    };
    struct Point {
        double promptTokens = 0;
        double ttftMs = 0;
    };
    /// Per-request points kept per stage (the first ones); enough for a fit and a chart, bounded.
    static constexpr std::size_t kMaxPointsPerStage = 2000;
    std::vector<Stage> stages;
    std::vector<Point> points;
    PowerLawFit fit;

    /// "TTFT = 0.0008·x^1.5 + 100 ms, R² 0.998 (144 requests)", or "no fit: <reason>".
    QString fitText() const;

    nlohmann::json toJson() const;
    /// Reads summary.json's "context_sweep"; nullopt with *error naming the key.
    static std::optional<ContextSweepSummary> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
