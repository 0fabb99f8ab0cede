#pragma once

#include "metrics/powerlawfit.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// A context-length sweep (--sweep p=…): TTFT against the prompt tokens the server counted, per
/// stage and per request, and the power law through the requests' points. A request whose
/// measured prompt is far below its stage's size (isTruncated()) was cut by the server to fit its
/// context: its point is kept apart (`excluded`) and out of the fit.
struct ContextSweepSummary {
    struct Stage {
        int stage = 0; ///< index into the run's stages
        QString name;
        std::int64_t requests = 0;                  ///< successful requests with a TTFT
        double promptTokens = 0;                    ///< median measured prompt tokens
        double ttftP50Ms = 0;                       ///< median TTFT
        double prefillTokensPerS = 0;               ///< promptTokens / TTFT p50
        std::optional<double> fitPrefillTokensPerS; ///< 1 / the fit's slope at promptTokens (tokens/s)
        std::int64_t requestedTokens = 0;           ///< the stage's prompt size, system prompt included
        std::int64_t truncated = 0;                 ///< of `requests`, those the server truncated
    };
    struct Point {
        double promptTokens = 0;
        double ttftMs = 0;
    };
    /// Per-request points kept per stage (the first ones); enough for a fit and a chart, bounded.
    static constexpr std::size_t kMaxPointsPerStage = 2000;
    std::vector<Stage> stages;
    std::vector<Point> points;   ///< the fitted requests' points
    std::vector<Point> excluded; ///< truncated requests' points, left out of the fit
    PowerLawFit fit;
    /// Stages left out of the fit and the points because Stop cut them: "p=4096 left out: stopped
    /// after 2.1 s of 10 s"; empty when none was.
    QString leftOut;

    /// A measured prompt below this share of the requested size was truncated by the server: a
    /// server that cuts a prompt to fit its context keeps about half of it or less (llama.cpp
    /// drops whole halves of the context), while tokenizers count the synthetic text within a
    /// few percent of one another.
    static constexpr double kTruncatedBelow = 0.75;
    static bool isTruncated(std::int64_t measured, std::int64_t requested)
    {
        return requested > 0 && double(measured) < kTruncatedBelow * double(requested);
    }

    /// "TTFT = 0.0008·x^1.5 + 100 ms, R² 0.998 (144 requests)", or "no fit: <reason>"; then, when
    /// so, that the intercept was held at 0 and that truncated requests and stopped stages were left out.
    QString fitText() const;

    nlohmann::json toJson() const;
    /// Reads summary.json's "context_sweep"; nullopt with *error naming the key.
    static std::optional<ContextSweepSummary> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
