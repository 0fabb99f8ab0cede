#include "charts/turnchart.h"

#include "charts/chartstyle.h"

#include <QLineSeries>
#include <QValueAxis>

#include <cmath>

namespace tb {

namespace {

QLineSeries *line(const QString &name, const QColor &color, bool dashed, const QString &description, QObject *parent)
{
    auto *series = new QLineSeries(parent);
    series->setName(name);
    series->setPen(chartstyle::pen(color, dashed, 2));
    series->setPointsVisible(true);
    series->setMarkerSize(7);
    chartstyle::setDescription(series, description);
    return series;
}

QValueAxis *turnAxis()
{
    auto *axis = new QValueAxis;
    axis->setTitleText(TurnChart::tr("turn"));
    axis->setLabelFormat(QStringLiteral("%d"));
    return axis;
}

} // namespace

TurnChart::TurnChart(QGraphicsItem *parent)
    : TwoScaleChart(turnAxis(), tr("Turns: multi-turn token growth"), tr("tokens per request"), tr("TTFT p50 (ms)"),
                    parent)
    , m_turns(static_cast<QValueAxis *>(bottomAxis()))
    , m_prompt(line(tr("prompt tokens"), chartstyle::color(Quantity::InputTokens), false,
                    tr("Prompt tokens per request of each turn (mean): the history grows by a reply and a question"),
                    this))
    , m_cached(line(tr("cached tokens"), chartstyle::color(Quantity::CachedTokens), true,
                    tr("Prompt tokens the server's prefix cache served, per request of each turn (mean)"), this))
    , m_ttft(line(tr("TTFT p50"), chartstyle::color(Quantity::Ttft), false,
                  tr("Median time to first token of each turn"), this))
{
    for (QLineSeries *series : {m_prompt, m_cached, m_ttft})
        addScaledSeries(series, series == m_ttft ? rightScale() : leftScale());
    setSummary({});
}

void TurnChart::setSummary(const RunSummary &summary)
{
    QList<QPointF> prompt, cached, ttft;
    double maxTokens = 0;
    double maxMs = 0;
    for (const TurnSummary &t : summary.turns) {
        if (t.requests == 0)
            continue;
        prompt << QPointF(t.turn, t.promptTokens.mean);
        cached << QPointF(t.turn, t.cachedTokens.mean);
        maxTokens = std::max({maxTokens, t.promptTokens.mean, t.cachedTokens.mean});
        if (std::isfinite(t.ttftMs.p50)) {
            ttft << QPointF(t.turn, t.ttftMs.p50);
            maxMs = std::max(maxMs, t.ttftMs.p50);
        }
    }
    m_hasData = !prompt.isEmpty();
    m_prompt->replace(prompt);
    m_cached->replace(cached);
    m_ttft->replace(ttft);
    const int turns = summary.turns.empty() ? 1 : summary.turns.back().turn;
    m_turns->setRange(1, std::max(turns, 2));
    m_turns->setTickCount(std::clamp(turns, 2, 11));
    fitScales(maxTokens, maxMs);
}

} // namespace tb
