#include "views/dashboardview.h"

#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "charts/comparisoncharts.h"
#include "charts/contextsweepchart.h"
#include "charts/timechart.h"
#include "charts/tokenchart.h"
#include "charts/turnchart.h"
#include "formats/numberformat.h"
#include "views/rundocument.h"
#include "widgets/card.h"
#include "widgets/kpitile.h"

#include "analysis/comparison.h"
#include "analysis/metriccatalogue.h"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QResizeEvent>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>

namespace tb {

namespace {

/// Seconds of the most recent complete rows that the "last N s" tile details average over.
constexpr int kRecentSeconds = 5;

enum LatencyLine { TtftP50, TtftP99, E2eP50, E2eP99 };
enum ThroughputLine { RequestsLine, TokensLine };
enum InFlightLine { InFlightActual, InFlightTarget };
enum ServerLine { ServerRunning, ServerWaiting, ServerTtft, ClientTtft };
/// The GPU chart's lines: the sum and the mean, then per GPU (with two or more) its power and,
/// dashed, its utilisation.
enum GpuLine { GpuPowerSum, GpuUtilMean, FirstGpuLine };
/// GPUs whose own lines get legend entries: more do not fit beside the sum's and the mean's.
constexpr std::size_t kGpusInLegend = 4;

/// A colour of the light look for rich text, in the screen's theme.
QString htmlColor(const QColor &light)
{
    return chartstyle::themed(light, chartstyle::screenTheme()).name();
}

struct TileSpec {
    const char *key;
    const char *caption;
    const char *unit;
    Quantity quantity;
    QString description;
};

QString formatClock(std::int64_t ms)
{
    const std::int64_t s = (ms + 999) / 1000;
    return s >= 60 ? QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'))
                   : QStringLiteral("%1 s").arg(s);
}

/// A line of words above a chart: what its legend has no room for.
void styleNote(QLabel *note, const QString &name)
{
    note->setObjectName(name);
    note->setContentsMargins(8, 4, 8, 0);
    note->setWordWrap(true);
    setTextColor(note, QColor(0x4b, 0x55, 0x63));
}

QWidget *card(QWidget *content, QWidget *header = nullptr)
{
    auto *frame = new Card;
    frame->setObjectName(QStringLiteral("chartCard"));
    auto *layout = new QVBoxLayout(frame);
    layout->setContentsMargins(1, 1, 1, 1);
    layout->setSpacing(0);
    if (header)
        layout->addWidget(header);
    layout->addWidget(content);
    return frame;
}

} // namespace

DashboardView::DashboardView(RunDocument *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_stack(new QStackedWidget(this))
    , m_title(new QLabel(this))
    , m_subtitle(new QLabel(this))
    , m_errorNote(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_tileGrid(new QGridLayout)
    , m_chartGrid(new QGridLayout)
    , m_latency(new TimeChart(tr("Latency over time"), tr("TTFT (ms)")))
    , m_throughput(new TimeChart(tr("Throughput"), tr("requests/s")))
    , m_inFlight(new TimeChart(tr("Concurrency"), tr("requests in flight")))
    , m_errors(new TimeChart(tr("Errors by status"), tr("errors/s")))
    , m_distribution(new DistributionChart)
    , m_tokens(new TokenChart)
    , m_server(new TimeChart(tr("Server"), tr("requests")))
    , m_serverNote(new QLabel(this))
    , m_gpu(new TimeChart(tr("GPU"), tr("power (W)")))
    , m_gpuNote(new QLabel(this))
    , m_curve(new ThroughputLatencyChart)
    , m_kneeNote(new QLabel(this))
    , m_turns(new TurnChart)
    , m_context(new ContextSweepChart)
    , m_contextNote(new QLabel(this))
    , m_metricBox(new QComboBox(this))
    , m_modeBox(new QComboBox(this))
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("dashboard"));
    m_drawn.fill(~quint64(0));
    m_placeholder = new QLabel(m_stack);
    m_placeholder->setObjectName(QStringLiteral("noRunPlaceholder"));
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    setNextTarget({}, true);
    m_stack->addWidget(m_placeholder);

    auto *scroll = new QScrollArea(m_stack);
    scroll->setObjectName(QStringLiteral("dashboardScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto *page = new QWidget;
    page->setObjectName(QStringLiteral("dashboardPage"));
    // Colours by palette, not style sheet: the page repaints often while a run goes.
    setThemedColor(page, QPalette::Window, QColor(0xf4, 0xf5, 0xf7));
    page->setAutoFillBackground(true);
    scroll->setWidget(page);
    m_stack->addWidget(scroll);

    auto *layout = new QVBoxLayout(page);
    layout->setContentsMargins(10, 8, 10, 10);
    layout->setSpacing(8);

    // Header: which run, its state, and (live) the progress with stage and ETA.
    m_title->setObjectName(QStringLiteral("runTitle"));
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    titleFont.setWeight(QFont::DemiBold);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_subtitle->setObjectName(QStringLiteral("runSubtitle"));
    setTextColor(m_subtitle, QColor(0x4b, 0x55, 0x63));
    m_subtitle->setWordWrap(true);
    m_progress->setObjectName(QStringLiteral("runProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(true);
    m_progress->setMinimumWidth(320);
    auto *header = new QGridLayout;
    header->setHorizontalSpacing(16);
    header->addWidget(m_title, 0, 0);
    header->addWidget(m_subtitle, 1, 0);
    m_errorNote->setObjectName(QStringLiteral("runErrors"));
    m_errorNote->setWordWrap(true);
    m_errorNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTextColor(m_errorNote, QColor(0xc6, 0x28, 0x28));
    m_errorNote->hide();
    header->addWidget(m_errorNote, 2, 0, 1, 2);
    header->addWidget(m_progress, 0, 1, 2, 1, Qt::AlignVCenter);
    header->setColumnStretch(0, 1);
    layout->addLayout(header);

    buildTiles(page);
    m_tileGrid->setSpacing(8);
    layout->addLayout(m_tileGrid);

    // Charts.
    const QColor ttft = chartstyle::color(Quantity::Ttft);
    const QColor e2e = chartstyle::color(Quantity::E2e);
    // TTFT and E2E differ by an order of magnitude: each gets its own axis, coloured like its lines,
    // so that a change in either shows.
    m_latency->setLeftAxisColor(ttft);
    m_latency->setRightAxisTitle(tr("E2E (ms)"), e2e);
    m_latency->addLine(tr("TTFT p50"), ttft, false,
                       tr("Median time to first token of the requests that finished in each second"));
    m_latency->addLine(tr("TTFT p99"), ttft, true, tr("99th percentile of TTFT per second: the slow tail"));
    m_latency->addLine(tr("E2E p50"), e2e, false,
                       tr("Median end-to-end latency of the requests that finished in each second"),
                       TimeChart::Side::Right);
    m_latency->addLine(tr("E2E p99"), e2e, true, tr("99th percentile of end-to-end latency per second"),
                       TimeChart::Side::Right);
    const QColor requests = chartstyle::color(Quantity::Requests);
    const QColor tokens = chartstyle::color(Quantity::OutputTokens);
    m_throughput->setLeftAxisColor(requests);
    m_throughput->setRightAxisTitle(tr("output tok/s"), tokens);
    m_throughput->addLine(tr("requests/s"), requests, false, chartstyle::describe(Quantity::Requests));
    m_throughput->addLine(tr("output tok/s"), tokens, false,
                          tr("Output tokens streamed per second by successful requests"), TimeChart::Side::Right);
    m_inFlight->addLine(tr("in flight"), chartstyle::color(Quantity::InFlight), false,
                        chartstyle::describe(Quantity::InFlight));
    m_inFlight->addLine(tr("target"), chartstyle::color(Quantity::Target), true,
                        chartstyle::describe(Quantity::Target));

    m_metricBox->setObjectName(QStringLiteral("distributionMetric"));
    for (const Metric m : {Metric::Ttft, Metric::Tpot, Metric::Itl, Metric::E2e})
        m_metricBox->addItem(metricLabel(m), int(m));
    m_metricBox->setToolTip(tr("Which latency the distribution shows"));
    m_modeBox->setObjectName(QStringLiteral("distributionMode"));
    m_modeBox->addItem(tr("CDF"), int(DistributionChart::Mode::Cdf));
    m_modeBox->addItem(tr("Histogram"), int(DistributionChart::Mode::Histogram));
    m_modeBox->setToolTip(tr("Cumulative distribution or histogram"));
    auto *controls = new QWidget;
    auto *controlsLayout = new QHBoxLayout(controls);
    controlsLayout->setContentsMargins(8, 4, 8, 0);
    controlsLayout->addStretch();
    controlsLayout->addWidget(m_metricBox);
    controlsLayout->addWidget(m_modeBox);
    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
            [this] { setDistributionMetric(Metric(m_metricBox->currentData().toInt())); });
    connect(m_modeBox, &QComboBox::currentIndexChanged, this,
            [this] { setDistributionMode(DistributionChart::Mode(m_modeBox->currentData().toInt())); });

    addChart(QStringLiteral("latency-over-time"), new ChartView(m_latency));
    // The GPUs beside the latency they serve (--gpu-metrics), the card right after it: power against
    // utilisation, both coloured like their lines; the lines follow the GPUs a run finds (refreshGpu()).
    m_gpu->setLeftAxisColor(chartstyle::color(Quantity::GpuPower));
    m_gpu->setRightAxisTitle(tr("utilisation (%)"), chartstyle::color(Quantity::GpuUtil));
    styleNote(m_gpuNote, QStringLiteral("gpuNote"));
    auto *gpuView = new ChartView(m_gpu);
    addChart(QStringLiteral("gpu"), gpuView, card(gpuView, m_gpuNote));
    addChart(QStringLiteral("throughput"), new ChartView(m_throughput));
    addChart(QStringLiteral("concurrency"), new ChartView(m_inFlight));
    auto *distributionView = new ChartView(m_distribution);
    addChart(QStringLiteral("latency-distribution"), distributionView, card(distributionView, controls));
    addChart(QStringLiteral("token-efficiency"), new ChartView(m_tokens));
    addChart(QStringLiteral("errors-by-status"), new ChartView(m_errors));
    // The server's side from its /metrics: the gap between its TTFT and the client's is network
    // plus client; its queue and KV cache say why latency grows.
    const QColor inFlight = chartstyle::color(Quantity::InFlight);
    m_server->setRightAxisTitle(tr("TTFT p50 (ms)"), ttft);
    m_server->addLine(tr("running"), inFlight, false,
                      tr("Requests the server is prefilling or decoding (its own gauge)"));
    m_server->addLine(tr("waiting"), chartstyle::color(Quantity::Errors), false,
                      tr("Requests queued at the server for a batch slot"));
    m_server->addLine(tr("server TTFT p50"), ttft, false,
                      tr("Median time to first token inside the server, from its histogram between two scrapes"),
                      TimeChart::Side::Right);
    m_server->addLine(tr("client TTFT p50"), chartstyle::color(Quantity::E2e), false,
                      tr("Median TTFT measured here: the gap to the server's is network plus client"),
                      TimeChart::Side::Right);
    styleNote(m_serverNote, QStringLiteral("serverNote"));
    auto *serverView = new ChartView(m_server);
    addChart(QStringLiteral("server"), serverView, card(serverView, m_serverNote));
    styleNote(m_kneeNote, QStringLiteral("kneeNote"));
    auto *curveView = new ChartView(m_curve);
    addChart(QStringLiteral("throughput-latency"), curveView, card(curveView, m_kneeNote));
    addChart(QStringLiteral("turns"), new ChartView(m_turns));
    styleNote(m_contextNote, QStringLiteral("contextNote"));
    auto *contextView = new ChartView(m_context);
    addChart(QStringLiteral("context-sweep"), contextView, card(contextView, m_contextNote));
    m_chartGrid->setSpacing(8);
    layout->addLayout(m_chartGrid, 1);
    setDistributionMetric(Metric::Ttft);

    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_stack);

    m_timer->setObjectName(QStringLiteral("dashboardRedrawTimer"));
    m_timer->setInterval(kRedrawIntervalMs);
    connect(m_timer, &QTimer::timeout, this, &DashboardView::tick);
    m_timer->start();
    // A saved or finished run is drawn whole at once. A live run starts while the engine opens its
    // connections: its first picture is drawn by the timer, a part per tick like the rest.
    connect(m_document, &RunDocument::reset, this, [this] {
        if (!m_document->isLive())
            return refresh();
        m_drawn.fill(~quint64(0));
    });
    connect(m_document, &RunDocument::stateChanged, this, [this] {
        if (!m_document->isLive())
            refresh();
    });
    relayout();
    refresh();
}

void DashboardView::setNextTarget(const QString &name, bool simulator)
{
    const QString selected =
        simulator ? tr("The built-in simulator is selected, so a run works without any server.")
                  : tr("The target <b>%1</b> is selected; Test Connection (Ctrl+T) checks that it answers.")
                        .arg(name.toHtmlEscaped());
    m_placeholder->setText(
        tr("<p style='font-size:large'>No run yet.</p>"
           "<p>Choose a target, a workload and a load on the left, then press <b>Run</b> (Ctrl+R).<br>%1</p>"
           "<p>Past runs are listed under <b>Runs</b>; open one with a double click or Ctrl+O.</p>")
            .arg(selected));
}

DashboardView::~DashboardView() = default;

void DashboardView::buildTiles(QWidget *page)
{
    const QList<TileSpec> specs = {
        {"requests_per_s", QT_TR_NOOP("Requests"), "req/s", Quantity::Requests,
         chartstyle::describe(Quantity::Requests)},
        {"output_tokens_per_s", QT_TR_NOOP("Output tokens"), "tok/s", Quantity::OutputTokens,
         tr("Output tokens per second of successful requests over the run")},
        {"ttft_p50", QT_TR_NOOP("TTFT p50"), "", Quantity::Ttft, chartstyle::describe(Metric::Ttft)},
        {"ttft_p99", QT_TR_NOOP("TTFT p99"), "", Quantity::Ttft,
         tr("99% of requests got their first token sooner (from sent). Below: the slowest — or, when it is more "
            "than a tenth longer, what users waited (TTFT from schedule p99: a connect that stalled, the client's "
            "queue)")},
        {"e2e_p99", QT_TR_NOOP("E2E p99"), "", Quantity::E2e, tr("99% of requests finished sooner")},
        {"out_in_ratio", QT_TR_NOOP("Out / in"), "×", Quantity::OutInRatio, chartstyle::describe(Quantity::OutInRatio)},
        {"error_pct", QT_TR_NOOP("Errors"), "%", Quantity::Errors,
         tr("Failed requests / attempted (cancelled ones by Stop are not errors)")},
        {"in_flight", QT_TR_NOOP("In flight / target"), "", Quantity::InFlight,
         tr("Requests on the wire now against the concurrency the stage asks for")},
    };
    for (const TileSpec &spec : specs) {
        auto *tile = new KpiTile(tr(spec.caption), QString::fromUtf8(spec.unit), chartstyle::color(spec.quantity),
                                 spec.description, page);
        tile->setProperty("tileKey", QString::fromLatin1(spec.key));
        m_tiles << tile;
    }
}

void DashboardView::addChart(const QString &key, ChartView *view, QWidget *cardWidget)
{
    view->setObjectName(key);
    view->setFrameShape(QFrame::NoFrame);
    view->setMinimumHeight(220);
    m_charts.append({key, view});
    m_chartCards << (cardWidget ? cardWidget : card(view));
}

ChartView *DashboardView::chartView(const QString &key) const
{
    for (const ChartEntry &entry : m_charts) {
        if (entry.key == key)
            return entry.view;
    }
    return nullptr;
}

KpiTile *DashboardView::tile(const QString &key) const
{
    for (KpiTile *tile : m_tiles) {
        if (tile->property("tileKey").toString() == key)
            return tile;
    }
    return nullptr;
}

void DashboardView::setDistributionMetric(Metric metric)
{
    m_metric = metric;
    const int index = m_metricBox->findData(int(metric));
    if (index >= 0 && index != m_metricBox->currentIndex())
        m_metricBox->setCurrentIndex(index);
    m_distribution->setQuantity(metricLabel(metric), tr("ms"), chartstyle::describe(metric),
                                metric == Metric::Itl ? tr("tokens") : tr("requests"));
    refreshDistribution();
}

void DashboardView::setDistributionMode(DistributionChart::Mode mode)
{
    const int index = m_modeBox->findData(int(mode));
    if (index >= 0 && index != m_modeBox->currentIndex())
        m_modeBox->setCurrentIndex(index);
    m_distribution->setMode(mode);
    refreshDistribution();
}

void DashboardView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    relayout();
}

bool DashboardView::isShown(const QString &key) const
{
    return !((key == QLatin1String("throughput-latency") && !m_showCurve) ||
             (key == QLatin1String("turns") && !m_showTurns) ||
             (key == QLatin1String("context-sweep") && !m_showContext) || (key == QLatin1String("gpu") && !m_showGpu));
}

QList<DashboardView::ChartEntry> DashboardView::shownCharts() const
{
    QList<ChartEntry> shown;
    std::copy_if(m_charts.begin(), m_charts.end(), std::back_inserter(shown),
                 [this](const ChartEntry &chart) { return isShown(chart.key); });
    return shown;
}

void DashboardView::relayout()
{
    const int w = width();
    const int tileColumns = w >= 1000 ? 8 : 4;
    const int chartColumns = w >= 1350 ? 3 : w >= 640 ? 2 : 1;
    if (tileColumns != m_tileColumns) {
        m_tileColumns = tileColumns;
        for (qsizetype i = 0; i < m_tiles.size(); ++i)
            m_tileGrid->addWidget(m_tiles[i], int(i) / tileColumns, int(i) % tileColumns);
    }
    if (chartColumns != m_chartColumns) {
        m_chartColumns = chartColumns;
        // The curve of a run without stages, and the turns of a run without conversations, take no cell.
        int cell = 0;
        for (qsizetype i = 0; i < m_chartCards.size(); ++i) {
            QWidget *cardWidget = m_chartCards[i];
            const QString &key = m_charts[i].key;
            if (!isShown(key)) {
                m_chartGrid->removeWidget(cardWidget);
                cardWidget->hide();
                continue;
            }
            m_chartGrid->addWidget(cardWidget, cell / chartColumns, cell % chartColumns);
            cardWidget->setVisible(true); // after the grid made it a child: a top level would open a window
            ++cell;
        }
        for (int c = 0; c < 3; ++c)
            m_chartGrid->setColumnStretch(c, c < chartColumns ? 1 : 0);
    }
}

void DashboardView::refresh()
{
    if (m_document->isEmpty()) {
        m_stack->setCurrentIndex(0);
        m_drawn.fill(m_document->revision());
        return;
    }
    m_stack->setCurrentIndex(1);
    for (int part = 0; part < PartCount; ++part)
        refreshPart(Part(part));
}

void DashboardView::tick()
{
    const quint64 revision = m_document->revision();
    const quint64 data = m_document->dataRevision();
    if (m_document->isEmpty()) {
        if (m_drawn[HeaderPart] != revision)
            refresh();
        return;
    }
    if (m_stack->currentIndex() != 1) {
        // Showing the page (its first layout and paint) is a tick's work of its own.
        m_stack->setCurrentIndex(1);
        return;
    }
    if (m_drawn[HeaderPart] != revision)
        refreshPart(HeaderPart);
    // One chart per tick, in turn: a redraw (and the repaint it causes) stays short, so the event
    // loop is never held for long even when the cores are busy with the run itself.
    for (int i = 0; i < PartCount - 1; ++i) {
        const Part part = Part(1 + (m_nextChart + i) % (PartCount - 1));
        if (m_drawn[part] != data) {
            refreshPart(part);
            m_nextChart = part % (PartCount - 1);
            break;
        }
    }
}

void DashboardView::refreshPart(Part part)
{
    // The header shows progress; the charts only data.
    m_drawn[part] = part == HeaderPart ? m_document->revision() : m_document->dataRevision();
    switch (part) {
    case HeaderPart:
        refreshHeader();
        refreshTiles();
        return;
    case LatencyPart:
        refreshLatency();
        break;
    case ThroughputPart:
        refreshThroughput();
        break;
    case ConcurrencyPart:
        refreshConcurrency();
        break;
    case DistributionPart:
        refreshDistribution();
        break;
    case TokensPart:
        refreshTokens();
        break;
    case ErrorsPart:
        refreshErrors();
        break;
    case ServerPart:
        refreshServer();
        break;
    case GpuPart:
        refreshGpu();
        break;
    case CurvePart:
        refreshCurve();
        break;
    case TurnsPart:
        refreshTurns();
        break;
    case ContextPart:
        refreshContext();
        break;
    case PartCount:
        return;
    }
    ++m_redraws;
}

void DashboardView::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    // The subtitle's coloured parts are written into its text in the theme of the time.
    if (event->type() == QEvent::PaletteChange)
        refreshHeader();
}

void DashboardView::refreshHeader()
{
    const RunDocument &d = *m_document;
    const RunProgress &p = d.progress();
    const RunSummary &s = d.summary();
    m_title->setText(d.name());

    const TargetConfig &target = d.info().config.target;
    const QString model = !s.model.isEmpty() ? s.model : target.model;
    const QString url = !s.targetUrl.isEmpty() ? s.targetUrl : target.url;
    QStringList parts;
    if (!model.isEmpty() && target.replicas.isEmpty())
        parts << tr("%1 at %2").arg(model, url);
    else if (!model.isEmpty())
        parts << tr("%1 at %2 +%3 replicas, %4")
                     .arg(model, url)
                     .arg(target.replicas.size())
                     .arg(balanceName(target.balance));
    // Live, before a summary counts HTTP versions: the transport the configuration picks.
    const QString transport = s.transportText();
    parts << (transport.isEmpty() ? transportKindName(effectiveTransport(target)) : transport);
    // What its chunk times could see; live, before the first summary, the run's own record of it.
    const IoInfo &io = s.io.recorded() ? s.io : d.info().io;
    parts << tr("I/O: %1").arg(io.text().toHtmlEscaped());
    // A stopped run names the levels it ran, not the plan it never finished.
    QList<StageConfig> ran = d.stages();
    QStringList notReached;
    for (qsizetype i = ran.size(); i-- > 0 && std::size_t(i) < s.stages.size() && !s.stages[std::size_t(i)].reached;) {
        notReached.prepend(s.stages[std::size_t(i)].name);
        ran.removeLast();
    }
    const QString stages = formatStages(ran);
    if (!stages.isEmpty())
        parts << stages;
    for (const SummaryBlock &stage : s.stages) {
        if (stage.stopped && s.stages.size() > 1)
            parts << tr("%1 %2").arg(stage.name, stage.partialNote());
    }
    if (!notReached.isEmpty())
        parts << tr("%1 not reached").arg(notReached.join(QStringLiteral(", ")));
    // A run's length is its measurement window wherever it is shown (first sent → last done,
    // warm-up excluded): the same figure live, in the summary and reopened.
    const double elapsedS = s.total.windowS;
    const std::int64_t requests = s.total.requests.attempted + s.total.requests.cancelled;
    switch (d.state()) {
    case RunDocument::State::Live:
        break;
    case RunDocument::State::Finished:
        if (!d.error().isEmpty())
            parts << tr("<span style='color:%1'>failed: %2</span>")
                         .arg(htmlColor(QColor(0xc6, 0x28, 0x28)), d.error().toHtmlEscaped());
        else if (d.cancelled())
            parts << tr("stopped after %1 s, %2 requests (saved)").arg(formatNumber(elapsedS)).arg(requests);
        else
            parts << tr("finished in %1 s, %2 requests").arg(formatNumber(elapsedS)).arg(requests);
        break;
    case RunDocument::State::Loaded:
        parts << (d.cancelled() ? tr("saved run, stopped after %1 s, %2 requests") : tr("saved run, %1 s, %2 requests"))
                     .arg(formatNumber(elapsedS))
                     .arg(requests);
        break;
    case RunDocument::State::Empty:
        break;
    }
    // What calibration found, said once beside the warnings (a calibration that failed is one of them).
    if (const PromptSizing &z = s.promptSizing; !z.calibration.isEmpty())
        parts << tr("prompts calibrated in %1 s before the load (%2 probes): %3 target tokens per local token, "
                    "template %4 tokens")
                     .arg(formatNumber(z.calibrationS))
                     .arg(z.probes)
                     .arg(formatNumber(z.scale))
                     .arg(z.overhead);
    if (s.steady && !d.isLive())
        parts << s.steady->line(s.wholeRun()).toHtmlEscaped();
    if (s.window)
        parts << s.window->line().toHtmlEscaped();
    const QString amber = htmlColor(QColor(0xb4, 0x53, 0x09));
    for (const QString &note : d.notes())
        parts << QStringLiteral("<span style='color:%1'>%2</span>").arg(amber, note.toHtmlEscaped());
    for (const QString &warning : s.warnings)
        parts << QStringLiteral("<span style='color:%1'>⚠ %2</span>").arg(amber, warning.toHtmlEscaped());
    m_subtitle->setText(parts.join(QStringLiteral(" · ")));

    // A failing target is said in words, not left to the error chart: what failed and why.
    const QString failures = d.failureHeadline();
    m_errorNote->setVisible(!failures.isEmpty());
    if (!failures.isEmpty()) {
        const QString text =
            tr("⚠ %1%2").arg(d.allFailed() && !d.isLive() ? tr("Run failed: ") : QString(), d.failureNote());
        if (m_errorNote->text() != text)
            m_errorNote->setText(text);
    }

    m_progress->setVisible(d.isLive());
    // The charts' empty text follows calibration: said at once when it starts (a chart is redrawn
    // only in its turn), given back by a redraw of each when it ends.
    if (const bool calibrating = d.isLive() && p.calibrating; calibrating != m_calibrating) {
        m_calibrating = calibrating;
        if (calibrating) {
            for (const ChartEntry &chart : std::as_const(m_charts))
                chart.view->setEmptyText(calibrationWait());
        } else {
            m_drawn.fill(std::numeric_limits<quint64>::max());
            m_drawn[HeaderPart] = d.revision();
        }
    }
    if (!d.isLive())
        return;
    // Calibration probes the target before the load: no stage, nothing in flight yet.
    if (p.calibrating) {
        m_progress->setValue(p.probesPlanned > 0 ? p.probesSent * 1000 / std::max(p.probesSent, p.probesPlanned) : 0);
        m_progress->setFormat(p.calibrationText());
        return;
    }
    double fraction = 0;
    if (p.etaMs >= 0 && p.elapsedNs > 0)
        fraction = double(p.elapsedNs) / (double(p.elapsedNs) + double(p.etaMs) * 1e6);
    else if (p.stageCount > 0)
        fraction = (p.stage + std::max(0.0, p.stageFraction)) / p.stageCount;
    m_progress->setValue(int(std::clamp(fraction, 0.0, 1.0) * 1000));
    QString text;
    if (p.stopping)
        text = tr("Stopping: cancelling %1 requests in flight").arg(p.inFlight);
    else if (p.warmup)
        text = tr("Warm-up");
    else
        text = tr("Stage %1 of %2: %3").arg(p.stage + 1).arg(std::max(1, p.stageCount)).arg(p.stageName);
    if (!p.stopping && p.draining)
        text += tr(" · finishing %1 requests in flight").arg(p.inFlight);
    else if (!p.stopping)
        text += QStringLiteral(" · %1%").arg(int(fraction * 100));
    if (!p.stopping && !p.draining && p.etaMs >= 0)
        text += tr(" · ETA %1").arg(formatClock(p.etaMs));
    m_progress->setFormat(text);
}

void DashboardView::refreshTiles()
{
    const RunDocument &d = *m_document;
    const SummaryBlock &t = d.summary().total;
    const RunProgress &p = d.progress();
    const auto &rows = d.timeSeries();
    const auto set = [this](const char *key, const QString &value, const QString &detail) {
        tile(QString::fromLatin1(key))->setValue(value, detail);
    };

    // Live rates over the last complete seconds show a stage change long before the run's average does.
    QString recentRequests;
    QString recentTokens;
    if (d.isLive() && !rows.empty()) {
        const std::size_t n = std::min<std::size_t>(kRecentSeconds, rows.size());
        std::int64_t completed = 0;
        std::int64_t tokens = 0;
        for (std::size_t i = rows.size() - n; i < rows.size(); ++i) {
            completed += rows[i].completed;
            tokens += rows[i].outputTokens;
        }
        recentRequests = tr("last %1 s: %2").arg(n).arg(formatNumber(double(completed) / double(n)));
        recentTokens = tr("last %1 s: %2").arg(n).arg(formatNumber(double(tokens) / double(n)));
    }
    const bool any = t.requests.ok > 0;
    // Embeddings, rerank and score carry several inputs a request (--batch-size): their rate is the
    // one to read, next to the requests'.
    QString requestsDetail =
        !recentRequests.isEmpty() ? recentRequests : tr("%1 ok of %2").arg(t.requests.ok).arg(t.requests.attempted);
    if (t.requests.inputs > 0)
        requestsDetail = tr("%1 inputs/s · %2").arg(formatNumber(t.throughput.inputsPerS), requestsDetail);
    set("requests_per_s", any ? formatNumber(t.throughput.requestsPerS) : QStringLiteral("—"), requestsDetail);
    set("output_tokens_per_s", any ? formatNumber(t.throughput.outputTokensPerS) : QStringLiteral("—"),
        !recentTokens.isEmpty() ? recentTokens : tr("peak %1").arg(formatNumber(t.throughput.peakOutputTokensPerS)));
    const LatencyStats &ttft = t.stat(Metric::Ttft);
    const LatencyStats &e2e = t.stat(Metric::E2e);
    set("ttft_p50", ttft.count ? formatMs(ttft.p50) : QStringLiteral("—"),
        ttft.count ? tr("mean %1").arg(formatMs(ttft.mean)) : QString());
    // What users waited — a connect that stalled, the client's queue — when it is much more than
    // TTFT from sent: the headline's tail must not hide it.
    const LatencyStats &waited = t.stat(Metric::TtftFromSchedule);
    const bool waitedMore = waited.count && ttft.count && waited.p99 > 1.1 * ttft.p99 && waited.p99 - ttft.p99 > 5;
    set("ttft_p99", ttft.count ? formatMs(ttft.p99) : QStringLiteral("—"),
        waitedMore   ? tr("users waited %1").arg(formatMs(waited.p99))
        : ttft.count ? tr("max %1").arg(formatMs(ttft.max))
                     : QString());
    set("e2e_p99", e2e.count ? formatMs(e2e.p99) : QStringLiteral("—"),
        e2e.count ? tr("p50 %1").arg(formatMs(e2e.p50)) : QString());
    set("out_in_ratio", t.tokens.outInRatio ? QString::number(*t.tokens.outInRatio, 'f', 2) : QStringLiteral("—"),
        t.tokens.cacheHitRatio ? tr("cache hit %1").arg(formatPercent(*t.tokens.cacheHitRatio)) : QString());
    QString errors = tr("%1 failed").arg(t.requests.failed);
    if (t.requests.cancelled > 0)
        errors += tr(" · %1 cancelled").arg(t.requests.cancelled);
    if (t.requests.abandoned > 0) // --cancel-rate's, neither ok nor failed
        errors += tr(" · %1 abandoned (%2 in prefill)").arg(t.requests.abandoned).arg(t.requests.abandonedInPrefill);
    // Answers that arrived but are not what was asked for: not errors of the server, yet not good.
    if (t.structuredOutput && t.structuredOutput->checked() > t.structuredOutput->schemaValid)
        errors += tr(" · %1 invalid outputs").arg(t.structuredOutput->checked() - t.structuredOutput->schemaValid);
    if (t.toolCalls && t.toolCalls->checked() > t.toolCalls->valid)
        errors += tr(" · %1 with invalid tool calls").arg(t.toolCalls->checked() - t.toolCalls->valid);
    const std::optional<double> errorPct = MetricCatalogue::find(QStringLiteral("error_pct"))->of(t);
    set("error_pct", errorPct ? formatNumber(*errorPct) : QStringLiteral("—"), errors);

    // The target of the stage running now (or, once the run is over, the largest it ran: a run
    // Stop ended early never reached its later stages).
    const QList<StageConfig> stages = d.stages();
    const int stage = std::clamp(p.stage, 0, int(std::max<qsizetype>(1, stages.size())) - 1);
    QString target = QStringLiteral("—");
    if (!d.isLive() && t.concurrency.target) {
        target = QString::number(*t.concurrency.target);
    } else if (stage < stages.size()) {
        const StageConfig &s = stages.at(stage);
        if (s.mode == LoadMode::Concurrency)
            target = QString::number(s.level);
        else if (d.info().config.load.maxInFlight > 0)
            target = QString::number(d.info().config.load.maxInFlight);
    }
    if (d.isLive())
        set("in_flight", QStringLiteral("%1 / %2").arg(p.inFlight).arg(target), tr("peak %1").arg(p.peakInFlight));
    else
        set("in_flight", QStringLiteral("%1 / %2").arg(t.concurrency.peakInFlight).arg(target),
            tr("peak · mean %1").arg(formatNumber(t.concurrency.meanInFlight)));
}

DashboardView::Frame DashboardView::frame() const
{
    const RunDocument &d = *m_document;
    const auto &rows = d.timeSeries();
    const RunProgress &p = d.progress();
    Frame f;
    f.endS = std::max(rows.empty() ? 0.0 : rows.back().second + 1.0, double(p.elapsedNs) / 1e9);
    // A live run's x axis spans the whole run as planned (when the ETA is known), so the lines grow
    // into it instead of the axis rescaling every second; a finished run's fits its data.
    const double plannedS = d.isLive() && p.etaMs >= 0 ? double(p.elapsedNs) / 1e9 + double(p.etaMs) / 1e3 : 0;
    f.rangeS = std::max(f.endS, plannedS);
    f.minSpanS = d.isLive() && plannedS <= 0 ? TimeChart::kMinSpanS : 1.0;
    // A stage Stop cut is labelled so where its span is drawn: its figures are of its first seconds.
    QStringList names = d.stageNames();
    const std::vector<SummaryBlock> &stages = d.summary().stages;
    for (qsizetype i = 0; i < names.size() && std::size_t(i) < stages.size(); ++i) {
        if (stages[std::size_t(i)].stopped)
            names[i] = tr("%1 (%2)").arg(names[i], stages[std::size_t(i)].partialNote());
    }
    f.marks = stageMarks(rows, names);
    // The window is found from the saved requests at the end: a live run has none yet.
    if (const std::optional<SteadySummary> &steady = d.summary().steady; !d.isLive() && steady && steady->window.found)
        f.steady = TimeSpan{double(steady->window.startS), double(steady->window.endS)};
    return f;
}

void DashboardView::finishTimeChart(TimeChart *chart, const Frame &f, const QString &key, bool empty,
                                    const QString &live, const QString &saved)
{
    chart->setStageMarks(f.marks);
    chart->setSteadyWindow(f.steady);
    chart->rescale(f.rangeS, f.minSpanS);
    finishChart(key, empty, live, saved);
}

QString DashboardView::calibrationWait()
{
    return tr("Calibrating prompt sizes against the target; the load starts after it…");
}

void DashboardView::finishChart(const QString &key, bool empty, const QString &live, const QString &saved)
{
    ChartView *view = chartView(key);
    // A run in which no request succeeded has only its errors (and perhaps the server's metrics)
    // to chart: the others say what happened instead of drawing empty 0–1 axes.
    const RunDocument &d = *m_document;
    if (!d.isLive() && d.allFailed() && key != QLatin1String("errors-by-status") && key != QLatin1String("server") &&
        key != QLatin1String("gpu")) {
        view->setEmptyText(tr("No request succeeded: nothing to chart. %1.").arg(d.failureHeadline()));
        view->setEmpty(true);
    } else {
        view->setEmptyText(!d.isLive() ? saved : m_calibrating ? calibrationWait() : live);
        view->setEmpty(empty);
    }
    view->setExportSubtitle(m_document->name());
    QStringList caption{m_document->info().workloadCaption()};
    caption << m_document->summary().partialNote();
    caption.removeAll(QString());
    view->setExportCaption(caption.join(QLatin1Char('\n')));
    view->updateTooltips();
}

void DashboardView::refreshLatency()
{
    const auto &rows = m_document->timeSeries();
    const int max = TimeChart::kMaxPoints;
    const QList<QLineSeries *> latency = m_latency->lines();
    latency[TtftP50]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return r.ttftP50Ms; }, Reduce::Mean, max));
    latency[TtftP99]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return r.ttftP99Ms; }, Reduce::Max, max));
    latency[E2eP50]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return r.e2eP50Ms; }, Reduce::Mean, max));
    latency[E2eP99]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return r.e2eP99Ms; }, Reduce::Max, max));
    // Without streaming there is no first token to time: no TTFT lines, no empty TTFT axis (the
    // E2E axis takes the grid).
    const bool streaming = m_document->info().config.request.stream;
    for (const int line : {TtftP50, TtftP99}) {
        latency[line]->setVisible(streaming);
        chartstyle::setInLegend(m_latency, latency[line], streaming);
    }
    m_latency->leftAxis()->setVisible(streaming);
    m_latency->rightAxis()->setGridLineVisible(!streaming);
    finishTimeChart(m_latency, frame(), QStringLiteral("latency-over-time"), !m_latency->hasData(),
                    tr("Waiting for the first successful request…"), tr("No successful requests."));
}

void DashboardView::refreshThroughput()
{
    const auto &rows = m_document->timeSeries();
    const int max = TimeChart::kMaxPoints;
    const QList<QLineSeries *> throughput = m_throughput->lines();
    throughput[RequestsLine]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return double(r.completed); }, Reduce::Mean, max));
    throughput[TokensLine]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return double(r.outputTokens); }, Reduce::Mean, max));
    finishTimeChart(m_throughput, frame(), QStringLiteral("throughput"), rows.empty(),
                    tr("Waiting for the first second of the run…"), tr("This run has no time series."));
}

void DashboardView::refreshConcurrency()
{
    const RunDocument &d = *m_document;
    const auto &rows = d.timeSeries();
    const Frame f = frame();
    const QList<QLineSeries *> inFlight = m_inFlight->lines();
    inFlight[InFlightActual]->replace(timePoints(
        rows, [](const TimeSeriesRow &r) { return double(r.inFlight); }, Reduce::Max, TimeChart::kMaxPoints));
    // The target is a step per stage: the users of a concurrency stage, the in-flight cap of a
    // rate stage (an uncapped rate stage has no target concurrency).
    const QList<StageConfig> stages = d.stages();
    const int cap = d.info().config.load.maxInFlight;
    QList<QPointF> target;
    for (qsizetype i = 0; i < f.marks.size() && i < stages.size(); ++i) {
        const StageConfig &s = stages.at(i);
        const double level = s.mode == LoadMode::Concurrency ? s.level : cap > 0 ? double(cap) : NAN;
        if (std::isnan(level))
            continue;
        const double to = i + 1 < f.marks.size() ? f.marks[i + 1].startS : f.endS;
        target << QPointF(f.marks[i].startS, level) << QPointF(to, level);
    }
    inFlight[InFlightTarget]->replace(target);
    inFlight[InFlightTarget]->setVisible(!target.isEmpty());
    chartstyle::setInLegend(m_inFlight, inFlight[InFlightTarget], !target.isEmpty());
    finishTimeChart(m_inFlight, f, QStringLiteral("concurrency"), rows.empty(),
                    tr("Waiting for the first second of the run…"), tr("This run has no time series."));
}

void DashboardView::refreshServer()
{
    const RunDocument &d = *m_document;
    const std::vector<ServerRow> &rows = d.serverRows();
    const QList<QLineSeries *> lines = m_server->lines();
    const auto points = [&rows](double ServerRow::*field) {
        QList<QPointF> out;
        for (const ServerRow &r : rows) {
            if (!std::isnan(r.*field))
                out << QPointF(r.tS, r.*field);
        }
        return decimate(out, TimeChart::kMaxPoints, Reduce::Mean);
    };
    lines[ServerRunning]->replace(points(&ServerRow::running));
    lines[ServerWaiting]->replace(points(&ServerRow::waiting));
    lines[ServerTtft]->replace(points(&ServerRow::ttftP50Ms));
    const bool serverTtft = lines[ServerTtft]->count() > 0;
    // The client's line only beside the server's: alone it repeats the latency chart.
    lines[ClientTtft]->replace(serverTtft ? timePoints(
                                                d.timeSeries(), [](const TimeSeriesRow &r) { return r.ttftP50Ms; },
                                                Reduce::Mean, TimeChart::kMaxPoints)
                                          : QList<QPointF>());
    // Only what the server reports: llama.cpp has no latency histograms, so no TTFT axis and no
    // legend entries for lines that stay empty. Before the first scrape the legend says what comes.
    for (QLineSeries *line : lines) {
        const bool shown = rows.empty() || line->count() > 0;
        line->setVisible(shown);
        chartstyle::setInLegend(m_server, line, shown);
    }
    m_server->rightAxis()->setVisible(rows.empty() || serverTtft);

    const std::optional<ServerSummary> &server = d.summary().server;
    QStringList facts;
    if (server && !rows.empty()) {
        const ServerRow &last = rows.back();
        if (!std::isnan(last.kvCachePct) && server->kvCachePctPeak)
            facts << tr("KV cache %1% (peak %2%)")
                         .arg(formatNumber(last.kvCachePct), formatNumber(*server->kvCachePctPeak));
        if (server->prefixHitRatio)
            facts << tr("prefix cache hits %1%").arg(formatNumber(*server->prefixHitRatio * 100));
        if (server->ttft.p50)
            facts << tr("server TTFT p50 %1 over the run").arg(formatMs(*server->ttft.p50));
        facts << tr("%1 at %2").arg(server->engine, server->url);
    }
    if (server && !server->problem.isEmpty())
        facts << tr("%n failed scrape(s): %1", nullptr, server->failures).arg(server->problem);
    m_serverNote->setText(facts.join(QStringLiteral(" · ")));
    m_serverNote->setVisible(!facts.isEmpty());
    const QString why =
        d.serverDidNotAnswer()
            ? tr("The server did not answer (%1), so it had no /metrics to read either.").arg(d.failureHeadline())
        : server && !server->problem.isEmpty()
            ? tr("The server's metrics could not be read: %1").arg(server->problem)
            : tr("The server's /metrics was not scraped (no Prometheus endpoint, or turned off in the target).");
    finishTimeChart(m_server, frame(), QStringLiteral("server"), rows.empty(),
                    rows.empty() && d.isLive() && !server ? tr("Waiting for the server's metrics…") : why, why);
}

void DashboardView::refreshGpu()
{
    const RunDocument &d = *m_document;
    // Only a run that scraped a DCGM exporter has the card: the others draw no empty GPU axes.
    if (!placeCard(m_showGpu, d.hasGpuMetrics()))
        return;
    const GpuTrace &trace = d.gpuTrace();
    const int gpus = trace.peakGpus();
    // One GPU is its own sum: per-GPU lines only with two or more.
    const std::size_t each = gpus > 1 ? trace.ids.size() : 0;
    QStringList names{gpus > 1 ? tr("power, Σ %1 GPUs").arg(gpus) : tr("power"),
                      gpus > 1 ? tr("utilisation, mean") : tr("utilisation")};
    for (std::size_t i = 0; i < each; ++i)
        names << tr("GPU %1").arg(i + 1) << tr("GPU %1 utilisation").arg(i + 1);
    QStringList shown;
    for (const QLineSeries *line : m_gpu->lines())
        shown << line->name();
    if (shown != names) {
        m_gpu->removeLines();
        m_gpu->addLine(names[GpuPowerSum], chartstyle::color(Quantity::GpuPower), false,
                       chartstyle::describe(Quantity::GpuPower));
        m_gpu->addLine(names[GpuUtilMean], chartstyle::color(Quantity::GpuUtil), true,
                       chartstyle::describe(Quantity::GpuUtil), TimeChart::Side::Right);
        for (std::size_t i = 0; i < each; ++i) {
            const QString id = QString::fromStdString(trace.ids[i]);
            const QColor color = chartstyle::gpuColor(int(i));
            QLineSeries *power =
                m_gpu->addLine(names[FirstGpuLine + 2 * int(i)], color, false, tr("Power drawn by %1, W").arg(id));
            power->setPen(chartstyle::pen(color, false, 1.2));
            // A legend of more GPUs than this is cut to "po…" at a laptop's two columns: their
            // lines stay, each GPU named in its tooltip.
            chartstyle::setInLegend(m_gpu, power, each <= kGpusInLegend);
            // Its utilisation in its colour, dashed, out of the legend: the GPU's entry names both.
            QLineSeries *util = m_gpu->addLine(names[FirstGpuLine + 2 * int(i) + 1], color, true,
                                               tr("Utilisation of %1, %").arg(id), TimeChart::Side::Right);
            util->setPen(chartstyle::pen(color, true, 1.2));
            chartstyle::setInLegend(m_gpu, util, false);
        }
    }
    const auto points = [&trace](const std::function<double(const GpuTrace::Row &)> &value) {
        QList<QPointF> out;
        for (const GpuTrace::Row &r : trace.rows) {
            const double v = value(r);
            if (!std::isnan(v))
                out << QPointF(r.tS, v);
        }
        return decimate(out, TimeChart::kMaxPoints, Reduce::Mean);
    };
    const QList<QLineSeries *> lines = m_gpu->lines();
    lines[GpuPowerSum]->replace(points([](const GpuTrace::Row &r) { return r.powerWSum; }));
    lines[GpuUtilMean]->replace(points([](const GpuTrace::Row &r) { return r.utilPctMean; }));
    for (std::size_t i = 0; i < each; ++i) {
        lines[FirstGpuLine + 2 * int(i)]->replace(
            points([&trace, i](const GpuTrace::Row &r) { return trace.powerW(r, i); }));
        lines[FirstGpuLine + 2 * int(i) + 1]->replace(
            points([&trace, i](const GpuTrace::Row &r) { return trace.utilPct(r, i); }));
    }

    const std::optional<GpuSummary> &gpu = d.summary().gpu;
    QStringList facts;
    if (gpu && gpu->energyJ) {
        // The CLI's gpu line's precision: a short run's energy costs a few millionths of a dollar.
        facts << tr("%1 J").arg(formatNumber(*gpu->energyJ, 4));
        if (gpu->joulesPerOutputToken)
            facts << tr("%1 J/output token").arg(formatNumber(*gpu->joulesPerOutputToken, 4, 6));
        if (gpu->joulesPerRequest)
            facts << tr("%1 J/request").arg(formatNumber(*gpu->joulesPerRequest, 4));
        if (gpu->energyCost && gpu->pricePerKwh)
            facts << tr("energy $%1 at $%2/kWh")
                         .arg(formatNumber(*gpu->energyCost, 3, 6), formatNumber(*gpu->pricePerKwh));
        if (gpu->energyCostPerMOutputTokens)
            facts << tr("$%1/1M output tokens").arg(formatNumber(*gpu->energyCostPerMOutputTokens, 3, 6));
    }
    if (gpu && !gpu->problem.isEmpty())
        facts << tr("%n failed scrape(s): %1", nullptr, gpu->failures).arg(gpu->problem);
    if (each > kGpusInLegend)
        facts << tr("thin lines: each of the %1 GPUs' power, dashed: its utilisation").arg(each);
    if (trace.peakGpus() > int(GpuTrace::kMaxTracedGpus))
        facts << tr("the first %1 of %2 GPUs drawn apart").arg(GpuTrace::kMaxTracedGpus).arg(trace.peakGpus());
    m_gpuNote->setText(facts.join(QStringLiteral(" · ")));
    m_gpuNote->setVisible(!facts.isEmpty());
    Frame f = frame();
    // The exporter's last scrape ends the window, just after the last second of requests.
    if (!trace.empty())
        f.rangeS = std::max(f.rangeS, trace.rows.back().tS);
    const QString why = gpu && !gpu->problem.isEmpty()
                            ? tr("The DCGM exporter could not be read: %1").arg(gpu->problem)
                            : tr("The DCGM exporter (--gpu-metrics) gave no power or utilisation.");
    finishTimeChart(m_gpu, f, QStringLiteral("gpu"), trace.empty(),
                    d.isLive() && !gpu ? tr("Waiting for the DCGM exporter…") : why, why);
    // Utilisation is a share: its scale is the whole of it, not its largest value.
    m_gpu->rightAxis()->setRange(0, 100);
}

bool DashboardView::placeCard(bool &placed, bool show)
{
    if (show != placed) {
        placed = show;
        m_chartColumns = 0; // place the cards again
        relayout();
    }
    return show;
}

void DashboardView::refreshCurve()
{
    const RunSummary &s = m_document->summary();
    const bool staged = m_document->stages().size() >= 2 && !isContextSweep(m_document->stages());
    if (!placeCard(m_showCurve, staged))
        return;
    const Metric metric = kneeMetric(s);
    m_curve->setMetricLabel(metricLabel(metric));
    m_curve->setCurves(
        {{m_document->name(), chartstyle::color(Quantity::Requests), throughputLatencyCurve(s, metric)}});
    const auto knee = findKnee(s);
    m_kneeNote->setText(knee ? knee->text : QString());
    m_kneeNote->setVisible(knee.has_value());
    finishChart(QStringLiteral("throughput-latency"), !m_curve->hasData(),
                tr("The curve starts when two stages have finished requests…"),
                tr("Fewer than two stages had successful requests."));
}

void DashboardView::refreshErrors()
{
    const ErrorTimeline &errors = m_document->errors();
    const Frame f = frame();
    const QStringList labels = errors.labels();
    QStringList shown;
    for (const QLineSeries *line : m_errors->lines())
        shown << line->name();
    if (shown != labels) {
        m_errors->removeLines();
        for (const QString &label : labels)
            m_errors->addLine(label, chartstyle::errorColor(label), false,
                              label.front().isDigit()
                                  ? tr("Requests answered with HTTP status %1, per second").arg(label)
                                  : tr("Requests that failed with %1, per second").arg(label));
    }
    const int lastSecond = std::max(int(f.endS) - 1, errors.lastSecond());
    for (QLineSeries *line : m_errors->lines())
        line->replace(errorRatePoints(errors, line->name(), lastSecond, TimeChart::kMaxPoints));
    finishTimeChart(m_errors, f, QStringLiteral("errors-by-status"), errors.total() == 0, tr("✓ No errors so far."),
                    tr("✓ No errors in this run."));
}

void DashboardView::refreshTokens()
{
    m_tokens->setSummary(m_document->summary());
    finishChart(QStringLiteral("token-efficiency"), !m_tokens->hasData(),
                tr("Waiting for the first successful request…"), tr("No successful requests."));
}

void DashboardView::refreshTurns()
{
    // Only a run of conversations has turns to show.
    const bool conversations = m_document->info().config.load.turns > 1 || !m_document->summary().turns.empty();
    placeCard(m_showTurns, conversations);
    m_turns->setSummary(m_document->summary());
    finishChart(QStringLiteral("turns"), !m_turns->hasData(), tr("Waiting for the first successful turn…"),
                tr("No successful turns."));
}

void DashboardView::refreshContext()
{
    const bool sweep = isContextSweep(m_document->stages());
    if (!placeCard(m_showContext, sweep))
        return;
    const auto &summary = m_document->summary().contextSweep;
    m_context->setCurves({{QString(), chartstyle::color(Quantity::Ttft), summary.value_or(ContextSweepSummary{})}});
    m_contextNote->setText(summary ? summary->fitText() : QString());
    m_contextNote->setVisible(summary.has_value());
    finishChart(QStringLiteral("context-sweep"), !m_context->hasData(), tr("Waiting for the first successful request…"),
                tr("No successful requests."));
}

void DashboardView::refreshDistribution()
{
    const SummaryBlock &total = m_document->summary().total;
    DistributionSeries series{metricLabel(m_metric), total.histogram(m_metric), chartstyle::color(m_metric)};
    m_distribution->setDistributions({series});
    if (!chartView(QStringLiteral("latency-distribution")))
        return; // still being built
    const QString label = metricLabel(m_metric);
    finishChart(QStringLiteral("latency-distribution"), !m_distribution->hasData(), tr("No %1 values yet.").arg(label),
                m_metric == Metric::Itl || m_metric == Metric::Tpot
                    ? tr("No %1 values: they need streamed responses of two tokens or more.").arg(label)
                    : tr("No %1 values in this run.").arg(label));
}

} // namespace tb
