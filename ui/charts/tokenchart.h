#pragma once

#include "metrics/runsummary.h"

#include "charts/twoscalechart.h"

class QBarCategoryAxis;
class QBarSeries;
class QBarSet;
class QLineSeries;

namespace tb {

/// Token efficiency per stage (or for the whole run when it has one stage): prompt, cached and
/// output tokens per successful request as bars on the left axis, the out/in ratio and the cache
/// hit ratio as points on the right axis.
class TokenChart : public TwoScaleChart
{
    Q_OBJECT

public:
    explicit TokenChart(QGraphicsItem *parent = nullptr);

    void setSummary(const RunSummary &summary);

    QBarSet *inputSet() const { return m_input; }
    QBarSet *cachedSet() const { return m_cached; }
    QBarSet *outputSet() const { return m_output; }
    QLineSeries *outInLine() const { return m_outIn; }
    QLineSeries *cacheHitLine() const { return m_cacheHit; }

private:
    QBarCategoryAxis *m_categories;
    QBarSeries *m_bars;
    QBarSet *m_input;
    QBarSet *m_cached;
    QBarSet *m_output;
    QLineSeries *m_outIn;
    QLineSeries *m_cacheHit;
};

} // namespace tb
