#pragma once

#include <QString>

#include <vector>

namespace tb {

/// y = a·x^b + c fitted by least squares; `ok` false with `reason` when the data cannot determine it.
struct PowerLawFit {
    bool ok = false;
    QString reason; ///< why there is no fit, in words; empty when ok
    double a = 0;
    double b = 0;
    double c = 0;
    double r2 = 0;  ///< 1 − SS_res / SS_tot over the fitted points
    int points = 0; ///< points the fit used
    /// The free fit's intercept was below zero — a TTFT under 0 ms for small prompts, which no
    /// server has — so c is held at 0 and a and b are fitted under that constraint; freeC is the
    /// free fit's intercept, to say what was refused.
    bool interceptHeld = false;
    double freeC = 0;
    double at(double x) const;      ///< the curve's value
    double slopeAt(double x) const; ///< its derivative a·b·x^(b−1)
};

/// Least squares of y = a·x^b + c over the points (x[i], y[i]), b searched in [kMinExponent,
/// kMaxExponent]. For a fixed b the model is linear in a and c, so the 2×2 normal equations give
/// them and the residual sum of squares S(b); b minimises S by a scan of the range on a grid, then
/// golden-section search in the best grid cell. c is constrained to c ≥ 0: when the free fit's c
/// is below zero (beyond rounding), the search runs again with c ≥ 0, whose optimum for each b is
/// then c = 0 (interceptHeld). No fit (with a reason) for fewer than 3 distinct x, x ≤ 0, a value
/// that is not finite, or all y equal.
PowerLawFit fitPowerLaw(const std::vector<double> &x, const std::vector<double> &y);

inline constexpr double kMinExponent = 0.05;
inline constexpr double kMaxExponent = 4.0;

} // namespace tb
