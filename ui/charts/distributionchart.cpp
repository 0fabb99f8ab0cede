#include "charts/distributionchart.h"

#include "charts/chartstyle.h"
#include "formats/numberformat.h"

#include <QAreaSeries>
#include <QFontMetricsF>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {

constexpr double kLowQuantile = 0.001;
constexpr double kHighQuantile = 0.999;

QLineSeries *percentileLine(const QColor &color, bool dashed)
{
    auto *line = new QLineSeries;
    line->setPen(chartstyle::pen(color.darker(125), dashed, 1.5));
    return line;
}

} // namespace

DistributionChart::DistributionChart(QGraphicsItem *parent)
    : QChart(parent)
    , m_perWhat(tr("requests"))
    , m_x(new QValueAxis(this))
    , m_y(new QValueAxis(this))
{
    addAxis(m_x, Qt::AlignBottom);
    addAxis(m_y, Qt::AlignLeft);
    chartstyle::applyTheme(this);
    connect(this, &QChart::plotAreaChanged, this, &DistributionChart::fitYTitle);
    rebuild();
}

void DistributionChart::fitYTitle()
{
    // A short chart (the comparison's at 1280×800 under a banner) would elide "% of requests ≤ x"
    // to "% of r…": it says "% ≤ x" then, the tooltip and the x axis tell of what.
    const bool histogram = m_mode == Mode::Histogram;
    const QString whole = histogram ? tr("% of %1").arg(m_perWhat) : tr("% of %1 ≤ x").arg(m_perWhat);
    const bool fits = QFontMetricsF(m_y->titleFont()).horizontalAdvance(whole) <= plotArea().height();
    const QString title = fits ? whole : histogram ? QStringLiteral("%") : tr("% ≤ x");
    if (m_y->titleText() != title)
        m_y->setTitleText(title);
}

void DistributionChart::setMode(Mode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    rebuild();
}

void DistributionChart::setQuantity(const QString &label, const QString &unit, const QString &description,
                                    const QString &perWhat)
{
    m_label = label;
    m_unit = unit;
    m_description = description;
    m_perWhat = perWhat;
    rebuild();
}

void DistributionChart::setDistributions(const QList<DistributionSeries> &series)
{
    m_series = series;
    rebuild();
}

bool DistributionChart::hasData() const
{
    return std::any_of(m_series.begin(), m_series.end(),
                       [](const DistributionSeries &s) { return !s.histogram.isEmpty(); });
}

std::pair<double, double> DistributionChart::displayRange(const QList<DistributionSeries> &series)
{
    double lo = std::numeric_limits<double>::quiet_NaN();
    double hi = lo;
    for (const DistributionSeries &s : series) {
        if (s.histogram.isEmpty())
            continue;
        const double a = s.histogram.percentile(kLowQuantile);
        const double b = s.histogram.percentile(kHighQuantile);
        lo = std::isnan(lo) ? a : std::min(lo, a);
        hi = std::isnan(hi) ? b : std::max(hi, b);
    }
    return {lo, hi};
}

QList<QPointF> DistributionChart::histogramOutline(const LogHistogram &histogram, double lo, double hi, int bins)
{
    if (histogram.isEmpty() || bins < 1 || !(hi > lo))
        return {};
    std::vector<double> mass(std::size_t(bins), 0.0);
    const double width = (hi - lo) / bins;
    double previous = 0;
    for (const CdfPoint &p : histogram.cdf()) {
        const int bin = std::clamp(int(std::floor((p.value - lo) / width)), 0, bins - 1);
        mass[std::size_t(bin)] += (p.fraction - previous) * 100.0;
        previous = p.fraction;
    }
    QList<QPointF> outline;
    outline.reserve(2 * bins + 2);
    outline.append({lo, 0});
    for (int b = 0; b < bins; ++b) {
        outline.append({lo + b * width, mass[std::size_t(b)]});
        outline.append({lo + (b + 1) * width, mass[std::size_t(b)]});
    }
    outline.append({hi, 0});
    return outline;
}

QList<QPointF> DistributionChart::cdfPoints(const LogHistogram &histogram)
{
    QList<QPointF> points;
    if (histogram.isEmpty())
        return points;
    const std::vector<CdfPoint> cdf = histogram.cdf();
    points.reserve(qsizetype(cdf.size()) + 1);
    points.append({cdf.front().value, 0});
    for (const CdfPoint &p : cdf)
        points.append({p.value, p.fraction * 100.0});
    return points;
}

void DistributionChart::createSeries()
{
    removeAllSeries();
    m_drawn.clear();
    m_median = m_tail = nullptr;
    const bool histogram = m_mode == Mode::Histogram;
    for (const DistributionSeries &s : std::as_const(m_series)) {
        if (s.histogram.isEmpty())
            continue;
        QAbstractSeries *series = nullptr;
        if (histogram) {
            auto *upper = new QLineSeries;
            auto *area = new QAreaSeries(upper);
            upper->setParent(area);
            QColor fill = s.color;
            fill.setAlpha(m_series.size() > 1 ? 40 : 70);
            area->setBrush(fill);
            area->setPen(chartstyle::pen(s.color, s.dashed, 1.5));
            series = area;
        } else {
            auto *line = new QLineSeries;
            line->setPen(chartstyle::pen(s.color, s.dashed));
            series = line;
        }
        series->setParent(this);
        series->setName(s.name);
        chartstyle::setDescription(series, m_description);
        addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
        // The legend shows the series' colour as a filled square, not the pale fill of its area.
        for (QLegendMarker *marker : legend()->markers(series)) {
            marker->setShape(QLegend::MarkerShapeRectangle);
            marker->setBrush(s.color);
        }
        m_drawn << series;
    }
    // One distribution: mark its median and tail where the eye looks for them.
    if (m_series.size() == 1 && m_drawn.size() == 1) {
        const QColor color = m_series.front().color;
        m_median = percentileLine(color, false);
        m_tail = percentileLine(color, true);
        chartstyle::setDescription(m_median, tr("Half of the values are at or below the median"));
        chartstyle::setDescription(m_tail, tr("99% of the values are at or below p99"));
        for (QLineSeries *line : {m_median, m_tail}) {
            line->setParent(this);
            addSeries(line);
            line->attachAxis(m_x);
            line->attachAxis(m_y);
        }
    }
}

void DistributionChart::rebuild()
{
    const bool histogram = m_mode == Mode::Histogram;
    setTitle(histogram ? tr("%1 distribution").arg(m_label) : tr("%1 cumulative distribution").arg(m_label));
    m_x->setTitleText(m_unit.isEmpty() ? m_label : QStringLiteral("%1 (%2)").arg(m_label, m_unit));
    fitYTitle();

    QStringList shape{QString::number(int(m_mode)), m_description};
    for (const DistributionSeries &s : std::as_const(m_series))
        shape << (s.histogram.isEmpty() ? QString() : s.name + s.color.name() + QString::number(s.dashed));
    if (shape != m_shape) {
        m_shape = shape;
        createSeries();
    }

    auto [lo, hi] = displayRange(m_series);
    if (std::isnan(lo)) {
        chartstyle::setNiceRange(m_x, 0, 1);
        chartstyle::setNiceRange(m_y, 0, 100, 4);
        return;
    }
    if (hi <= lo) { // one value (or all alike): give it some room either side
        const double pad = std::max(std::abs(lo) * 0.1, 1e-3);
        lo -= pad;
        hi += pad;
    }
    // Start at 0 when the data nearly does: an axis from 0 reads without checking its origin.
    chartstyle::setNiceRange(m_x, lo < 0.25 * hi ? 0.0 : lo, hi, 6);
    const double xMin = m_x->min();
    const double xMax = m_x->max();

    double yMax = histogram ? 0 : 100;
    qsizetype drawn = 0;
    for (const DistributionSeries &s : std::as_const(m_series)) {
        if (s.histogram.isEmpty())
            continue;
        QAbstractSeries *series = m_drawn.at(drawn++);
        if (histogram) {
            const QList<QPointF> outline = histogramOutline(s.histogram, xMin, xMax, kBins);
            for (const QPointF &p : outline)
                yMax = std::max(yMax, p.y());
            static_cast<QAreaSeries *>(series)->upperSeries()->replace(outline);
        } else {
            static_cast<QLineSeries *>(series)->replace(cdfPoints(s.histogram));
        }
    }
    if (histogram)
        chartstyle::setNiceRange(m_y, 0, yMax * 1.1, 4);
    else
        chartstyle::setNiceRange(m_y, 0, 100, 4);

    if (m_median) {
        const LogHistogram &h = m_series.front().histogram;
        const auto format = [this](double v) {
            return m_unit == QLatin1String("ms") ? formatMs(v) : formatNumber(v) + QLatin1Char(' ') + m_unit;
        };
        const double top = m_y->max();
        const double p50 = h.percentile(0.5);
        const double p99 = h.percentile(0.99);
        m_median->setName(tr("p50 %1").arg(format(p50)));
        m_median->replace({QPointF(p50, 0), QPointF(p50, top)});
        m_tail->setName(tr("p99 %1").arg(format(p99)));
        m_tail->replace({QPointF(p99, 0), QPointF(p99, top)});
    }
}

} // namespace tb
