#pragma once

#include <QImage>
#include <QSizeF>
#include <QString>

#include <optional>

class QChart;

namespace tb {

/// Renders any chart for a report: PNG, SVG or PDF, in the light report theme (white, larger type),
/// with its title (and an optional subtitle such as the run's name), axis titles with units and the
/// legend, sized for a 16:9 slide or an A4 page (landscape).
///
/// The chart on screen is never touched: the exporter draws a copy of its series and axes laid out
/// at the page size. Charts made of line, spline, scatter, area and bar series (everything the
/// workbench draws) are restyled that way; a chart holding other kinds of series is drawn as it is
/// on screen, scaled to the page.
class ChartExporter
{
public:
    enum class Format { Png, Svg, Pdf };
    enum class Page { Slide, A4 };

    struct Options {
        Page page = Page::Slide;
        QString title;     ///< replaces the chart's own title when not empty
        QString subtitle;  ///< a smaller second line under the title
        QString caption;   ///< what was measured (RunInfo::workloadCaption), under the plot
        QString emptyText; ///< drawn in place of the plot when the chart has no data ("No errors in this run.")
    };

    /// "PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)"
    static QString fileFilter();
    static std::optional<Format> formatOf(const QString &path);
    static QString suffix(Format format);
    /// The page's layout size in device-independent pixels (what the fonts are sized against).
    static QSizeF logicalSize(Page page);
    /// PNG pixels per logical pixel: 1920×1080 for a slide, about 190 dpi for A4.
    static qreal pixelRatio(Page page);

    /// The report-themed copy of `chart` that every format draws; the caller owns it. Null when
    /// the chart holds series the exporter cannot copy.
    static QChart *reportCopy(const QChart *chart, const Options &options);
    static QImage toImage(const QChart *chart, const Options &options);
    /// Writes `path` in the format its suffix names (replacing the file only once complete).
    static bool save(const QChart *chart, const QString &path, const Options &options, QString *error);
};

} // namespace tb
