#pragma once

#include "metrics/runsummary.h"

#include <QChart>

class QLineSeries;
class QValueAxis;

namespace tb {

/// Conversations (--turns): the multi-turn token growth, measured — prompt and cached tokens per
/// request of each turn (mean) on the left axis, TTFT p50 on the right, against the turn index.
class TurnChart : public QChart
{
    Q_OBJECT

public:
    explicit TurnChart(QGraphicsItem *parent = nullptr);

    void setSummary(const RunSummary &summary);
    bool hasData() const { return m_hasData; }

    QLineSeries *promptLine() const { return m_prompt; }
    QLineSeries *cachedLine() const { return m_cached; }
    QLineSeries *ttftLine() const { return m_ttft; }

private:
    QValueAxis *m_turns;
    QValueAxis *m_tokens;
    QValueAxis *m_ms;
    QLineSeries *m_prompt;
    QLineSeries *m_cached;
    QLineSeries *m_ttft;
    bool m_hasData = false;
};

} // namespace tb
