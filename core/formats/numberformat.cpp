#include "formats/numberformat.h"

#include <algorithm>
#include <cmath>

namespace tb {

QString formatNumber(double value, int significant, int maxDecimals)
{
    if (!std::isfinite(value))
        return QStringLiteral("—");
    if (value == 0)
        return QStringLiteral("0");
    const int magnitude = int(std::floor(std::log10(std::abs(value))));
    const int decimals = std::clamp(significant - 1 - magnitude, 0, maxDecimals);
    return QString::number(value, 'f', decimals);
}

QString formatMs(double ms)
{
    if (!std::isfinite(ms))
        return QStringLiteral("—");
    if (std::abs(ms) < 1000)
        return formatNumber(ms) + QStringLiteral(" ms");
    return formatNumber(ms / 1000) + QStringLiteral(" s");
}

QString formatPercent(double fraction)
{
    if (!std::isfinite(fraction))
        return QStringLiteral("—");
    return formatNumber(fraction * 100) + QLatin1Char('%');
}

} // namespace tb
