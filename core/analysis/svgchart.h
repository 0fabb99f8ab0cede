#pragma once

#include <QList>
#include <QPointF>
#include <QString>

#include <optional>

namespace tb {

/// The colour of the index-th run wherever runs are compared — report tables and charts, the
/// comparison view's columns and lines — as "#rrggbb": a run keeps its colour everywhere.
/// Eight colours that stay apart for the common kinds of colour blindness, then they repeat.
QString runColor(int index);

/// An axis range widened to round numbers with a tick every `step` (1, 2 or 5 × 10^k), at most
/// maxTicks intervals. An empty or inverted range becomes [lo, lo + 1].
struct NiceAxis {
    double min = 0;
    double max = 1;
    double step = 0.2;

    static NiceAxis from(double lo, double hi, int maxTicks = 6);
    /// A tick's label with as many decimals as the step needs ("0.25", "1500").
    QString label(double value) const;
    /// How many decimals the step needs.
    int decimals() const;
};

/// A line chart as SVG text, for reports that must open anywhere without scripts or fonts to
/// download: a title, a legend, axes with ticks, units and light grid lines, one polyline per
/// series (dashed where asked, with point markers where asked). The light report theme matches the
/// GUI's exports. The output is standalone XML (it parses with any XML reader) and can be inlined
/// in HTML; every id in it starts with the chart's id, so several charts share one page.
///
/// Text widths are estimated (no font metrics in the core): about 0.6 em per character, which
/// holds for the sans-serif fonts browsers pick.
class SvgChart
{
public:
    struct Series {
        QString name;
        QString color; ///< "#rrggbb"
        bool dashed = false;
        bool markers = false; ///< a dot at each point (few points: stages)
        bool inLegend = true;
        QList<QPointF> points; ///< sorted or not; NaN y breaks the line
    };

    /// `xTitle` and `yTitle` name the quantity with its unit: "TTFT (ms)".
    SvgChart(const QString &id, const QString &title, const QString &xTitle, const QString &yTitle);

    /// A line under the plot (what the line styles mean, where the data came from).
    void setFootnote(const QString &footnote) { m_footnote = footnote; }
    void setSize(int width, int height);
    /// Fixes an axis range (the ticks still come out round); otherwise it spans the data, the y
    /// axis from 0.
    void setXRange(double lo, double hi) { m_xRange = {lo, hi}; }
    void setYRange(double lo, double hi) { m_yRange = {lo, hi}; }
    /// A series with no points shows in the legend only (e.g. a key for the line styles).
    void addSeries(const Series &series) { m_series << series; }

    QString id() const { return m_id; }
    QString title() const { return m_title; }
    const QList<Series> &series() const { return m_series; }
    /// Whether any series has a point to draw.
    bool hasData() const;
    QString toSvg() const;

private:
    QString m_id;
    QString m_title;
    QString m_footnote;
    QString m_xTitle;
    QString m_yTitle;
    int m_width = 820;
    int m_height = 420;
    std::optional<QPointF> m_xRange;
    std::optional<QPointF> m_yRange;
    QList<Series> m_series;
};

/// Escapes text for XML and HTML content and attribute values (& < > " ').
QString xmlEscaped(const QString &text);

} // namespace tb
