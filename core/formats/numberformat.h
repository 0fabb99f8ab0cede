#pragma once

// The one way numbers become text for people: the CLI console, the GUI's tiles, tables and
// tooltips, the comparison table and the HTML report. (Machine files — CSV, JSON — keep every
// digit instead.)

#include <QString>

namespace tb {

/// `significant` digits, with no more than `maxDecimals` decimals: 12 345.6 → "12346",
/// 12.345 → "12.3" (3 digits), 0.012345 → "0.0123" (3 digits, up to 4 decimals); "0" for zero,
/// "—" for NaN or infinity.
QString formatNumber(double value, int significant = 3, int maxDecimals = 3);
/// A duration: "850 ms" below a second, "1.25 s" from one; "—" for none.
QString formatMs(double ms);
/// A fraction as a percentage: 0.125 → "12.5%"; "—" for none.
QString formatPercent(double fraction);

} // namespace tb
