#pragma once

#include "metrics/runsummary.h"

#include "charts/twoscalechart.h"

class QLineSeries;
class QValueAxis;

namespace tb {

/// Conversations (--turns): the multi-turn token growth, measured — prompt and cached tokens per
/// request of each turn (mean) on the left axis, TTFT p50 on the right, against the turn index.
class TurnChart : public TwoScaleChart
{
    Q_OBJECT

public:
    explicit TurnChart(QGraphicsItem *parent = nullptr);

    void setSummary(const RunSummary &summary);

    QLineSeries *promptLine() const { return m_prompt; }
    QLineSeries *cachedLine() const { return m_cached; }
    QLineSeries *ttftLine() const { return m_ttft; }

private:
    QValueAxis *m_turns;
    QLineSeries *m_prompt;
    QLineSeries *m_cached;
    QLineSeries *m_ttft;
};

} // namespace tb
