#include "charts/tokenchart.h"

#include "charts/chartstyle.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QValueAxis>

namespace tb {

namespace {

QBarSet *barSet(const QString &label, Quantity quantity, QObject *parent)
{
    auto *set = new QBarSet(label, parent);
    set->setColor(chartstyle::color(quantity));
    set->setBorderColor(chartstyle::color(quantity));
    chartstyle::setDescription(set, chartstyle::describe(quantity));
    return set;
}

QLineSeries *ratioLine(const QString &name, Quantity quantity, QObject *parent)
{
    auto *line = new QLineSeries(parent);
    line->setName(name);
    line->setPen(chartstyle::pen(chartstyle::color(quantity), false, 2));
    line->setPointsVisible(true);
    line->setMarkerSize(7);
    chartstyle::setDescription(line, chartstyle::describe(quantity));
    return line;
}

void setValues(QBarSet *set, const QList<qreal> &values)
{
    if (set->count() == values.size()) {
        for (qsizetype i = 0; i < values.size(); ++i)
            set->replace(i, values[i]);
    } else {
        set->remove(0, set->count());
        set->append(values);
    }
}

} // namespace

TokenChart::TokenChart(QGraphicsItem *parent)
    : TwoScaleChart(new QBarCategoryAxis, tr("Token efficiency"), tr("tokens / request"), tr("ratio (lines)"), parent)
    , m_categories(static_cast<QBarCategoryAxis *>(bottomAxis()))
    , m_bars(new QBarSeries(this))
    , m_input(barSet(tr("prompt"), Quantity::InputTokens, this))
    , m_cached(barSet(tr("cached"), Quantity::CachedTokens, this))
    , m_output(barSet(tr("output"), Quantity::OutputTokens, this))
    , m_outIn(ratioLine(tr("out/in"), Quantity::OutInRatio, this))
    , m_cacheHit(ratioLine(tr("cache hit"), Quantity::CacheHitRatio, this))
{
    m_bars->append({m_input, m_cached, m_output});
    m_bars->setBarWidth(0.6);
    addScaledSeries(m_bars, leftScale());
    // "From series" draws a bar set's legend entry as an empty box: a filled square says more.
    for (QLegendMarker *marker : legend()->markers(m_bars))
        marker->setShape(QLegend::MarkerShapeRectangle);
    for (QLineSeries *line : {m_outIn, m_cacheHit})
        addScaledSeries(line, rightScale());
    setSummary({});
}

void TokenChart::setSummary(const RunSummary &summary)
{
    std::vector<const SummaryBlock *> blocks;
    QStringList names;
    if (summary.stages.size() > 1) {
        for (const SummaryBlock &stage : summary.stages) {
            blocks.push_back(&stage);
            names << stage.name;
        }
    } else {
        blocks.push_back(&summary.total);
        names << tr("all requests");
    }
    QList<qreal> input, cached, output;
    QList<QPointF> outIn, cacheHit;
    double maxTokens = 0;
    double maxRatio = 0;
    m_hasData = false;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const SummaryBlock &b = *blocks[i];
        const double ok = double(b.requests.ok);
        const auto perRequest = [ok](std::int64_t tokens) { return ok > 0 ? double(tokens) / ok : 0.0; };
        input << perRequest(b.tokens.input);
        cached << perRequest(b.tokens.cached);
        output << perRequest(b.tokens.output);
        maxTokens = std::max({maxTokens, input.back(), output.back()});
        if (b.tokens.outInRatio) {
            outIn << QPointF(double(i), *b.tokens.outInRatio);
            maxRatio = std::max(maxRatio, *b.tokens.outInRatio);
        }
        if (b.tokens.cacheHitRatio) {
            cacheHit << QPointF(double(i), *b.tokens.cacheHitRatio);
            maxRatio = std::max(maxRatio, *b.tokens.cacheHitRatio);
        }
        m_hasData |= ok > 0;
    }
    if (m_categories->categories() != names) {
        m_categories->clear();
        m_categories->append(names);
    }
    setValues(m_input, input);
    setValues(m_cached, cached);
    setValues(m_output, output);
    m_outIn->replace(outIn);
    m_cacheHit->replace(cacheHit);
    fitScales(maxTokens, maxRatio);
}

} // namespace tb
