#include "charts/timechart.h"

#include "charts/chartstyle.h"

#include <QAreaSeries>
#include <QFontMetricsF>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {
/// The band's fill over the plot: light enough that lines and grid read through it in both themes.
constexpr int kSteadyAlpha = 36;
} // namespace

QList<QPointF> decimate(const QList<QPointF> &points, int maxPoints, Reduce reduce)
{
    QList<QPointF> finite;
    finite.reserve(points.size());
    for (const QPointF &p : points) {
        if (std::isfinite(p.y()))
            finite.append(p);
    }
    if (finite.size() <= maxPoints || maxPoints < 1)
        return finite;
    const qsizetype bucket = (finite.size() + maxPoints - 1) / maxPoints;
    QList<QPointF> out;
    out.reserve(maxPoints);
    for (qsizetype begin = 0; begin < finite.size(); begin += bucket) {
        const qsizetype end = std::min(finite.size(), begin + bucket);
        double x = 0;
        double y = reduce == Reduce::Max ? -std::numeric_limits<double>::infinity() : 0;
        for (qsizetype i = begin; i < end; ++i) {
            x += finite[i].x();
            y = reduce == Reduce::Max ? std::max(y, finite[i].y()) : y + finite[i].y();
        }
        const double n = double(end - begin);
        out.append({x / n, reduce == Reduce::Max ? y : y / n});
    }
    return out;
}

QList<QPointF> errorRatePoints(const ErrorTimeline &errors, const QString &label, int endSecond, int maxPoints)
{
    const std::vector<std::int32_t> counts = errors.perSecond(label);
    if (counts.empty())
        return {};
    QList<QPointF> points;
    points.reserve(endSecond + 1);
    for (int s = 0; s <= endSecond; ++s)
        points.append({s + 0.5, std::size_t(s) < counts.size() ? double(counts[std::size_t(s)]) : 0.0});
    return decimate(points, maxPoints, Reduce::Mean);
}

QList<QPointF> timePoints(const std::vector<TimeSeriesRow> &rows,
                          const std::function<double(const TimeSeriesRow &)> &value, Reduce reduce, int maxPoints)
{
    // A warm-up's seconds come first, empty (no measured request sent, no stage yet): charted, they
    // drew a stray point at t≈0 — a lone hollow marker in the live chart's first second, a line
    // from 0 in the saved run. (A file without the stage column has requests sent in its first row.)
    const auto measured =
        std::find_if(rows.begin(), rows.end(), [](const TimeSeriesRow &r) { return r.stage >= 0 || r.sent > 0; });
    QList<QPointF> points;
    points.reserve(qsizetype(rows.size()));
    for (auto row = measured; row != rows.end(); ++row)
        points.append({row->second + 0.5, value(*row)});
    return decimate(points, maxPoints, reduce);
}

QList<StageMark> stageMarks(const std::vector<TimeSeriesRow> &rows, const QStringList &stageNames)
{
    QList<StageMark> marks;
    int next = 0;
    for (const TimeSeriesRow &row : rows) {
        while (next <= row.stage && next < stageNames.size()) {
            // A stage skipped within one second still gets its mark, at that second.
            marks.append({next == 0 ? 0.0 : double(row.second), stageNames.at(next)});
            ++next;
        }
    }
    return marks;
}

TimeChart::TimeChart(const QString &title, const QString &leftAxisTitle, QGraphicsItem *parent)
    : QChart(parent)
    , m_x(new QValueAxis(this))
    , m_left(new QValueAxis(this))
{
    setTitle(title);
    m_x->setTitleText(tr("s since start"));
    m_left->setTitleText(leftAxisTitle);
    addAxis(m_x, Qt::AlignBottom);
    addAxis(m_left, Qt::AlignLeft);
    chartstyle::applyTheme(this);
    rescale(0);
    // Stage names are kept inside the plot in pixels: they move when its size does.
    connect(this, &QChart::plotAreaChanged, this, &TimeChart::placeStageMarks);
}

void TimeChart::setRightAxisTitle(const QString &title, const QColor &color)
{
    if (!m_right) {
        m_right = new QValueAxis(this);
        addAxis(m_right, Qt::AlignRight);
        chartstyle::styleAxis(m_right);
        m_right->setGridLineVisible(false);
    }
    m_right->setTitleText(title);
    if (color.isValid()) {
        m_right->setLabelsColor(color);
        m_right->setTitleBrush(color);
    }
}

void TimeChart::setLeftAxisColor(const QColor &color)
{
    m_left->setLabelsColor(color);
    m_left->setTitleBrush(color);
}

QLineSeries *TimeChart::addLine(const QString &name, const QColor &color, bool dashed, const QString &description,
                                Side side)
{
    auto *series = new QLineSeries(this);
    series->setName(name);
    series->setPen(chartstyle::pen(color, dashed));
    series->setMarkerSize(5);
    chartstyle::setDescription(series, description);
    addSeries(series);
    series->attachAxis(m_x);
    series->attachAxis(side == Side::Right && m_right ? m_right : m_left);
    series->setProperty("tbSide", int(side));
    m_lines.append(series);
    return series;
}

void TimeChart::removeLines()
{
    for (QLineSeries *series : std::as_const(m_lines)) {
        removeSeries(series);
        delete series;
    }
    m_lines.clear();
}

void TimeChart::setStageMarks(const QList<StageMark> &marks)
{
    const auto same = [](const QList<StageMark> &a, const QList<StageMark> &b) {
        if (a.size() != b.size())
            return false;
        for (qsizetype i = 0; i < a.size(); ++i) {
            if (a[i].startS != b[i].startS || a[i].name != b[i].name)
                return false;
        }
        return true;
    };
    if (same(marks, m_marks))
        return;
    m_marks = marks;
    for (QXYSeries *series : stageSeries()) {
        removeSeries(series);
        delete series;
    }
    m_boundaries.clear();
    m_stageNames.clear();
    if (marks.size() < 2)
        return;
    const QColor muted = chartstyle::themed(QColor(0x6b, 0x72, 0x80), chartstyle::screenTheme());
    for (qsizetype i = 0; i < marks.size(); ++i) {
        const StageMark &mark = marks[i];
        auto *name = new QScatterSeries(this);
        name->setName(mark.name);
        name->setMarkerSize(1);
        name->setColor(Qt::transparent);
        name->setBorderColor(Qt::transparent);
        name->setPointLabelsVisible(true);
        name->setPointLabelsFormat(mark.name);
        name->setPointLabelsColor(muted);
        name->setPointLabelsClipping(false);
        chartstyle::setDescription(name, tr("Stage %1").arg(mark.name));
        m_stageNames << name;
        if (i > 0) {
            auto *line = new QLineSeries(this);
            line->setName(tr("stage %1").arg(mark.name));
            line->setPen(
                QPen(chartstyle::themed(QColor(0x9c, 0xa3, 0xaf), chartstyle::screenTheme()), 1, Qt::DashLine));
            chartstyle::setDescription(line, tr("Stage %1 starts here").arg(mark.name));
            m_boundaries << line;
        }
    }
    for (QXYSeries *series : stageSeries()) {
        addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_left);
        chartstyle::setInLegend(this, series, false);
    }
    placeStageMarks();
}

QList<QXYSeries *> TimeChart::stageSeries() const
{
    QList<QXYSeries *> all(m_boundaries.begin(), m_boundaries.end());
    all.append(QList<QXYSeries *>(m_stageNames.begin(), m_stageNames.end()));
    return all;
}

void TimeChart::placeStageMarks()
{
    const double top = m_left->max();
    const double bottom = m_left->min();
    for (qsizetype i = 0; i < m_boundaries.size(); ++i) {
        const double x = m_marks[i + 1].startS;
        m_boundaries[i]->replace({QPointF(x, bottom), QPointF(x, top)});
    }
    // Each name over the middle of its stage, a little below the top so that its label (drawn
    // above the point) stays inside the plot; a name wider than its span on a narrow chart
    // ("c=8 (stopped after 5.0 s of 30 s)" in the last seconds) moves in from the plot's edge.
    const double labelY = top - 0.12 * (top - bottom);
    const QRectF plot = plotArea();
    for (qsizetype i = 0; i < m_stageNames.size(); ++i) {
        QScatterSeries *name = m_stageNames[i];
        const double from = m_marks[i].startS;
        const double to = i + 1 < m_marks.size() ? m_marks[i + 1].startS : std::max(m_endS, from);
        QPointF point((from + to) / 2, labelY);
        if (plot.width() > 0) {
            const qreal half = QFontMetricsF(name->pointLabelsFont()).horizontalAdvance(m_marks[i].name) / 2;
            const qreal x = mapToPosition(point, name).x();
            const qreal inside = std::clamp(x, plot.left() + half, std::max(plot.left() + half, plot.right() - half));
            if (inside != x)
                point.setX(mapToValue(QPointF(inside, 0), name).x());
        }
        name->replace({point});
    }
}

void TimeChart::setSteadyWindow(const std::optional<TimeSpan> &window)
{
    const bool valid = window && window->endS > window->startS;
    if (!valid) {
        if (m_steady) {
            removeSeries(m_steady);
            delete std::exchange(m_steady, nullptr);
        }
        m_steadyWindow.reset();
        return;
    }
    m_steadyWindow = window;
    if (!m_steady) {
        // Series draw in the order they were added: the band goes first so that the lines (and their
        // tooltips) stay on top of it. The others are added again after it, on the axes they had.
        struct Placed {
            QAbstractSeries *series;
            QList<QAbstractAxis *> axes;
            bool inLegend;
        };
        QList<Placed> others;
        for (QAbstractSeries *s : series())
            others.append({s, s->attachedAxes(), chartstyle::isInLegend(s)});
        for (const Placed &p : std::as_const(others))
            removeSeries(p.series);
        m_steady = new QAreaSeries(new QLineSeries(this), new QLineSeries(this));
        m_steady->setParent(this);
        m_steady->setName(tr("steady state"));
        QColor fill = chartstyle::themed(QColor(0x15, 0x80, 0x3d), chartstyle::screenTheme());
        fill.setAlpha(kSteadyAlpha);
        m_steady->setBrush(fill);
        m_steady->setPen(Qt::NoPen);
        chartstyle::setDescription(m_steady, tr("the run's steady-state window: in flight, throughput and latency "
                                                "level (docs/metrics.md, Steady state); the steady figures are "
                                                "over the requests sent in it"));
        addSeries(m_steady);
        m_steady->attachAxis(m_x);
        m_steady->attachAxis(m_left);
        chartstyle::setInLegend(this, m_steady, false);
        for (const Placed &p : std::as_const(others)) {
            addSeries(p.series);
            for (QAbstractAxis *axis : p.axes)
                p.series->attachAxis(axis);
            if (!p.inLegend)
                chartstyle::setInLegend(this, p.series, false);
        }
    }
    placeSteadyBand();
}

void TimeChart::placeSteadyBand()
{
    if (!m_steady || !m_steadyWindow)
        return;
    const double top = m_left->max();
    const double bottom = m_left->min();
    m_steady->upperSeries()->replace({QPointF(m_steadyWindow->startS, top), QPointF(m_steadyWindow->endS, top)});
    m_steady->lowerSeries()->replace({QPointF(m_steadyWindow->startS, bottom), QPointF(m_steadyWindow->endS, bottom)});
}

void TimeChart::rescale(double endS, double minSpanS)
{
    m_endS = endS;
    chartstyle::setNiceRange(m_x, 0, std::max(endS, minSpanS), 6);
    double maxLeft = 0;
    double maxRight = 0;
    for (QLineSeries *series : std::as_const(m_lines)) {
        // A line needs two points; until then its points show as dots.
        series->setPointsVisible(series->count() < 2);
        if (!series->isVisible())
            continue;
        double &max = series->property("tbSide").toInt() == int(Side::Right) && m_right ? maxRight : maxLeft;
        for (const QPointF &p : series->points())
            max = std::max(max, p.y());
    }
    // Stage names sit at the top of the plot: leave them room above the lines.
    const double headroom = m_stageNames.isEmpty() ? 1.0 : 1.15;
    chartstyle::setNiceRange(m_left, 0, maxLeft > 0 ? maxLeft * headroom : 1);
    if (m_right)
        chartstyle::setNiceRange(m_right, 0, maxRight > 0 ? maxRight * headroom : 1);
    placeStageMarks();
    placeSteadyBand();
}

bool TimeChart::hasData() const
{
    for (const QLineSeries *series : m_lines) {
        if (series->count() > 0)
            return true;
    }
    return false;
}

} // namespace tb
