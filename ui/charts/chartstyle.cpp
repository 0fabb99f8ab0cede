#include "charts/chartstyle.h"

#include "analysis/svgchart.h"

#include <QAbstractAxis>
#include <QAbstractSeries>
#include <QApplication>
#include <QChart>
#include <QGraphicsLayout>
#include <QHash>
#include <QLegend>
#include <QLegendMarker>
#include <QValueAxis>

#include <cmath>

namespace tb::chartstyle {

namespace {

const QColor kText(0x1f, 0x29, 0x37);
const QColor kGrid(0xe5, 0xe7, 0xeb);
const QColor kAxisLine(0xc7, 0xcc, 0xd4);
const char kDescriptionProperty[] = "tbDescription";
const char kHiddenFromLegendProperty[] = "tbHiddenFromLegend";

QFont scaledFont(qreal points, qreal scale, bool bold = false)
{
    QFont font = QApplication::font();
    font.setPointSizeF(points * scale);
    font.setBold(bold);
    return font;
}

} // namespace

QFont reportFont(qreal points, qreal scale)
{
    return scaledFont(points, scale);
}

QPen pen(const QColor &color, bool dashed, qreal width)
{
    QPen p(color, width);
    p.setStyle(dashed ? Qt::DashLine : Qt::SolidLine);
    p.setCapStyle(Qt::RoundCap);
    p.setJoinStyle(Qt::RoundJoin);
    return p;
}

void applyTheme(QChart *chart, qreal fontScale)
{
    chart->setTheme(QChart::ChartThemeLight);
    chart->setBackgroundRoundness(0);
    chart->setBackgroundBrush(Qt::white);
    chart->setBackgroundPen(Qt::NoPen);
    chart->setPlotAreaBackgroundVisible(false);
    chart->setDropShadowEnabled(false);
    chart->setTitleFont(scaledFont(10, fontScale, true));
    chart->setTitleBrush(kText);
    chart->setMargins(QMargins(4, 2, 6, 2));
    chart->layout()->setContentsMargins(0, 0, 0, 0);
    QLegend *legend = chart->legend();
    legend->setAlignment(Qt::AlignTop);
    legend->setFont(scaledFont(8, fontScale));
    legend->setLabelColor(mutedText());
    legend->setMarkerShape(QLegend::MarkerShapeFromSeries);
    for (QAbstractAxis *axis : chart->axes())
        styleAxis(axis, fontScale);
}

QColor textColor(const QChart *chart)
{
    return chart->titleBrush().color();
}

void styleAxis(QAbstractAxis *axis, qreal fontScale)
{
    axis->setLabelsFont(scaledFont(8, fontScale));
    axis->setLabelsColor(mutedText());
    axis->setTitleFont(scaledFont(8, fontScale));
    axis->setTitleBrush(mutedText());
    axis->setLinePen(QPen(kAxisLine, 1));
    axis->setGridLinePen(QPen(kGrid, 1));
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
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(nice.decimals()));
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
