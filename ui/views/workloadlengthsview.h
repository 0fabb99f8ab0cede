#pragma once

#include "charts/chartview.h"
#include "editors/promptestimate.h"

namespace tb {

class DistributionChart;

/// A workload file's prompt and output lengths before the run: two histograms in approximate
/// tokens (TokenBench's tokenizer, the simulator's count), from the workload editor's estimate.
class WorkloadLengthsView : public ChartView
{
    Q_OBJECT

public:
    explicit WorkloadLengthsView(QWidget *parent = nullptr);

    /// Draws the estimate's length histograms; hidden when it read no workload file.
    void showEstimate(const PromptEstimate &estimate);
    const DistributionChart *chart() const { return m_chart; }

private:
    DistributionChart *m_chart;
};

} // namespace tb
