#pragma once

// The part of the one look (charts/chartstyle.h) that tables show too: a colour and a one-line
// explanation per quantity (numbers print through formats/numberformat.h). It needs no Qt Charts, so the models
// library links none; charts/chartstyle.h includes it and adds the chart theme.

#include "metrics/runsummary.h"

#include <QColor>
#include <QString>

class QPalette;

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
    GpuPower, ///< W, summed over the GPUs of --gpu-metrics
    GpuUtil,  ///< %, their mean utilisation
};

namespace chartstyle {

QColor color(Quantity quantity);
/// The colour of a distribution metric (TTFT, TPOT, ITL, E2E; grey for the rest).
QColor color(Metric metric);
/// Errors get a colour per HTTP status or error class ("429", "503", "timeout", …), stable across
/// charts and runs.
QColor errorColor(const QString &label);
/// The colour of the index-th GPU's own lines (the GPU chart draws each GPU apart from the sum):
/// hues apart from each other and from the sum's, the same GPU the same colour every time.
QColor gpuColor(int index);
/// The two looks: light (the default, and every export and report whatever the screen shows) and
/// dark (a dark system palette, or View ▸ Theme ▸ Dark). The quantities' colours are the same in
/// both; the colours below are the ones that change.
enum class Theme { Light, Dark };
/// Dark when the palette's window is darker than its text: Qt 6.4 has no colour-scheme hint.
Theme themeOf(const QPalette &palette);
/// The application palette's theme: what the screen shows now.
Theme screenTheme();

/// The grey of secondary text (axis labels, legends) and of quantities without a colour.
QColor mutedText(Theme theme = screenTheme());
QColor primaryText(Theme theme = screenTheme()); ///< titles and values
QColor surface(Theme theme = screenTheme());     ///< what cards and charts are drawn on
QColor gridLine(Theme theme = screenTheme());    ///< grid lines and card borders
QColor axisLine(Theme theme = screenTheme());
/// A colour chosen for one theme in the other: each colour of the light look (the ones above, the
/// dashboard's page and notes, the comparison's better/worse/star) has a dark counterpart, and the
/// other way round; any other colour (a quantity's) stays as it is.
QColor themed(const QColor &color, Theme theme);

/// One line saying what a quantity is, for tooltips and legends.
QString describe(Quantity quantity);
QString describe(Metric metric);

} // namespace chartstyle

} // namespace tb
