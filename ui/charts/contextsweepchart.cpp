#include "charts/contextsweepchart.h"

#include "charts/chartstyle.h"

#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

/// A legend entry: the run's name first when the chart has one per run (a comparison).
QString named(const ContextSweepChart::Curve &curve, const QString &what)
{
    return curve.name.isEmpty() ? what : QStringLiteral("%1: %2").arg(curve.name, what);
}

} // namespace

ContextSweepChart::ContextSweepChart(QGraphicsItem *parent)
    : QChart(parent)
    , m_tokens(new QLogValueAxis(this))
    , m_ms(new QValueAxis(this))
{
    chartstyle::applyTheme(this);
    setTitle(tr("Context sweep: TTFT against prompt tokens"));
    m_tokens->setTitleText(tr("prompt tokens (measured)"));
    m_tokens->setBase(2);
    m_tokens->setLabelFormat(QStringLiteral("%.0f"));
    m_ms->setTitleText(tr("TTFT (ms)"));
    addAxis(m_tokens, Qt::AlignBottom);
    addAxis(m_ms, Qt::AlignLeft);
    for (QAbstractAxis *axis : axes())
        chartstyle::styleAxis(axis);
    setCurves({});
}

void ContextSweepChart::setCurves(const QList<Curve> &curves)
{
    removeAllSeries();
    m_fits.clear();
    m_stages.clear();
    m_excluded.clear();
    double minX = 0, maxX = 0, maxY = 0;
    const auto extend = [&](double x, double y) {
        if (!(x > 0) || !std::isfinite(y))
            return false;
        minX = minX > 0 ? std::min(minX, x) : x;
        maxX = std::max(maxX, x);
        maxY = std::max(maxY, y);
        return true;
    };
    const auto attach = [this](QAbstractSeries *series) {
        addSeries(series);
        series->attachAxis(m_tokens);
        series->attachAxis(m_ms);
    };
    // Every k-th request beyond kMaxDots.
    const auto plot = [&](QScatterSeries *series, const std::vector<ContextSweepSummary::Point> &points) {
        const std::size_t stride = std::max<std::size_t>(1, points.size() / kMaxDots + 1);
        for (std::size_t i = 0; i < points.size(); i += stride)
            if (extend(points[i].promptTokens, points[i].ttftMs))
                series->append(points[i].promptTokens, points[i].ttftMs);
        attach(series);
    };
    for (const Curve &curve : curves) {
        const ContextSweepSummary &s = curve.sweep;
        auto *dots = new QScatterSeries(this);
        dots->setName(named(curve, tr("requests")));
        QColor faint = curve.color;
        faint.setAlphaF(0.25);
        dots->setColor(faint);
        dots->setBorderColor(Qt::transparent);
        dots->setMarkerSize(5);
        chartstyle::setDescription(dots, tr("Each request's TTFT at its measured prompt tokens"));
        plot(dots, s.points);
        chartstyle::setInLegend(this, dots, false);

        auto *stages = new QScatterSeries(this);
        stages->setName(named(curve, tr("TTFT p50 per stage")));
        stages->setColor(curve.color);
        stages->setMarkerSize(10);
        chartstyle::setDescription(stages, tr("Each stage's median TTFT at its median prompt tokens"));
        for (const ContextSweepSummary::Stage &st : s.stages)
            if (extend(st.promptTokens, st.ttftP50Ms))
                stages->append(st.promptTokens, st.ttftP50Ms);
        attach(stages);
        m_stages << stages;

        // Over the stage medians: a truncated stage's median sits among its rings.
        if (!s.excluded.empty()) {
            auto *rings = new QScatterSeries(this);
            rings->setName(
                named(curve, tr("%1 requests the server truncated (left out of the fit)").arg(s.excluded.size())));
            rings->setColor(Qt::transparent);
            rings->setBorderColor(curve.color);
            rings->setMarkerSize(12);
            chartstyle::setDescription(rings, tr("Requests whose measured prompt was under %1% of the stage's size: "
                                                 "the server cut them to fit its context")
                                                  .arg(int(ContextSweepSummary::kTruncatedBelow * 100)));
            plot(rings, s.excluded);
            m_excluded << rings;
        }
    }
    m_hasData = maxX > 0;
    // The fitted lines span every run's prompt range, on a log-spaced grid.
    if (m_hasData) {
        for (const Curve &curve : curves) {
            if (!curve.sweep.fit.ok)
                continue;
            auto *fit = new QLineSeries(this);
            fit->setName(named(curve, curve.sweep.fitText()));
            fit->setPen(chartstyle::pen(curve.color, false, 2));
            chartstyle::setDescription(fit, tr("Least-squares fit TTFT = a·x^b + c through the requests"));
            m_fits << fit;
            constexpr int kSteps = 64;
            for (int i = 0; i <= kSteps; ++i) {
                const double x = minX * std::pow(maxX / minX, double(i) / kSteps);
                const double y = curve.sweep.fit.at(x);
                if (std::isfinite(y)) {
                    fit->append(x, y);
                    maxY = std::max(maxY, y);
                }
            }
            attach(fit);
        }
    }
    m_tokens->setRange(m_hasData ? minX / 1.3 : 1, m_hasData ? std::max(maxX * 1.3, minX * 2) : 2);
    chartstyle::setNiceRange(m_ms, 0, maxY > 0 ? maxY * 1.1 : 1, 5);
}

} // namespace tb
