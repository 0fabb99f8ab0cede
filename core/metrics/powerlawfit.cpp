#include "metrics/powerlawfit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace tb {

double PowerLawFit::at(double x) const
{
    return a * std::pow(x, b) + c;
}

double PowerLawFit::slopeAt(double x) const
{
    return a * b * std::pow(x, b - 1);
}

namespace {

struct Linear {
    double a = 0;
    double c = 0;
    double sse = 0;
};

/// The best a and c for a fixed b, and their residual sum of squares. x is divided by its largest
/// value first (u = x / scale) so u^b stays within [0, 1] for every b the search tries. With
/// `nonNegativeC`, the best under c ≥ 0: the sum of squares is convex in (a, c), so when the free
/// optimum has c < 0 the constrained one lies on c = 0, where a = Σ u^b·y / Σ u^2b.
Linear solveFor(double b, const std::vector<double> &u, const std::vector<double> &y, bool nonNegativeC)
{
    const double n = double(u.size());
    double su = 0, suu = 0, sy = 0, suy = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        const double t = std::pow(u[i], b);
        su += t;
        suu += t * t;
        sy += y[i];
        suy += t * y[i];
    }
    const double det = n * suu - su * su;
    Linear l;
    if (!(std::abs(det) > 1e-300)) {
        l.c = sy / n;
        l.sse = std::numeric_limits<double>::infinity();
        return l;
    }
    l.a = (n * suy - su * sy) / det;
    l.c = (suu * sy - su * suy) / det;
    if (nonNegativeC && l.c < 0) {
        l.a = suy / suu; // suu > 0, as det > 0
        l.c = 0;
    }
    for (std::size_t i = 0; i < u.size(); ++i) {
        const double r = y[i] - (l.a * std::pow(u[i], b) + l.c);
        l.sse += r * r;
    }
    return l;
}

/// The b that minimises the residual sum of squares over [kMinExponent, kMaxExponent]. S(b) may
/// have several local minima over the range; a grid finds the basin of the lowest, golden-section
/// search narrows it down.
double bestExponent(const std::vector<double> &u, const std::vector<double> &y, bool nonNegativeC)
{
    const auto sse = [&](double b) { return solveFor(b, u, y, nonNegativeC).sse; };
    constexpr int kGrid = 80;
    const double step = (kMaxExponent - kMinExponent) / kGrid;
    int best = 0;
    double bestSse = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= kGrid; ++i) {
        const double s = sse(kMinExponent + step * i);
        if (s < bestSse) {
            bestSse = s;
            best = i;
        }
    }
    double lo = kMinExponent + step * std::max(best - 1, 0);
    double hi = kMinExponent + step * std::min(best + 1, kGrid);
    const double ratio = (std::sqrt(5.0) - 1) / 2;
    double m1 = hi - ratio * (hi - lo), m2 = lo + ratio * (hi - lo);
    double s1 = sse(m1), s2 = sse(m2);
    for (int i = 0; i < 100 && hi - lo > 1e-10; ++i) {
        if (s1 < s2) {
            hi = m2;
            m2 = m1;
            s2 = s1;
            m1 = hi - ratio * (hi - lo);
            s1 = sse(m1);
        } else {
            lo = m1;
            m1 = m2;
            s1 = s2;
            m2 = lo + ratio * (hi - lo);
            s2 = sse(m2);
        }
    }
    return (lo + hi) / 2;
}

} // namespace

PowerLawFit fitPowerLaw(const std::vector<double> &x, const std::vector<double> &y)
{
    PowerLawFit fit;
    fit.points = int(std::min(x.size(), y.size()));
    const auto none = [&fit](const QString &why) {
        fit.reason = why;
        return fit;
    };
    if (x.size() != y.size())
        return none(QStringLiteral("as many x as y values are needed"));
    std::set<double> distinct;
    double scale = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!std::isfinite(x[i]) || !std::isfinite(y[i]))
            return none(QStringLiteral("a value is not a finite number"));
        if (!(x[i] > 0))
            return none(QStringLiteral("prompt tokens must be above 0"));
        distinct.insert(x[i]);
        scale = std::max(scale, x[i]);
    }
    if (distinct.size() < 3)
        return none(QStringLiteral("%1 distinct prompt sizes; a·x^b + c needs at least 3").arg(distinct.size()));
    const auto [low, high] = std::minmax_element(y.begin(), y.end());
    if (*low == *high)
        return none(QStringLiteral("every TTFT is the same: nothing grows with the prompt"));

    std::vector<double> u(x.size());
    std::transform(x.begin(), x.end(), u.begin(), [scale](double v) { return v / scale; });
    double b = bestExponent(u, y, false);
    Linear l = solveFor(b, u, y, false);
    if (!std::isfinite(l.sse))
        return none(QStringLiteral("the points do not determine a curve"));
    // A free intercept a hair below zero (a true c = 0, off by the search's tolerance on b) is no
    // reason to refit.
    if (l.c < -1e-6 * (*high - *low)) {
        fit.interceptHeld = true;
        fit.freeC = l.c;
        b = bestExponent(u, y, true);
        l = solveFor(b, u, y, true);
    }
    double mean = 0;
    for (double v : y)
        mean += v;
    mean /= double(y.size());
    double sst = 0;
    for (double v : y)
        sst += (v - mean) * (v - mean);
    fit.ok = true;
    fit.b = b;
    fit.a = l.a / std::pow(scale, b); // back from u = x / scale
    fit.c = l.c;
    fit.r2 = 1 - l.sse / sst;
    return fit;
}

} // namespace tb
