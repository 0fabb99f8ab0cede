#pragma once

#include "metrics/contextsweep.h"

#include <QChart>
#include <QColor>

class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace tb {

/// A context sweep (--sweep p=…): TTFT against measured prompt tokens — each request a small dot,
/// each stage's median a large one — and the fitted a·x^b + c as a line whose legend entry gives
/// the formula and R² (and a held intercept). Requests the server truncated are hollow rings, in
/// the legend as left out of the fit. One set per run, so a comparison lays two runs' curves over
/// each other.
class ContextSweepChart : public QChart
{
    Q_OBJECT

public:
    struct Curve {
        QString name; ///< starts the run's legend entries; empty: a chart of one run (the dashboard)
        QColor color;
        ContextSweepSummary sweep;
    };
    /// Dots drawn per run at most (every k-th request beyond): enough to see the spread.
    static constexpr int kMaxDots = 1500;

    explicit ContextSweepChart(QGraphicsItem *parent = nullptr);

    void setCurves(const QList<Curve> &curves);
    bool hasData() const { return m_hasData; }
    /// The fitted lines, one per run with a fit (legend: "name: TTFT = … , R² …", or without the name).
    QList<QLineSeries *> fitLines() const { return m_fits; }
    QList<QScatterSeries *> stageDots() const { return m_stages; }
    /// The truncated requests' rings, one series per run that has any.
    QList<QScatterSeries *> excludedDots() const { return m_excluded; }

private:
    QLogValueAxis *m_tokens;
    QValueAxis *m_ms;
    QList<QLineSeries *> m_fits;
    QList<QScatterSeries *> m_stages;
    QList<QScatterSeries *> m_excluded;
    bool m_hasData = false;
};

} // namespace tb
