#pragma once

// One look for every chart, tile and export: a colour per metric (TTFT is blue on every chart, E2E
// orange, …), p99 dashed beside a solid p50, a light theme with quiet grid lines, axis ranges that
// end on round numbers; the colours, explanations and number formats that tables share are in
// models/quantitystyle.h.

#include "models/quantitystyle.h"

#include <QPen>
#include <QString>

class QAbstractAxis;
class QAbstractSeries;
class QChart;
class QValueAxis;

namespace tb::chartstyle {

/// A series' pen: solid for medians and rates, dashed for tails (p99) and targets.
QPen pen(const QColor &color, bool dashed = false, qreal width = 2.0);

/// The charts' font at `points` × `scale` (what applyTheme uses), for text drawn beside a chart.
QFont reportFont(qreal points, qreal scale);
/// The look of the dashboard's charts and of exports: quiet grid, grey text, the legend at the top,
/// in the screen's theme (exports ask for Theme::Light). fontScale > 1 enlarges every text (reports
/// are read from further away).
void applyTheme(QChart *chart, qreal fontScale = 1.0, Theme theme = screenTheme());
/// Recolours a chart made in one theme for `theme` — background, title, legend, axes, grid, point
/// labels and the series' own colours, through themed() — keeping its fonts and layout.
void applyColors(QChart *chart, Theme theme);
/// The colour of a chart's own text in the theme it has (for labels drawn on its points).
QColor textColor(const QChart *chart);
/// Styles one axis the same way (call after adding axes to a themed chart).
void styleAxis(QAbstractAxis *axis, qreal fontScale = 1.0, Theme theme = screenTheme());

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

} // namespace tb::chartstyle
