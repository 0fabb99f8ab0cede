#include "metrics/saturationdetector.h"

#include "formats/numberformat.h"

#include <cmath>
#include <optional>

namespace tb {

namespace {

struct Trend {
    double slope = 0; ///< per second
    double t = 0;     ///< slope / its standard error; infinite for a perfect line
    double mean = 0;
};

/// Least-squares line through (x, y); none with fewer than 3 points or no spread in x.
std::optional<Trend> trend(const std::vector<double> &x, const std::vector<double> &y)
{
    const double n = double(x.size());
    if (x.size() < 3)
        return std::nullopt;
    double mx = 0;
    double my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    double sxx = 0;
    double sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx <= 0)
        return std::nullopt;
    Trend t;
    t.slope = sxy / sxx;
    t.mean = my;
    double ssr = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double residual = y[i] - (my + t.slope * (x[i] - mx));
        ssr += residual * residual;
    }
    const double se = std::sqrt(ssr / (n - 2) / sxx);
    t.t = se > 0 ? t.slope / se : (t.slope > 0 ? INFINITY : 0);
    return t;
}

bool grows(const std::optional<Trend> &t, const SaturationParams &p)
{
    return t && t->slope > 0 && t->t > p.minT && t->slope * p.trendS > p.minGrowth * t->mean;
}

} // namespace

QString SaturationDetector::check(const std::vector<TimeSeriesRow> &rows, const Params &p)
{
    const auto span = std::size_t(std::max(3, p.trendS));
    if (rows.size() < span)
        return {};
    std::vector<double> seconds;
    std::vector<double> inFlight;
    std::vector<double> ttftSeconds;
    std::vector<double> ttft;
    for (std::size_t i = rows.size() - span; i < rows.size(); ++i) {
        seconds.push_back(rows[i].second);
        inFlight.push_back(rows[i].inFlight);
        if (!std::isnan(rows[i].ttftP50Ms)) {
            ttftSeconds.push_back(rows[i].second);
            ttft.push_back(rows[i].ttftP50Ms);
        }
    }
    if (ttft.size() * 2 < span)
        return {};
    const auto queue = trend(seconds, inFlight);
    const auto wait = trend(ttftSeconds, ttft);
    if (!grows(queue, p) || !grows(wait, p))
        return {};
    return QStringLiteral("over-saturated at %1 s: in flight rose %2 → %3 in %4 s, TTFT p50 +%5")
        .arg(rows.back().second + 1)
        .arg(rows[rows.size() - span].inFlight)
        .arg(rows.back().inFlight)
        .arg(span)
        .arg(formatMs(wait->slope * double(span)));
}

QString SaturationDetector::method(const Params &p)
{
    return QStringLiteral("open loop, the last %1 s: least-squares slopes of in flight and of TTFT p50 both positive "
                          "with t > %2, each growing more than %3% of its mean over the %1 s")
        .arg(p.trendS)
        .arg(p.minT)
        .arg(p.minGrowth * 100);
}

} // namespace tb
