#pragma once

#include "charts/distributionchart.h"
#include "charts/timechart.h"
#include "metrics/runsummary.h"

#include <QWidget>

#include <array>
#include <optional>

class QComboBox;
class QGridLayout;
class QLabel;
class QProgressBar;
class QStackedWidget;
class QTimer;

namespace tb {

class ChartView;
class KpiTile;
class RunDocument;
class ThroughputLatencyChart;
class TokenChart;
class TurnChart;
class ContextSweepChart;

/// The live dashboard: the run's progress, key figures as tiles, and seven charts — latency over
/// time, throughput, in-flight requests against the target with the stages marked, the latency
/// distribution (TTFT/TPOT/ITL/E2E as histogram or CDF), token efficiency, errors by status, and
/// the server's own metrics (running and waiting requests, its TTFT against the client's, KV cache),
/// for a run with --gpu-metrics the GPUs' power and utilisation with the run's energy figures,
/// and for a staged run (a sweep) its throughput–latency curve with the knee ringed.
/// It shows whatever the RunDocument holds, live or saved, and redraws from a timer only when the
/// document changed — never per record: the header and tiles at up to 10 Hz, the charts one per
/// tick in turn, so that no redraw holds the event loop for long (each chart refreshes about
/// every 0.6 s, close to the 4 Hz at which the run's snapshots arrive).
class DashboardView : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kRedrawIntervalMs = 100;

    explicit DashboardView(RunDocument *document, QWidget *parent = nullptr);
    ~DashboardView() override;

    struct ChartEntry {
        QString key; ///< file-name friendly: "latency-over-time", …
        ChartView *view;
    };
    /// Every chart, shown or not, in order.
    QList<ChartEntry> charts() const { return m_charts; }
    /// The charts this run shows, in order — what Export writes: a run without stages,
    /// conversations or a context sweep has no curve, turns or context card to export.
    QList<ChartEntry> shownCharts() const;
    ChartView *chartView(const QString &key) const;
    /// Tiles by key: "requests_per_s", "output_tokens_per_s", "ttft_p50", "ttft_p99", "e2e_p99",
    /// "out_in_ratio", "error_pct", "in_flight".
    KpiTile *tile(const QString &key) const;
    DistributionChart *distributionChart() const { return m_distribution; }
    ThroughputLatencyChart *curveChart() const { return m_curve; }
    ContextSweepChart *contextChart() const { return m_context; }
    QLabel *kneeNote() const { return m_kneeNote; }
    QLabel *contextNote() const { return m_contextNote; }
    TimeChart *gpuChart() const { return m_gpu; }
    QLabel *gpuNote() const { return m_gpuNote; }

    void setDistributionMetric(Metric metric);
    Metric distributionMetric() const { return m_metric; }
    void setDistributionMode(DistributionChart::Mode mode);

    /// Names the target a run would go to in the hint shown before the first run.
    void setNextTarget(const QString &name, bool simulator);

    /// How many chart redraws there were (for tests and the UI benchmark).
    int redrawCount() const { return m_redraws; }

public Q_SLOTS:
    /// Redraws everything now from the document (a new or finished run, a screenshot).
    void refresh();

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    enum Part {
        HeaderPart,
        LatencyPart,
        ThroughputPart,
        ConcurrencyPart,
        DistributionPart,
        TokensPart,
        ErrorsPart,
        ServerPart,
        GpuPart,
        CurvePart,
        TurnsPart,
        ContextPart,
        PartCount
    };
    /// What the time charts share: how far the data goes, the x range, the stage marks.
    struct Frame {
        double endS = 0;
        double rangeS = 0;
        double minSpanS = 0;
        QList<StageMark> marks;
        std::optional<TimeSpan> steady; ///< the steady-state window of a finished run that has one
    };

    void tick();
    void refreshPart(Part part);
    Frame frame() const;
    void buildTiles(QWidget *page);
    void addChart(const QString &key, ChartView *view, QWidget *card = nullptr);
    void relayout();
    /// Places a card only some runs have (`placed` says whether it is placed now), or takes it
    /// away; returns `show`.
    bool placeCard(bool &placed, bool show);
    bool isShown(const QString &key) const;
    void refreshHeader();
    void refreshTiles();
    void refreshLatency();
    void refreshThroughput();
    void refreshConcurrency();
    void refreshErrors();
    void refreshTokens();
    void refreshServer();
    void refreshGpu();
    void refreshCurve();
    void refreshTurns();
    void refreshContext();
    void refreshDistribution();
    void finishTimeChart(TimeChart *chart, const Frame &frame, const QString &key, bool empty, const QString &live,
                         const QString &saved);
    /// What an empty chart says while calibration holds the load back.
    static QString calibrationWait();
    /// The chart's empty state (`live` or `saved` text), export subtitle and tooltips.
    void finishChart(const QString &key, bool empty, const QString &live, const QString &saved);

    RunDocument *m_document;
    QStackedWidget *m_stack;
    QLabel *m_placeholder = nullptr; ///< "No run yet", before the first run
    QLabel *m_title;
    QLabel *m_subtitle;
    QLabel *m_errorNote; ///< failed share and top causes, while there are failures
    QProgressBar *m_progress;
    QGridLayout *m_tileGrid;
    QGridLayout *m_chartGrid;
    QList<KpiTile *> m_tiles;
    QList<ChartEntry> m_charts;
    QList<QWidget *> m_chartCards;
    TimeChart *m_latency;
    TimeChart *m_throughput;
    TimeChart *m_inFlight;
    TimeChart *m_errors;
    DistributionChart *m_distribution;
    TokenChart *m_tokens;
    TimeChart *m_server;             ///< the server's own metrics beside the client's TTFT
    QLabel *m_serverNote;            ///< KV cache, prefix hits, or why there is nothing
    TimeChart *m_gpu;                ///< --gpu-metrics only: power and utilisation, summed and per GPU
    QLabel *m_gpuNote;               ///< the run's energy: J per output token and request, its cost
    ThroughputLatencyChart *m_curve; ///< staged runs only
    QLabel *m_kneeNote;              ///< the core's knee in words
    TurnChart *m_turns;              ///< conversations only
    ContextSweepChart *m_context;    ///< context sweeps only
    QLabel *m_contextNote;           ///< the fit and the truncated requests left out, whole (a legend cuts them)
    QComboBox *m_metricBox;
    QComboBox *m_modeBox;
    QTimer *m_timer;
    Metric m_metric = Metric::Ttft;
    std::array<quint64, PartCount> m_drawn; ///< the document (data) revision each part shows
    int m_nextChart = 0;
    int m_tileColumns = 0;
    int m_chartColumns = 0;
    int m_redraws = 0;
    bool m_calibrating = false; ///< the charts say that the load waits for calibration
    bool m_showCurve = false;   ///< a staged run: the throughput–latency card is placed
    bool m_showTurns = false;   ///< a run of conversations: the turns card is placed
    bool m_showContext = false; ///< a context sweep: its card is placed (instead of the throughput–latency one)
    bool m_showGpu = false;     ///< a run with --gpu-metrics: the GPU card is placed
};

} // namespace tb
