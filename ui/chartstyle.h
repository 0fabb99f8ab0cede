#pragma once

// One look for every chart, tile and export: a colour per metric (TTFT is blue on every chart, E2E
// orange, …), p99 dashed beside a solid p50, a light theme with quiet grid lines, axis ranges that
// end on round numbers, and a one-line explanation of each quantity for tooltips.

#include "metrics/runsummary.h"

#include <QColor>
#include <QPen>
#include <QString>

class QAbstractAxis;
class QAbstractSeries;
class QChart;
class QValueAxis;

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
/// A series' pen: solid for medians and rates, dashed for tails (p99) and targets.
QPen pen(const QColor &color, bool dashed = false, qreal width = 2.0);

/// One line saying what a quantity is, for tooltips and legends.
QString describe(Quantity quantity);
QString describe(Metric metric);

/// The light theme of the dashboard and of exports: white background, light grid, dark grey text,
/// the legend at the top. fontScale > 1 enlarges every text (reports are read from further away).
/// The charts' font at `points` × `scale` (what applyTheme uses), for text drawn beside a chart.
QFont reportFont(qreal points, qreal scale);
void applyTheme(QChart *chart, qreal fontScale = 1.0);
/// Styles one axis the same way (call after adding axes to a themed chart).
void styleAxis(QAbstractAxis *axis, qreal fontScale = 1.0);

/// Sets [min, max] widened to round numbers with ticks at 1, 2 or 5 × 10^k (at most maxTicks
/// intervals), labelled without needless decimals. An empty or inverted range becomes [0, 1].
void setNiceRange(QValueAxis *axis, double min, double max, int maxTicks = 5);

/// Stores the one-line explanation of a series (or a bar set) on the object itself, where the chart
/// view's tooltips find it (also for charts other views build).
void setDescription(QObject *series, const QString &text);
QString description(const QObject *series);

/// Shows or hides a series' legend entry and remembers the choice on the series: a legend
/// marker's own visibility also depends on whether its chart is on screen, so exports ask here.
void setInLegend(QChart *chart, QAbstractSeries *series, bool shown);
bool isInLegend(const QAbstractSeries *series);

/// Human formats shared by tiles, tables and tooltips: "850 ms", "1.25 s"; "12.3"; "—" for none.
QString formatMs(double ms);
QString formatNumber(double value, int significant = 3);
QString formatPercent(double fraction);

} // namespace chartstyle

} // namespace tb
