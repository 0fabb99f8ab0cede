#pragma once

#include "charts/chartexporter.h"
#include "metrics/runsummary.h"
#include "results/rundirectory.h"
#include "threads/backgroundjobs.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QSplitter;
class QTabWidget;
class QTableView;

namespace tb {

class ChartView;
class ComparisonModel;
class DistributionChart;
class HeadlineStrip;
class PairedDeltaModel;
class ThroughputLatencyChart;
class TimeChart;
struct ComparisonResult;

/// Saved runs side by side: the comparison table (one column per run, the best value of each
/// metric in bold, under each value its change against the baseline and whether that is larger
/// than run-to-run noise), a baseline selector, a banner for workload differences and for folders
/// that could not be read, and overlaid charts in the runs' colours — the CDF of TTFT, E2E, ITL or
/// TPOT, throughput over time, the throughput–latency curves of staged runs, and for an
/// interleaved session the paired per-request differences. Every chart exports to PNG, SVG or PDF
/// sized for a slide or an A4 page; the whole comparison saves as an HTML report or CSV.
///
/// Runs load on a worker thread (a large run takes a second to read), and so do the noise tests
/// when the baseline changes; the view stays responsive and shows the newest result only.
class ComparisonView : public QWidget
{
    Q_OBJECT

public:
    enum ChartTab { CdfTab, ThroughputTab, CurveTab, PairedTab };
    /// What the over-time tab draws (its selector's item data); GPU power only when every run has it.
    enum class OverTime { OutputTokens, Requests, GpuPower };

    explicit ComparisonView(QWidget *parent = nullptr);
    /// Waits for a load in progress.
    ~ComparisonView() override;

    /// Reads run directories and session directories (their runs, in order); loaded() follows.
    /// A single staged run (a sweep) compares its stages: a column each, and its
    /// throughput–latency curve with the knee.
    /// Folders that cannot be read are named in the banner and by problemsFound(); the others
    /// are compared all the same.
    void openDirectories(const QStringList &arguments);

    bool isLoading() const { return m_jobs.pending() > 0; }
    int runCount() const;
    int baseline() const { return m_baseline; }
    /// Recomputes the deltas and noise tests against another run (off the GUI thread).
    void setBaseline(int run);
    /// "DIR: why" for each folder that could not be compared.
    QStringList problems() const { return m_problems; }
    /// A short title for a tab: "Compare: a · b · c".
    QString title() const;

    ComparisonModel *model() const { return m_model; }
    PairedDeltaModel *pairedModel() const { return m_pairedModel; }
    QTableView *table() const { return m_table; }
    QTabWidget *chartTabs() const { return m_tabs; }
    ChartView *chartView(ChartTab tab) const;
    DistributionChart *cdfChart() const { return m_cdf; }
    TimeChart *throughputChart() const { return m_throughput; }
    ThroughputLatencyChart *curveChart() const { return m_curve; }
    QLabel *banner() const { return m_banner; }
    /// The banner's full list (workload differences, notes, unreadable folders) or its one-line
    /// summary; its "Show details" / "Hide details" link does the same.
    void showBannerDetails(bool show);
    HeadlineStrip *headlineStrip() const { return m_strip; }

    /// Which distribution the CDF tab overlays: TTFT, E2E, ITL or TPOT.
    void setCdfMetric(Metric metric);
    /// Which latency the throughput–latency curves show: TTFT or E2E.
    void setCurveMetric(Metric metric);

    /// The comparison as a self-contained HTML report (tb::HtmlReport) or as CSV.
    bool saveReport(const QString &path, QString *error) const;
    bool saveCsv(const QString &path, QString *error) const;
    /// One chart as PNG, SVG or PDF (by the suffix) in the report theme.
    bool exportChart(ChartTab tab, const QString &path, ChartExporter::Page page, QString *error) const;

public Q_SLOTS:
    void copyTable();
    /// Ask for a file without a nested event loop, then save.
    void saveReportDialog();
    void saveCsvDialog();
    void exportChartDialog(tb::ComparisonView::ChartTab tab, tb::ChartExporter::Page page);
    /// Remembers the current baseline run as the baseline (tb::Baseline).
    void markBaseline();

Q_SIGNALS:
    /// A comparison is shown (after openDirectories() or a new baseline).
    void loaded();
    /// Folders that could not be compared, "DIR: why" each.
    void problemsFound(const QStringList &problems);
    void titleChanged(const QString &title);
    void baselineMarked(const QString &directory);
    /// A file was saved (report, CSV, chart), or saving failed (then path is empty).
    void saved(const QString &path, const QString &error);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    using Runs = std::shared_ptr<const std::vector<RunData>>;
    /// The run whose stages are the columns, for its curve.
    struct StagedRun {
        QString label;
        RunSummary summary;
    };
    using Staged = std::shared_ptr<const StagedRun>;
    /// Replaces a single staged run by its stages (splitByStage) and returns it; null otherwise.
    static Staged splitSingleStaged(std::vector<RunData> &runs);

    /// The current chart's selector and its Export Chart button, for the tab bar's corner.
    QWidget *chartControls();
    void compute(const Runs &runs, const Staged &staged, int baseline, const QStringList &problems);
    void present(Runs runs, Staged staged, std::shared_ptr<const ComparisonResult> result, QStringList problems,
                 bool newRuns);
    void rebuildCharts();
    void updateCdf();
    void updateThroughput();
    void updateCurve();
    void updateBanner();
    /// The banner's height: its text, or a few lines of it and a scroll bar.
    void fitBanner();
    void showBanner();
    /// Splits the height so the table shows its first rows whole, the charts the rest.
    void showTableRows();
    void updateHeader();
    void saveDialog(const QString &caption, const QString &name, const QString &filter,
                    const std::function<bool(const QString &, QString *)> &save);

    ComparisonModel *m_model;
    PairedDeltaModel *m_pairedModel;
    QLabel *m_heading;
    QLabel *m_subheading;
    QComboBox *m_baselineBox;
    QPushButton *m_markBaseline;
    QLabel *m_banner;
    QScrollArea *m_bannerArea;
    QString m_bannerSummary; ///< one line: what kinds of remarks there are, and how many
    QString m_bannerDetails; ///< every remark
    bool m_bannerExpanded = false;
    HeadlineStrip *m_strip;
    QTableView *m_table;
    QTableView *m_pairedTable;
    QTabWidget *m_tabs;
    QSplitter *m_splitter; ///< the table above the charts
    DistributionChart *m_cdf;
    TimeChart *m_throughput;
    ThroughputLatencyChart *m_curve;
    ChartView *m_cdfView;
    ChartView *m_throughputView;
    ChartView *m_curveView;
    QComboBox *m_cdfBox;
    QComboBox *m_throughputBox; ///< OverTime as item data
    QComboBox *m_curveBox;

    Runs m_runs;
    Staged m_staged;
    std::shared_ptr<const ComparisonResult> m_result;
    QStringList m_problems;
    Metric m_cdfMetric = Metric::Ttft;
    Metric m_curveMetric = Metric::Ttft;
    int m_baseline = 0;
    BackgroundJobs m_jobs{this};
};

} // namespace tb
