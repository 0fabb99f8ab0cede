#include "views/workloadlengthsview.h"

#include "charts/chartstyle.h"
#include "charts/distributionchart.h"

namespace tb {

namespace {

DistributionChart *lengthChart()
{
    auto *chart = new DistributionChart;
    chart->setQuantity(QObject::tr("Length"), QObject::tr("tokens"),
                       QObject::tr("Prompt and output lengths of the file's requests, in approximate tokens (about 4 "
                                   "characters a token)"));
    return chart;
}

} // namespace

WorkloadLengthsView::WorkloadLengthsView(QWidget *parent)
    : ChartView(lengthChart(), parent)
    , m_chart(static_cast<DistributionChart *>(QChartView::chart()))
{
    setObjectName(QStringLiteral("workloadLengths"));
    setMinimumHeight(200);
    hide();
}

void WorkloadLengthsView::showEstimate(const PromptEstimate &estimate)
{
    QList<DistributionSeries> series;
    if (estimate.workload) {
        series.append({tr("prompt"), estimate.promptLengths, chartstyle::color(Quantity::InputTokens), false});
        if (estimate.outputLengths.count() > 0)
            series.append({tr("output"), estimate.outputLengths, chartstyle::color(Quantity::OutputTokens), false});
    }
    m_chart->setDistributions(series);
    setVisible(!series.isEmpty());
}

} // namespace tb
