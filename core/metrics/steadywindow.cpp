#include "metrics/steadywindow.h"

#include "formats/numberformat.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tb {

namespace {

/// One window level per whole window; NaN where a window has no value (latency without completions).
struct LevelSeries {
    const char *name;
    std::vector<double> level;
    bool count; ///< Poisson noise widens its band
};

double median(std::vector<double> values)
{
    const auto mid = values.begin() + std::ptrdiff_t(values.size() / 2);
    std::nth_element(values.begin(), mid, values.end());
    if (values.size() % 2 == 1)
        return *mid;
    return (*mid + *std::max_element(values.begin(), mid)) / 2;
}

/// Least-squares slope of values[from, to) against their index, per window.
double slope(const std::vector<double> &values, std::size_t from, std::size_t to)
{
    const double n = double(to - from);
    const double meanX = (n - 1) / 2;
    double meanY = 0;
    for (std::size_t i = from; i < to; ++i)
        meanY += values[i] / n;
    double sxy = 0;
    double sxx = 0;
    for (std::size_t i = from; i < to; ++i) {
        const double dx = double(i - from) - meanX;
        sxy += dx * (values[i] - meanY);
        sxx += dx * dx;
    }
    return sxx > 0 ? sxy / sxx : 0;
}

double bandOf(const LevelSeries &s, double level, const SteadyWindow::Params &p)
{
    const double relative = p.band * std::abs(level);
    return s.count ? std::max(relative, p.noiseSigmas * std::sqrt(std::max(level, 0.0) / p.windowS)) : relative;
}

/// Whether every series is level over windows [from, to); else the first that is not.
const LevelSeries *unsteady(const std::array<LevelSeries, 3> &series, std::size_t from, std::size_t to,
                            const SteadyWindow::Params &p)
{
    for (const LevelSeries &s : series) {
        const std::vector<double> part(s.level.begin() + std::ptrdiff_t(from), s.level.begin() + std::ptrdiff_t(to));
        if (std::any_of(part.begin(), part.end(), [](double v) { return std::isnan(v); }))
            return &s;
        const double level = median(part);
        const double band = bandOf(s, level, p);
        const bool inBand =
            std::all_of(part.begin(), part.end(), [&](double v) { return std::abs(v - level) <= band; });
        // A slow drift stays inside the band window by window yet moves the level across the stretch.
        const double drift = slope(s.level, from, to) * double(to - from - 1);
        if (!inBand || std::abs(drift) > band)
            return &s;
    }
    return nullptr;
}

} // namespace

SteadyWindow SteadyWindow::find(const std::vector<TimeSeriesRow> &rows, const Params &p)
{
    SteadyWindow w;
    w.runS = int(rows.size());
    const int windowS = std::max(1, p.windowS);
    const std::size_t windows = rows.size() / std::size_t(windowS);
    const double minS = std::max(double(p.minS), p.minFraction * double(w.runS));
    const auto minWindows = std::size_t(std::max(2.0, std::ceil(minS / windowS)));
    w.e2e = std::none_of(rows.begin(), rows.end(), [](const TimeSeriesRow &r) { return !std::isnan(r.ttftP50Ms); });
    std::array<LevelSeries, 3> series{LevelSeries{"in flight", {}, true}, LevelSeries{"completions/s", {}, true},
                                      LevelSeries{w.e2e ? "E2E p50" : "TTFT p50", {}, false}};
    for (std::size_t k = 0; k < windows; ++k) {
        double inFlight = 0;
        double completed = 0;
        std::vector<double> latency;
        for (std::size_t i = k * std::size_t(windowS); i < (k + 1) * std::size_t(windowS); ++i) {
            inFlight += rows[i].inFlight;
            completed += double(rows[i].completed);
            const double l = w.e2e ? rows[i].e2eP50Ms : rows[i].ttftP50Ms;
            if (!std::isnan(l))
                latency.push_back(l);
        }
        series[0].level.push_back(inFlight / windowS);
        series[1].level.push_back(completed / windowS);
        series[2].level.push_back(latency.empty() ? std::nan("") : median(latency));
    }
    if (windows < minWindows) {
        w.reason = QStringLiteral("the run's %1 s are too short for a steady window of at least %2 s")
                       .arg(w.runS)
                       .arg(int(minWindows) * windowS);
        return w;
    }

    // The drain: the run empties once nothing more is sent, and in flight falls below its level.
    const double level = median(series[0].level);
    std::size_t end = windows;
    while (end > 0 && series[0].level[end - 1] < level - bandOf(series[0], level, p))
        --end;

    for (std::size_t k = 0; k + 2 <= end; ++k) {
        if (unsteady(series, k, end, p))
            continue;
        w.startS = int(k) * windowS;
        w.endS = int(end) * windowS;
        if (end - k >= minWindows) {
            w.found = true;
            return w;
        }
        w.reason = QStringLiteral("only %1–%2 s of %3 s are level, under the minimum of %4 s")
                       .arg(w.startS)
                       .arg(w.endS)
                       .arg(w.runS)
                       .arg(int(minWindows) * windowS);
        w.startS = w.endS = 0;
        return w;
    }
    const LevelSeries *moving = end >= 2 ? unsteady(series, end - 2, end, p) : &series[0];
    w.reason = QStringLiteral("no level stretch: %1 is still moving at the end of the run")
                   .arg(QLatin1String(moving ? moving->name : "in flight"));
    return w;
}

QString SteadyWindow::method(const Params &p)
{
    return QStringLiteral("%1-s windows; in flight, completions/s and TTFT p50 (E2E p50 without tokens) within "
                          "±%2% of their median (counts: at least %3 Poisson σ) and drifting less than that over "
                          "the window; drain trimmed; at least max(%4 s, %5% of the run)")
        .arg(p.windowS)
        .arg(p.band * 100)
        .arg(p.noiseSigmas)
        .arg(p.minS)
        .arg(p.minFraction * 100);
}

} // namespace tb
