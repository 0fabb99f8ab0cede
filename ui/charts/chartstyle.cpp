#include "charts/chartstyle.h"

#include "analysis/svgchart.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QAbstractSeries>
#include <QApplication>
#include <QAreaSeries>
#include <QBarSet>
#include <QChart>
#include <QGraphicsLayout>
#include <QHash>
#include <QLegend>
#include <QLegendMarker>
#include <QValueAxis>
#include <QXYSeries>

#include <cmath>

namespace tb::chartstyle {

namespace {

const char kDescriptionProperty[] = "tbDescription";
const char kHiddenFromLegendProperty[] = "tbHiddenFromLegend";

QFont scaledFont(qreal points, qreal scale, bool bold = false)
{
    QFont font = QApplication::font();
    font.setPointSizeF(points * scale);
    font.setBold(bold);
    return font;
}

QPen themedPen(QPen pen, Theme theme)
{
    pen.setColor(themed(pen.color(), theme));
    return pen;
}

QBrush themedBrush(QBrush brush, Theme theme)
{
    if (brush.style() != Qt::NoBrush)
        brush.setColor(themed(brush.color(), theme));
    return brush;
}

} // namespace

QFont reportFont(qreal points, qreal scale)
{
    return scaledFont(points, scale);
}

QPen pen(const QColor &color, bool dashed, qreal width)
{
    QPen p(color, width);
    if (dashed) {
        // Short dashes with square ends: the legend's swatch is about 11 px long, and Qt's
        // DashLine (4 on, 2 off, widened by round caps) drew it as a solid line there.
        p.setDashPattern({2, 1.5});
        p.setCapStyle(Qt::FlatCap);
    } else {
        p.setCapStyle(Qt::RoundCap);
    }
    p.setJoinStyle(Qt::RoundJoin);
    return p;
}

void applyTheme(QChart *chart, qreal fontScale, Theme theme)
{
    chart->setTheme(QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(surface(theme));
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setDropShadowEnabled(false);
    chart->setTitleFont(scaledFont(10, fontScale, true));
    chart->setTitleBrush(primaryText(theme));
    chart->setMargins(QMargins(4, 2, 6, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    QLegend *legend = chart->legend();
    legend->setAlignment(Qt::AlignTop);
    legend->setFont(scaledFont(8, fontScale));
    legend->setLabelColor(mutedText(theme));
    legend->setMarkerShape(QLegend::MarkerShapeFromSeries);
    for (QAbstractAxis *axis : chart->axes())
        styleAxis(axis, fontScale, theme);
}

void applyColors(QChart *chart, Theme theme)
{
    chart->setBackgroundBrush(surface(theme));
    chart->setTitleBrush(themedBrush(chart->titleBrush(), theme));
    chart->legend()->setLabelColor(themed(chart->legend()->labelColor(), theme));
    for (QAbstractAxis *axis : chart->axes()) {
        axis->setLabelsColor(themed(axis->labelsColor(), theme));
        axis->setTitleBrush(themedBrush(axis->titleBrush(), theme));
        axis->setLinePen(themedPen(axis->linePen(), theme));
        axis->setGridLinePen(themedPen(axis->gridLinePen(), theme));
    }
    for (QAbstractSeries *series : chart->series()) {
        if (auto *xy = qobject_cast<QXYSeries *>(series)) {
            xy->setPen(themedPen(xy->pen(), theme));
            xy->setBrush(themedBrush(xy->brush(), theme));
            xy->setPointLabelsColor(themed(xy->pointLabelsColor(), theme));
        } else if (auto *area = qobject_cast<QAreaSeries *>(series)) {
            area->setPen(themedPen(area->pen(), theme));
            area->setBrush(themedBrush(area->brush(), theme));
        } else if (auto *bars = qobject_cast<QAbstractBarSeries *>(series)) {
            for (QBarSet *set : bars->barSets()) {
                set->setPen(themedPen(set->pen(), theme));
                set->setBrush(themedBrush(set->brush(), theme));
                set->setLabelColor(themed(set->labelColor(), theme));
            }
        }
    }
}

QColor textColor(const QChart *chart)
{
    return chart->titleBrush().color();
}

void styleAxis(QAbstractAxis *axis, qreal fontScale, Theme theme)
{
    axis->setLabelsFont(scaledFont(8, fontScale));
    axis->setLabelsColor(mutedText(theme));
    axis->setTitleFont(scaledFont(8, fontScale));
    axis->setTitleBrush(mutedText(theme));
    axis->setLinePen(QPen(axisLine(theme), 1));
    axis->setGridLinePen(QPen(gridLine(theme), 1));
    axis->setMinorGridLineVisible(false);
    axis->setShadesVisible(false);
}

void setNiceRange(QValueAxis *axis, double min, double max, int maxTicks)
{
    if (!std::isfinite(min) || !std::isfinite(max) || max <= min) {
        min = std::isfinite(min) ? min : 0;
        max = min + 1;
    }
    // The same round ranges as the HTML report's charts.
    const NiceAxis nice = NiceAxis::from(min, max, maxTicks);
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(nice.min);
    axis->setTickInterval(nice.step);
    // Qt Charts' setLabelFormat() lays the axis out again even when the format is the one it has
    // (its other setters compare first): a live chart asked for the same range several times a
    // second measured every label each time — at 10,000 streams the largest share of the GUI
    // thread's work (issue 32).
    if (const QString format = QStringLiteral("%.%1f").arg(nice.decimals()); axis->labelFormat() != format)
        axis->setLabelFormat(format);
    axis->setRange(nice.min, nice.max);
}

void setDescription(QObject *series, const QString &text)
{
    series->setProperty(kDescriptionProperty, text);
}

QString description(const QObject *series)
{
    return series->property(kDescriptionProperty).toString();
}

void setInLegend(QChart *chart, QAbstractSeries *series, bool shown)
{
    series->setProperty(kHiddenFromLegendProperty, !shown);
    for (QLegendMarker *marker : chart->legend()->markers(series))
        marker->setVisible(shown);
}

bool isInLegend(const QAbstractSeries *series)
{
    return !series->property(kHiddenFromLegendProperty).toBool();
}

} // namespace tb::chartstyle
