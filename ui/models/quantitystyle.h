#pragma once

// The part of the one look (charts/chartstyle.h) that tables show too: a colour and a one-line
// explanation per quantity (numbers print through formats/numberformat.h). It needs no Qt Charts, so the models
// library links none; charts/chartstyle.h includes it and adds the chart theme.

#include "metrics/runsummary.h"

#include <QColor>
#include <QString>

namespace tb {

/// Every quantity the charts plot.
enum class Quantity {
    Ttft,
    E2e,
    Tpot,
    Itl,
    Requests,     ///< successful requests per second
    OutputTokens, ///< output tokens per second or per request
    InputTokens,  ///< prompt tokens per request
    CachedTokens, ///< prompt tokens served from the prefix cache, per request
    InFlight,
    Target, ///< the load profile's concurrency
    Errors,
    OutInRatio,
    CacheHitRatio,
};

namespace chartstyle {

QColor color(Quantity quantity);
/// The colour of a distribution metric (TTFT, TPOT, ITL, E2E; grey for the rest).
QColor color(Metric metric);
/// Errors get a colour per HTTP status or error class ("429", "503", "timeout", …), stable across
/// charts and runs.
QColor errorColor(const QString &label);
/// The dark grey of secondary text (axis labels, legends) and of quantities without a colour.
QColor mutedText();

/// One line saying what a quantity is, for tooltips and legends.
QString describe(Quantity quantity);
QString describe(Metric metric);

} // namespace chartstyle

} // namespace tb
