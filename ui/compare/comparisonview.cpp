#include "compare/comparisonview.h"

#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "charts/comparisoncharts.h"
#include "charts/distributionchart.h"
#include "charts/timechart.h"
#include "compare/comparisondelegate.h"
#include "compare/headlinestrip.h"
#include "models/comparisonmodel.h"
#include "widgets/apptheme.h"
#include "widgets/card.h"
#include "widgets/folderdialog.h"

#include "analysis/baseline.h"
#include "analysis/htmlreport.h"
#include "results/loadedruns.h"
#include "run/comparisonsession.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <tuple>

namespace tb {

namespace {

constexpr int kRunColumnWidth = 170;
/// The Baseline box's text at most, in average characters: "#1 …114501-default" fits.
constexpr int kBaselineTextWidth = 24;
/// Table rows shown before the charts get the rest of the height: the headline metrics and more.
constexpr int kTableRowsShown = 8;

/// Null once `cancel` is cancelled (a newer computation superseded this one).
std::shared_ptr<const ComparisonResult> computeResult(const std::vector<RunData> &runs, int baseline,
                                                      const CancelToken &cancel)
{
    auto result =
        std::make_shared<ComparisonResult>(ComparisonResult{ComparisonTable(runs, baseline, cancel), {}, {}, {}});
    if (cancel.isCancelled())
        return nullptr;
    if (isInterleavedSet(runs))
        result->paired.emplace(runs, baseline);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const RunSummary &s = runs[i].summary;
        result->directories << runs[i].directory;
        result->runTips << QStringLiteral("<b>#%1 %2</b><br/>%3 @ %4 (%5)<br/>I/O: %6<br/>started %7<br/>%8")
                               .arg(QString::number(i + 1), result->table.labels()[qsizetype(i)].toHtmlEscaped(),
                                    s.model.toHtmlEscaped(), s.targetUrl.toHtmlEscaped(),
                                    s.apiAndTransport().toHtmlEscaped(), runs[i].io().text().toHtmlEscaped(),
                                    s.startedAt.toHtmlEscaped(),
                                    QDir::toNativeSeparators(runs[i].directory).toHtmlEscaped());
    }
    return result;
}

QString metricUnit(Metric metric)
{
    return metric == Metric::Itl || metric == Metric::Tpot ? QObject::tr("ms per token") : QObject::tr("ms");
}

} // namespace

ComparisonView::ComparisonView(QWidget *parent)
    : QWidget(parent)
    , m_model(new ComparisonModel(this))
    , m_pairedModel(new PairedDeltaModel(this))
    , m_heading(new QLabel(this))
    , m_subheading(new QLabel(this))
    , m_baselineBox(new QComboBox(this))
    , m_markBaseline(new QPushButton(tr("Mark as Baseline"), this))
    , m_banner(new QLabel(this))
    , m_bannerArea(new QScrollArea(this))
    , m_strip(new HeadlineStrip(this))
    , m_table(new QTableView(this))
    , m_pairedTable(new QTableView(this))
    , m_tabs(new QTabWidget(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_cdf(new DistributionChart)
    , m_throughput(new TimeChart(tr("Throughput over time"), tr("output tokens/s")))
    , m_curve(new ThroughputLatencyChart)
    , m_cdfView(new ChartView(m_cdf, this))
    , m_throughputView(new ChartView(m_throughput, this))
    , m_curveView(new ChartView(m_curve, this))
    , m_cdfBox(new QComboBox(this))
    , m_throughputBox(new QComboBox(this))
    , m_curveBox(new QComboBox(this))
{
    setObjectName(QStringLiteral("comparisonView"));
    m_table->setObjectName(QStringLiteral("comparisonTable"));
    m_banner->setObjectName(QStringLiteral("comparisonBanner"));
    m_baselineBox->setObjectName(QStringLiteral("baselineBox"));

    // Heading and actions.
    QFont headingFont = m_heading->font();
    headingFont.setPointSizeF(headingFont.pointSizeF() * 1.3);
    headingFont.setBold(true);
    m_heading->setFont(headingFont);
    setTextColor(m_subheading, QColor(0x4b, 0x55, 0x63));
    m_subheading->setWordWrap(true);
    // Filled once the runs are read, after the view is shown: the box follows its items.
    m_baselineBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_baselineBox->setToolTip(tr("The run the others are compared with: deltas and noise tests are against it"));
    m_markBaseline->setToolTip(tr("Remember this baseline: comparisons open against it, and the run history shows "
                                  "each later run's change against it"));
    auto *copy = new QPushButton(tr("Copy Table"), this);
    copy->setToolTip(tr("Copy the table (values and changes) for a spreadsheet or a document"));
    auto *csv = new QPushButton(tr("Save CSV…"), this);
    auto *report = new QPushButton(tr("Save Report…"), this);
    report->setToolTip(tr("A self-contained HTML report: the table, the charts and each run's configuration; it "
                          "opens offline in any browser and prints on A4"));
    report->setObjectName(QStringLiteral("saveReportButton"));
    connect(copy, &QPushButton::clicked, this, &ComparisonView::copyTable);
    connect(csv, &QPushButton::clicked, this, &ComparisonView::saveCsvDialog);
    connect(report, &QPushButton::clicked, this, &ComparisonView::saveReportDialog);
    connect(m_markBaseline, &QPushButton::clicked, this, &ComparisonView::markBaseline);
    connect(m_baselineBox, &QComboBox::activated, this, &ComparisonView::setBaseline);

    // Two rows, so that the heading keeps its width beside the baseline and the saving buttons
    // beside a side panel: the title and the baseline above, what it says and the saving below.
    auto *baselineRow = new QHBoxLayout;
    baselineRow->addWidget(new QLabel(tr("Baseline:"), this));
    baselineRow->addWidget(m_baselineBox);
    baselineRow->addWidget(m_markBaseline);
    auto *saveRow = new QHBoxLayout;
    saveRow->addStretch(1);
    saveRow->addWidget(copy);
    saveRow->addWidget(csv);
    saveRow->addWidget(report);
    auto *top = new QGridLayout;
    top->setVerticalSpacing(2);
    top->setHorizontalSpacing(12);
    top->addWidget(m_heading, 0, 0);
    top->addWidget(m_subheading, 1, 0);
    top->addLayout(baselineRow, 0, 1, Qt::AlignRight);
    top->addLayout(saveRow, 1, 1, Qt::AlignRight | Qt::AlignTop);
    top->setColumnStretch(0, 1);

    m_banner->setWordWrap(true);
    m_banner->setTextFormat(Qt::RichText);
    m_banner->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::LinksAccessibleByMouse |
                                      Qt::LinksAccessibleByKeyboard);
    connect(m_banner, &QLabel::linkActivated, this,
            [this](const QString &link) { showBannerDetails(link == QLatin1String("#details")); });
    AppTheme::setStyleSheet(m_banner, QStringLiteral("QLabel { background: #fff8eb; border-left: 4px solid #d97706; "
                                                     "padding: 6px 10px; color: #1f2937; }"));
    // A long banner (many differences, notes) scrolls within a few lines: the table keeps its rows.
    m_bannerArea->setObjectName(QStringLiteral("comparisonBannerArea"));
    m_bannerArea->setWidget(m_banner);
    m_bannerArea->setWidgetResizable(true);
    m_bannerArea->setFrameShape(QFrame::NoFrame);
    m_bannerArea->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_bannerArea->hide();
    m_strip->hide();

    // The table.
    m_table->setModel(m_model);
    m_table->setItemDelegate(new ComparisonDelegate(m_table));
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() * 2 + 4);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    m_table->horizontalHeader()->setMinimumSectionSize(60);
    m_table->setSelectionMode(QAbstractItemView::ContiguousSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    AppTheme::setStyleSheet(m_table, QStringLiteral("QTableView { gridline-color: #e5e7eb; }"));
    auto *copyShortcut = new QAction(tr("Copy Table"), m_table);
    copyShortcut->setShortcut(QKeySequence::Copy);
    copyShortcut->setShortcutContext(Qt::WidgetShortcut);
    connect(copyShortcut, &QAction::triggered, this, &ComparisonView::copyTable);
    m_table->addAction(copyShortcut);

    m_pairedTable->setModel(m_pairedModel);
    m_pairedTable->setItemDelegate(new ComparisonDelegate(m_pairedTable));
    m_pairedTable->verticalHeader()->hide();
    m_pairedTable->verticalHeader()->setDefaultSectionSize(m_table->verticalHeader()->defaultSectionSize());
    m_pairedTable->horizontalHeader()->setDefaultAlignment(Qt::AlignCenter);
    m_pairedTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_pairedTable->setWordWrap(false);
    AppTheme::setStyleSheet(m_pairedTable, QStringLiteral("QTableView { gridline-color: #e5e7eb; }"));

    // The charts.
    for (const Metric m : {Metric::Ttft, Metric::E2e, Metric::Itl, Metric::Tpot})
        m_cdfBox->addItem(tr("%1 distribution (CDF)").arg(metricLabel(m)), int(m));
    m_throughputBox->setObjectName(QStringLiteral("overTimeBox"));
    m_throughputBox->addItem(tr("Output tokens/s"), int(OverTime::OutputTokens));
    m_throughputBox->addItem(tr("Successful requests/s"), int(OverTime::Requests));
    for (const Metric m : {Metric::Ttft, Metric::E2e})
        m_curveBox->addItem(tr("%1 against throughput").arg(metricLabel(m)), int(m));
    connect(m_cdfBox, &QComboBox::activated, this,
            [this](int index) { setCdfMetric(Metric(m_cdfBox->itemData(index).toInt())); });
    connect(m_throughputBox, &QComboBox::activated, this, [this] { updateThroughput(); });
    connect(m_curveBox, &QComboBox::activated, this,
            [this](int index) { setCurveMetric(Metric(m_curveBox->itemData(index).toInt())); });
    m_cdf->setMode(DistributionChart::Mode::Cdf);
    // Whole (--no-stream) responses succeed without a TTFT: "no successful requests" was false there.
    m_cdfView->setEmptyText(tr("No request of these runs has this metric (TTFT, TPOT and ITL need streamed "
                               "responses): pick another above"));
    m_throughputView->setEmptyText(tr("No time series in these runs"));
    m_curveView->setEmptyText(tr("No staged runs here. A run with several load stages (e.g. c=1, c=4, c=16) shows "
                                 "how its latency grows with the throughput it reaches."));
    for (ChartView *view : {m_cdfView, m_throughputView, m_curveView}) {
        // The splitter above may give the table most of the height, but not the axes' labels:
        // below this QtCharts cuts every tick and title to "…".
        view->setMinimumHeight(view->fontMetrics().lineSpacing() * 8);
        connect(view, &ChartView::exported, this, &ComparisonView::saved);
    }
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_cdfView, tr("Latency Distribution"));
    m_tabs->addTab(m_throughputView, tr("Throughput over Time"));
    m_tabs->addTab(m_curveView, tr("Throughput vs Latency"));
    m_tabs->setCornerWidget(chartControls(), Qt::TopRightCorner);
    auto *pairedPage = new QWidget(this);
    auto *pairedLayout = new QVBoxLayout(pairedPage);
    auto *pairedNote = new QLabel(tr("Interleaved session: every request went to each target at the same moment. "
                                     "Each cell is the median over those requests of (run − baseline) for the same "
                                     "request; green or red where its 95% confidence interval excludes 0."),
                                  pairedPage);
    pairedNote->setWordWrap(true);
    setTextColor(pairedNote, QColor(0x4b, 0x55, 0x63));
    pairedLayout->addWidget(pairedNote);
    pairedLayout->addWidget(m_pairedTable, 1);
    m_tabs->addTab(pairedPage, tr("Paired Deltas"));
    m_tabs->setTabVisible(PairedTab, false);

    m_splitter->setObjectName(QStringLiteral("comparisonSplitter"));
    m_splitter->addWidget(m_table);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    m_table->setMinimumHeight(m_table->verticalHeader()->defaultSectionSize() +
                              m_table->horizontalHeader()->sizeHint().height());

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_strip);
    layout->addWidget(m_bannerArea);
    layout->addWidget(m_splitter, 1);
    updateHeader();
}

ComparisonView::~ComparisonView()
{
    m_jobs.stop();
}

QWidget *ComparisonView::chartControls()
{
    // Beside the tabs, not above the chart: on a laptop every line of height goes to the plot.
    auto *controls = new QWidget(this);
    // A push button: it sets its menu arrow beside the text, where a tool button draws it over the
    // text's last letter.
    auto *exportButton = new QPushButton(tr("Export Chart"), controls);
    exportButton->setToolTip(tr("Save this chart as PNG, SVG or PDF in the light report theme"));
    auto *menu = new QMenu(exportButton);
    menu->addAction(tr("For a Slide (16:9)…"), this,
                    [this] { exportChartDialog(ChartTab(m_tabs->currentIndex()), ChartExporter::Page::Slide); });
    menu->addAction(tr("For an A4 Page…"), this,
                    [this] { exportChartDialog(ChartTab(m_tabs->currentIndex()), ChartExporter::Page::A4); });
    exportButton->setMenu(menu);
    auto *row = new QHBoxLayout(controls);
    row->setContentsMargins(0, 0, 0, 2);
    for (QComboBox *selector : {m_cdfBox, m_throughputBox, m_curveBox})
        row->addWidget(selector);
    row->addWidget(exportButton);
    const auto showFor = [this, exportButton](int tab) {
        m_cdfBox->setVisible(tab == CdfTab);
        m_throughputBox->setVisible(tab == ThroughputTab);
        m_curveBox->setVisible(tab == CurveTab);
        exportButton->setVisible(chartView(ChartTab(tab)) != nullptr);
    };
    connect(m_tabs, &QTabWidget::currentChanged, controls, showFor);
    showFor(m_tabs->currentIndex());
    return controls;
}

ChartView *ComparisonView::chartView(ChartTab tab) const
{
    switch (tab) {
    case CdfTab:
        return m_cdfView;
    case ThroughputTab:
        return m_throughputView;
    case CurveTab:
        return m_curveView;
    case PairedTab:
        break;
    }
    return nullptr;
}

void ComparisonView::openDirectories(const QStringList &arguments)
{
    m_jobs.runLatest(
        [arguments](const CancelToken &cancel) {
            LoadedRuns loaded = LoadedRuns::load(arguments, LoadedRuns::Skip);
            // One run of several instances or models stands for them, as `compare` does.
            if (!expandSingleRunInstances(loaded.runs))
                expandSingleRunModels(loaded.runs);
            // The marked baseline, when it is among the runs.
            int baseline = 0;
            for (std::size_t i = 0; i < loaded.runs.size(); ++i) {
                if (Baseline::isBaseline(loaded.runs[i].directory))
                    baseline = int(i);
            }
            Staged staged = splitSingleStaged(loaded.runs);
            auto runs = std::make_shared<const std::vector<RunData>>(std::move(loaded.runs));
            auto result = computeResult(*runs, baseline, cancel);
            return std::tuple(runs, staged, result, loaded.notes + loaded.problems);
        },
        [this](const auto &done) {
            const auto &[runs, staged, result, problems] = done;
            present(runs, staged, result, problems, true);
        });
    updateHeader();
}

ComparisonView::Staged ComparisonView::splitSingleStaged(std::vector<RunData> &runs)
{
    if (runs.size() != 1)
        return nullptr;
    std::vector<RunData> stages = splitByStage(runs.front());
    if (stages.empty())
        return nullptr;
    auto staged = std::make_shared<const StagedRun>(StagedRun{runs.front().label(), runs.front().summary});
    runs = std::move(stages);
    return staged;
}

void ComparisonView::compute(const Runs &runs, const Staged &staged, int baseline, const QStringList &problems)
{
    const bool newRuns = runs != m_runs;
    m_jobs.runLatest([runs, baseline](const CancelToken &cancel) { return computeResult(*runs, baseline, cancel); },
                     [this, runs, staged, problems, newRuns](const auto &result) {
                         present(runs, staged, result, problems, newRuns);
                     });
}

void ComparisonView::setBaseline(int run)
{
    if (!m_runs || run < 0 || run >= runCount() || (run == m_baseline && m_result))
        return;
    m_baseline = run;
    compute(m_runs, m_staged, run, m_problems);
}

void ComparisonView::present(Runs runs, Staged staged, std::shared_ptr<const ComparisonResult> result,
                             QStringList problems, bool newRuns)
{
    m_runs = std::move(runs);
    m_staged = std::move(staged);
    m_result = std::move(result);
    m_problems = std::move(problems);
    m_baseline = m_result->table.baseline();
    m_model->setResult(m_result);
    m_strip->setTable(m_result->table);
    m_pairedModel->setResult(m_result);
    m_tabs->setTabVisible(PairedTab, m_result->paired && m_result->paired->hasPairs());

    {
        const QSignalBlocker blocker(m_baselineBox);
        m_baselineBox->clear();
        const QStringList &labels = m_result->table.labels();
        const QStringList shown = ComparisonModel::distinguishingLabels(labels);
        const QFontMetrics metrics = m_baselineBox->fontMetrics();
        for (qsizetype i = 0; i < labels.size(); ++i) {
            // What tells the runs apart, at a width the heading's row can give; the whole name in the tooltip.
            m_baselineBox->addItem(metrics.elidedText(QStringLiteral("#%1 %2").arg(QString::number(i + 1), shown[i]),
                                                      Qt::ElideMiddle,
                                                      kBaselineTextWidth * metrics.averageCharWidth()));
            m_baselineBox->setItemData(int(i), QDir::toNativeSeparators(m_result->directories.value(i)),
                                       Qt::ToolTipRole);
        }
        m_baselineBox->setCurrentIndex(m_baseline);
    }
    // Values stay together at a readable width; the metric column takes the rest (its name, and
    // which way is better).
    for (QTableView *table : {m_table, m_pairedTable}) {
        QHeaderView *header = table->horizontalHeader();
        header->setSectionResizeMode(ComparisonModel::MetricColumn, QHeaderView::Stretch);
        header->setSectionResizeMode(ComparisonModel::UnitColumn, QHeaderView::ResizeToContents);
        for (int column = ComparisonModel::FirstRunColumn; column < table->model()->columnCount(); ++column) {
            header->setSectionResizeMode(column, QHeaderView::Interactive);
            table->resizeColumnToContents(column);
            header->resizeSection(column, std::max(kRunColumnWidth, header->sectionSize(column)));
        }
    }

    if (newRuns) {
        rebuildCharts();
        // A sweep opened alone is about its knee.
        if (m_staged)
            m_tabs->setCurrentIndex(CurveTab);
    }
    updateBanner();
    updateHeader();
    if (newRuns) {
        // Laid out with the banner first: the table gets its rows of what is left, the charts the rest.
        if (QLayout *own = layout())
            own->activate();
        showTableRows();
    }
    Q_EMIT titleChanged(title());
    Q_EMIT loaded();
    if (newRuns && !m_problems.isEmpty())
        Q_EMIT problemsFound(m_problems);
}

int ComparisonView::runCount() const
{
    return m_runs ? int(m_runs->size()) : 0;
}

QString ComparisonView::title() const
{
    if (!m_result || m_result->table.labels().isEmpty())
        return tr("Compare");
    if (m_staged)
        return tr("Sweep: %1").arg(m_staged->label);
    const QString names = m_result->table.labels().join(QStringLiteral(" · "));
    return names.size() <= 48 ? tr("Compare: %1").arg(names) : tr("Compare: %1 runs").arg(runCount());
}

void ComparisonView::rebuildCharts()
{
    updateCdf();
    updateThroughput();
    updateCurve();
    const QString subtitle = m_staged          ? tr("Stages of %1").arg(m_staged->label)
                             : runCount() == 1 ? tr("One run")
                                               : tr("Comparison of %1 runs").arg(runCount());
    // What was measured, under each exported figure: a line a run (a sweep's stages share one).
    QStringList caption;
    const std::size_t described = m_staged ? 1 : std::min<std::size_t>(m_runs->size(), 4);
    for (std::size_t i = 0; i < described; ++i) {
        const RunData &run = m_runs->at(i);
        if (run.hasInfo)
            caption << (described > 1 ? QStringLiteral("#%1 ").arg(i + 1) : QString()) + run.info.workloadCaption();
    }
    if (!m_staged && m_runs->size() > described)
        caption << tr("and %1 more runs").arg(m_runs->size() - described);
    // A stopped run's figures cover less than it planned: every figure drawn from it says so.
    if (m_staged && m_staged->summary.partial())
        caption << m_staged->summary.partialNote();
    for (std::size_t i = 0; !m_staged && i < m_runs->size(); ++i) {
        if (const QString partial = m_runs->at(i).summary.partialNote(); !partial.isEmpty())
            caption << QStringLiteral("#%1 %2").arg(i + 1).arg(partial);
    }
    for (ChartView *view : {m_cdfView, m_throughputView, m_curveView}) {
        view->setExportSubtitle(subtitle);
        view->setExportCaption(caption.join(QLatin1Char('\n')));
    }
}

void ComparisonView::setCdfMetric(Metric metric)
{
    m_cdfMetric = metric;
    m_cdfBox->setCurrentIndex(std::max(0, m_cdfBox->findData(int(metric))));
    updateCdf();
}

void ComparisonView::setCurveMetric(Metric metric)
{
    m_curveMetric = metric;
    m_curveBox->setCurrentIndex(std::max(0, m_curveBox->findData(int(metric))));
    updateCurve();
}

void ComparisonView::updateCdf()
{
    QList<DistributionSeries> series;
    for (int i = 0; i < runCount(); ++i)
        series << DistributionSeries{m_result->table.labels()[i],
                                     m_runs->at(std::size_t(i)).summary.total.histogram(m_cdfMetric),
                                     ComparisonModel::runColor(i), false};
    const QString label = metricLabel(m_cdfMetric);
    m_cdf->setTitle(tr("%1 — share of %2 at or below each value")
                        .arg(label, m_cdfMetric == Metric::Itl ? tr("tokens") : tr("requests")));
    m_cdf->setQuantity(label, metricUnit(m_cdfMetric), chartstyle::describe(m_cdfMetric),
                       m_cdfMetric == Metric::Itl ? tr("tokens") : tr("requests"));
    m_cdf->setDistributions(series);
    m_cdfView->moveTitleToExports();
    m_cdfView->setEmpty(!m_cdf->hasData());
    m_cdfView->updateTooltips();
}

void ComparisonView::updateThroughput()
{
    // The GPUs' power is offered when every run has it (--gpu-metrics): a run without would be a
    // line that is not there, read as a run that drew nothing.
    const bool gpu = runCount() > 0 && std::all_of(m_runs->begin(), m_runs->end(),
                                                   [](const RunData &run) { return !run.gpuTrace.empty(); });
    const int gpuItem = m_throughputBox->findData(int(OverTime::GpuPower));
    if (gpu && gpuItem < 0)
        m_throughputBox->addItem(tr("GPU power, W (Σ GPUs)"), int(OverTime::GpuPower));
    else if (!gpu && gpuItem >= 0)
        m_throughputBox->removeItem(gpuItem);
    const auto what = OverTime(m_throughputBox->currentData().toInt());
    m_throughput->removeLines();
    const Quantity quantity = what == OverTime::OutputTokens ? Quantity::OutputTokens
                              : what == OverTime::Requests   ? Quantity::Requests
                                                             : Quantity::GpuPower;
    m_throughput->setTitle(what == OverTime::OutputTokens ? tr("Output tokens per second over the run")
                           : what == OverTime::Requests   ? tr("Successful requests per second over the run")
                                                          : tr("GPU power over the run (Σ GPUs)"));
    m_throughput->leftAxis()->setTitleText(what == OverTime::OutputTokens ? tr("output tokens/s")
                                           : what == OverTime::Requests   ? tr("requests/s")
                                                                          : tr("power (W)"));
    double end = 0;
    for (int i = 0; i < runCount(); ++i) {
        const RunData &run = m_runs->at(std::size_t(i));
        QLineSeries *line = m_throughput->addLine(m_result->table.labels()[i], ComparisonModel::runColor(i), false,
                                                  chartstyle::describe(quantity));
        if (what == OverTime::GpuPower) {
            QList<QPointF> points;
            for (const GpuTrace::Row &row : run.gpuTrace.rows) {
                if (!std::isnan(row.powerWSum))
                    points << QPointF(row.tS, row.powerWSum);
            }
            line->replace(decimate(points, TimeChart::kMaxPoints, Reduce::Mean));
            if (!run.gpuTrace.empty())
                end = std::max(end, run.gpuTrace.rows.back().tS);
            continue;
        }
        const bool tokens = what == OverTime::OutputTokens;
        line->replace(timePoints(
            run.timeSeries,
            [tokens](const TimeSeriesRow &r) { return tokens ? double(r.outputTokens) : double(r.completed); },
            Reduce::Mean, TimeChart::kMaxPoints));
        if (!run.timeSeries.empty())
            end = std::max(end, double(run.timeSeries.back().second + 1));
    }
    m_throughput->rescale(end);
    m_throughputView->moveTitleToExports();
    m_throughputView->setEmpty(!m_throughput->hasData());
    m_throughputView->updateTooltips();
}

void ComparisonView::updateCurve()
{
    QList<ThroughputLatencyChart::Curve> curves;
    if (m_staged) {
        curves << ThroughputLatencyChart::Curve{m_staged->label, ComparisonModel::runColor(0),
                                                throughputLatencyCurve(m_staged->summary, m_curveMetric)};
    } else {
        for (int i = 0; i < runCount(); ++i)
            curves << ThroughputLatencyChart::Curve{
                m_result->table.labels()[i], ComparisonModel::runColor(i),
                throughputLatencyCurve(m_runs->at(std::size_t(i)).summary, m_curveMetric)};
    }
    // Runs of one load level each: a labelled point per run still shows which bought what.
    const bool staged = std::any_of(curves.begin(), curves.end(), [](const auto &c) { return !c.points.empty(); });
    for (int i = 0; !staged && i < curves.size(); ++i) {
        const SummaryBlock &total = m_runs->at(std::size_t(i)).summary.total;
        const LatencyStats &s = total.stat(m_curveMetric);
        if (s.count > 0 && std::isfinite(s.p50))
            curves[i].points.push_back({curves[i].name, total.throughput.requestsPerS, s.p50, s.p99});
    }
    m_curve->setMetricLabel(metricLabel(m_curveMetric));
    m_curve->setCurves(curves);
    m_curveView->moveTitleToExports();
    m_curveView->setEmpty(!m_curve->hasData());
    m_curveView->updateTooltips();
}

void ComparisonView::updateBanner()
{
    QStringList parts;
    QStringList counts;
    if (!m_problems.isEmpty()) {
        QString text = tr("<b>Not compared</b> — these folders could not be read:");
        for (const QString &p : std::as_const(m_problems))
            text += QStringLiteral("<br/>• ") + p.toHtmlEscaped();
        parts << text;
        counts << tr("<b>Not compared</b> (%1): folders that could not be read").arg(m_problems.size());
    }
    if (m_result && !m_result->table.warnings().isEmpty()) {
        QString text = tr("<b>Workload differences</b> — these runs measured different things; compare with care:");
        for (const QString &w : m_result->table.warnings())
            text += QStringLiteral("<br/>• ") + w.toHtmlEscaped();
        parts << text;
        counts << tr("<b>Workload differences</b> (%1): these runs measured different things")
                      .arg(m_result->table.warnings().size());
    }
    QString notes;
    int noteCount = 0;
    for (std::size_t i = 0; m_runs && i < m_runs->size(); ++i) {
        for (const QString &note : m_runs->at(i).notes) {
            notes += QStringLiteral("<br/>• #%1: %2").arg(QString::number(i + 1), note.toHtmlEscaped());
            ++noteCount;
        }
    }
    for (const QString &note : m_result ? m_result->table.notes() : QStringList()) {
        notes += QStringLiteral("<br/>• ") + note.toHtmlEscaped();
        ++noteCount;
    }
    if (!notes.isEmpty()) {
        parts << tr("<b>Notes</b>") + notes;
        counts << tr("<b>Notes</b> (%1)").arg(noteCount);
    }
    m_bannerDetails = parts.join(QStringLiteral("<br/>"));
    m_bannerSummary = counts.join(QStringLiteral(" · "));
    showBanner();
}

void ComparisonView::showBannerDetails(bool show)
{
    m_bannerExpanded = show;
    showBanner();
}

void ComparisonView::showBanner()
{
    // Collapsed to one line: at 1280×800 every line the banner takes comes off the charts, and
    // four lines of it left their axes cut to "…".
    m_banner->setText(m_bannerExpanded
                          ? m_bannerDetails + QStringLiteral("<br/><a href=\"#summary\">%1</a>").arg(tr("Hide details"))
                          : m_bannerSummary + QStringLiteral(" — <a href=\"#details\">%1</a>").arg(tr("Show details")));
    m_bannerArea->setVisible(!m_bannerDetails.isEmpty());
    fitBanner();
}

void ComparisonView::fitBanner()
{
    constexpr int kBannerLines = 4;
    const int most = m_banner->fontMetrics().lineSpacing() * kBannerLines + 12;
    const int needs = m_banner->heightForWidth(m_bannerArea->viewport()->width());
    m_bannerArea->setFixedHeight(std::min(most, needs > 0 ? needs : m_banner->sizeHint().height()));
}

void ComparisonView::showTableRows()
{
    const int rows = std::min(m_model->rowCount(), kTableRowsShown);
    const int needs = m_table->horizontalHeader()->sizeHint().height() +
                      rows * m_table->verticalHeader()->defaultSectionSize() + 2 * m_table->frameWidth() +
                      m_table->horizontalScrollBar()->sizeHint().height();
    const int total = std::max(m_splitter->height(), needs + m_tabs->minimumSizeHint().height());
    m_splitter->setSizes({needs, total - needs});
}

void ComparisonView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitBanner();
}

void ComparisonView::updateHeader()
{
    if (!m_result) {
        m_heading->setText(isLoading() ? tr("Reading the runs…") : tr("Nothing to compare yet"));
        m_subheading->setText(tr("Open runs from the Compare menu, or drop run folders on the window."));
        m_markBaseline->setEnabled(false);
        m_baselineBox->setEnabled(false);
        return;
    }
    m_heading->setText(m_staged          ? tr("Sweep %1: %2 stages").arg(m_staged->label).arg(runCount())
                       : runCount() == 1 ? tr("One run")
                                         : tr("Comparison of %1 runs").arg(runCount()));
    QString sub;
    if (m_staged) {
        const auto knee = findKnee(m_staged->summary);
        sub = tr("Each stage is a column, against the first; the curve below rings the knee.") +
              (knee ? QStringLiteral(" ") + knee->text : QString());
    } else if (const auto session = runCount() > 0 ? SessionInfo::sessionOf(m_runs->front().directory) : std::nullopt) {
        const bool interleaved = m_result->paired.has_value();
        sub = interleaved ? tr("Interleaved session “%1”: each request went to every target at the same moment, so "
                               "conditions match; see Paired Deltas.")
                                .arg(session->second.name)
                          : tr("Session “%1” (%2), %3")
                                .arg(session->second.name, sessionModeName(session->second.mode),
                                     QDir::toNativeSeparators(session->first));
    } else {
        sub = tr("Saved runs. Best values in bold with ★; under each value its change against the baseline — green "
                 "or red where it is larger than run-to-run noise.");
    }
    m_subheading->setText(sub);
    const bool marked = Baseline::isBaseline(m_result->directories.value(m_baseline));
    m_markBaseline->setText(marked ? tr("Baseline Marked ✓") : tr("Mark as Baseline"));
    m_markBaseline->setEnabled(!marked);
    m_baselineBox->setEnabled(runCount() > 1);
}

void ComparisonView::copyTable()
{
    QApplication::clipboard()->setText(m_model->toTsv());
}

void ComparisonView::markBaseline()
{
    if (!m_result)
        return;
    const QString directory = m_result->directories.value(m_baseline);
    Baseline::setDirectory(directory);
    updateHeader();
    Q_EMIT baselineMarked(directory);
}

bool ComparisonView::saveReport(const QString &path, QString *error) const
{
    if (!m_runs || m_runs->empty()) {
        *error = tr("nothing to report yet");
        return false;
    }
    HtmlReport::Options options;
    options.baseline = m_baseline;
    return HtmlReport(*m_runs, options).write(path, error);
}

bool ComparisonView::saveCsv(const QString &path, QString *error) const
{
    if (!m_result) {
        *error = tr("nothing to save yet");
        return false;
    }
    QSaveFile file(path);
    const QByteArray csv = m_result->table.toCsv();
    if (!file.open(QIODevice::WriteOnly) || file.write(csv) != csv.size() || !file.commit()) {
        *error = tr("cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
        return false;
    }
    return true;
}

bool ComparisonView::exportChart(ChartTab tab, const QString &path, ChartExporter::Page page, QString *error) const
{
    const ChartView *view = chartView(tab);
    if (!view) {
        *error = tr("this tab has no chart");
        return false;
    }
    return ChartExporter::save(view->chart(), path, view->exportOptions(page), error);
}

void ComparisonView::saveDialog(const QString &caption, const QString &name, const QString &filter,
                                const std::function<bool(const QString &, QString *)> &save)
{
    askForSaveFile(this, caption, name, filter, [this, save](const QString &path) {
        QString error;
        if (save(path, &error))
            Q_EMIT saved(path, {});
        else
            Q_EMIT saved({}, error);
    });
}

void ComparisonView::saveReportDialog()
{
    saveDialog(tr("Save Report"), QStringLiteral("comparison.html"), tr("HTML report (*.html)"),
               [this](const QString &path, QString *error) { return saveReport(path, error); });
}

void ComparisonView::saveCsvDialog()
{
    saveDialog(tr("Save Table as CSV"), QStringLiteral("comparison.csv"), tr("CSV (*.csv)"),
               [this](const QString &path, QString *error) { return saveCsv(path, error); });
}

void ComparisonView::exportChartDialog(ChartTab tab, ChartExporter::Page page)
{
    const QString name = (tab == CdfTab          ? QStringLiteral("comparison-cdf")
                          : tab == ThroughputTab ? QStringLiteral("comparison-throughput")
                                                 : QStringLiteral("comparison-curve")) +
                         QStringLiteral(".png");
    saveDialog(tr("Export Chart"), name, ChartExporter::fileFilter(),
               [this, tab, page](const QString &path, QString *error) { return exportChart(tab, path, page, error); });
}

} // namespace tb
