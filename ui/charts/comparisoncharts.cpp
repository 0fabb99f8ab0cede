#include "charts/comparisoncharts.h"

#include "charts/chartstyle.h"
#include "formats/numberformat.h"

#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>

namespace tb {

ThroughputLatencyChart::ThroughputLatencyChart(QGraphicsItem *parent)
    : QChart(parent)
    , m_label(tr("TTFT"))
    , m_x(new QValueAxis(this))
    , m_y(new QValueAxis(this))
{
    addAxis(m_x, Qt::AlignBottom);
    addAxis(m_y, Qt::AlignLeft);
    chartstyle::applyTheme(this);
    rebuild();
}

void ThroughputLatencyChart::setMetricLabel(const QString &label)
{
    m_label = label;
    rebuild();
}

void ThroughputLatencyChart::setCurves(const QList<Curve> &curves)
{
    m_curves = curves;
    rebuild();
}

bool ThroughputLatencyChart::hasData() const
{
    return std::any_of(m_curves.begin(), m_curves.end(), [](const Curve &c) { return !c.points.empty(); });
}

void ThroughputLatencyChart::rebuild()
{
    removeAllSeries();
    setTitle(tr("Throughput vs %1 (p50 solid, p99 dashed, knee ringed)").arg(m_label));
    m_x->setTitleText(tr("achieved throughput (successful requests/s)"));
    m_y->setTitleText(tr("%1 (ms)").arg(m_label));
    double maxX = 0;
    double maxY = 0;
    for (const Curve &curve : std::as_const(m_curves)) {
        if (curve.points.empty())
            continue;
        for (const bool tail : {false, true}) {
            auto *line = new QLineSeries(this);
            line->setName(tail ? tr("%1 p99").arg(curve.name) : curve.name);
            line->setPen(chartstyle::pen(curve.color, tail));
            line->setPointsVisible(true);
            line->setMarkerSize(6);
            for (const CurvePoint &p : curve.points) {
                line->append(p.requestsPerS, tail ? p.p99 : p.p50);
                maxX = std::max(maxX, p.requestsPerS);
                maxY = std::max(maxY, tail ? p.p99 : p.p50);
            }
            chartstyle::setDescription(
                line, tail ? tr("%1 p99 of each stage against the request rate it achieved").arg(m_label)
                           : tr("%1 p50 of each stage against the request rate it achieved").arg(m_label));
            addSeries(line);
            line->attachAxis(m_x);
            line->attachAxis(m_y);
            // One legend entry per run: the dashed line is explained in the title.
            if (tail) {
                for (QLegendMarker *marker : legend()->markers(line))
                    marker->setVisible(false);
            }
        }
        // Each p50 point names its stage ("c=64"), or the run when it is a single point: which
        // load bought which latency is read off the chart, not looked up.
        for (const CurvePoint &p : curve.points) {
            auto *label = new QScatterSeries(this);
            label->setName(p.stage);
            label->setMarkerSize(1);
            label->setColor(Qt::transparent);
            label->setBorderColor(Qt::transparent);
            label->append(p.requestsPerS, p.p50);
            // A literal format: '@' would start a tag.
            label->setPointLabelsFormat(QString(p.stage).replace(QLatin1Char('@'), QStringLiteral("(at)")));
            label->setPointLabelsVisible(true);
            label->setPointLabelsClipping(false);
            label->setPointLabelsColor(chartstyle::textColor(this));
            chartstyle::setDescription(
                label, tr("%1 %2: %3 req/s, %4 p50 %5 ms")
                           .arg(curve.name, p.stage, formatNumber(p.requestsPerS), m_label, formatNumber(p.p50)));
            addSeries(label);
            label->attachAxis(m_x);
            label->attachAxis(m_y);
            chartstyle::setInLegend(this, label, false);
        }
        // The knee: a ring around the p50 point of the stage where more load stopped buying throughput.
        if (const auto knee = findKnee(curve.points, m_label); knee && knee->saturated) {
            auto *ring = new QScatterSeries(this);
            ring->setName(tr("%1 knee").arg(curve.name));
            ring->setMarkerShape(QScatterSeries::MarkerShapeCircle);
            ring->setMarkerSize(16);
            ring->setColor(Qt::transparent);
            ring->setBorderColor(curve.color);
            ring->setPen(QPen(curve.color, 2));
            const CurvePoint &p = curve.points[knee->point];
            ring->append(p.requestsPerS, p.p50);
            chartstyle::setDescription(ring, knee->text);
            addSeries(ring);
            ring->attachAxis(m_x);
            ring->attachAxis(m_y);
            chartstyle::setInLegend(this, ring, false);
        }
    }
    chartstyle::setNiceRange(m_x, 0, maxX > 0 ? maxX : 1, 6);
    chartstyle::setNiceRange(m_y, 0, maxY > 0 ? maxY : 1);
}

} // namespace tb
