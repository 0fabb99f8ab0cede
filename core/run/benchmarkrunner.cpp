#include "run/benchmarkrunner.h"

#include "client/loadcontroller.h"
#include "metrics/runaggregator.h"
#include "metrics/saturationdetector.h"
#include "net/bytestream.h"
#include "observe/clienthealth.h"
#include "observe/metricsexporter.h"
#include "observe/metricsscraper.h"
#include "results/rundirectory.h"
#include "results/runwriter.h"
#include "tokenize/tokenizer.h"
#include "workload/promptcalibrator.h"

#include <QRandomGenerator>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <climits>
#include <iterator>

namespace tb {

namespace {

constexpr int kRecordsIntervalMs = 100; // ≤ 10 Hz to the GUI
// Records a tick sends at most while the backlog is smaller than ten times this (issue 32): 10,000
// streams started together end together, and the GUI appended and freed such a wave in one event
// (25 ms of its thread).
constexpr qsizetype kRecordsPerPost = 2000;
constexpr int kSnapshotIntervalMs = 250; // summaries and time series
constexpr int kLastScrapeWaitMs = 3000;  // a run's end waits this long at most for the last scrape

} // namespace

/// The run's work on its own thread: owns the controller and, per target, the aggregator and the
/// writer of its run directory; posts value types back to the runner.
class RunSession : public QObject
{
public:
    RunSession(BenchmarkRunner *runner, std::shared_ptr<const RunPlan> plan, const std::vector<RunInfo> &infos,
               MetricsExporter *exporter)
        : m_runner(runner)
        , m_plan(std::move(plan))
        , m_exporter(exporter)
    {
        for (const RunInfo &info : infos)
            m_sinks.push_back(std::make_unique<Sink>(info));
        m_recordsTimer.setParent(this);
        m_snapshotTimer.setParent(this);
        connect(&m_recordsTimer, &QTimer::timeout, this, [this] { postRecords(); });
        connect(&m_snapshotTimer, &QTimer::timeout, this, &RunSession::postSnapshots);
    }

    ~RunSession() override
    {
        // Destroyed mid-run (the runner went away): requests in flight are abandoned, but what
        // finished is saved with a summary.
        if (m_controller && !m_completed) {
            m_controller.reset();
            for (auto &sink : m_sinks) {
                sink->scraper.reset();
                sink->gpuScraper.reset();
                sink->writer.finish(summaryOf(*sink), sink->aggregator.timeSeries());
            }
        }
    }

    bool open(const QStringList &directories, bool replace, QString *error)
    {
        for (std::size_t i = 0; i < m_sinks.size(); ++i) {
            Sink &sink = *m_sinks[i];
            if (!sink.writer.open(directories.at(qsizetype(i)), sink.aggregator.info(), replace)) {
                *error = sink.writer.errorString();
                return false;
            }
        }
        return true;
    }

    void begin(int workerThreads, const RunClock &clock)
    {
        const RunConfig &config = m_plan->config;
        const PromptSource &prompts = *m_plan->prompts;
        PromptSizing sizing;
        if (config.prompt.promptTokens > 0 && config.prompt.promptFile.isEmpty())
            sizing.requested = std::int64_t(config.prompt.promptTokens) + config.prompt.systemTokens;
        sizing.tokenizer = prompts.tokenizer().description();
        sizing.localTokens = prompts.localSystemTokens() + prompts.localPromptTokens();
        setPromptSizing(sizing);
        if (!config.prompt.calibrate || !sizing.requested)
            return run(workerThreads, clock);
        // Measure the target's counting first; the run starts with prompts sized by it. Its probes
        // are shown as they go (postRecords), but its time is not the run's: t = 0 moves to the
        // load's start, and calibration's seconds are recorded apart.
        m_calibrationClock = clock;
        m_calibrator = new PromptCalibrator(config, prompts.sharedTokenizer(), this);
        connect(m_calibrator, &PromptCalibrator::finished, this,
                [this, sizing, workerThreads, clock](const CalibrationResult &c) {
                    m_recordsTimer.stop();
                    m_calibrator->deleteLater();
                    const RunClock load;
                    moveOrigin(load);
                    PromptSizing calibrated = sizing;
                    calibrated.calibrationS = double(clock.toNs(load.origin())) / 1e9;
                    calibrated.calibrationError = c.error;
                    auto plan = std::make_shared<RunPlan>(*m_plan);
                    if (c.error.isEmpty() && plan->makePrompts(m_plan->prompts->sharedTokenizer(), c.calibration,
                                                               &calibrated.calibrationError)) {
                        m_plan = plan;
                        calibrated.calibration = c.method;
                        calibrated.calibrationDialect = c.dialect;
                        calibrated.scale = c.calibration.scale;
                        calibrated.overhead = c.calibration.overhead;
                        calibrated.trim = c.calibration.trim;
                        calibrated.pad = c.calibration.pad;
                        calibrated.probes = c.probes;
                        calibrated.probed = c.probed;
                        calibrated.localTokens =
                            plan->prompts->localSystemTokens() + plan->prompts->localPromptTokens();
                    }
                    for (const QString &warning : c.warnings)
                        m_warnings << QStringLiteral("calibration: ") + warning;
                    if (!calibrated.calibrationError.isEmpty())
                        m_warnings << QStringLiteral("prompts not calibrated (--calibrate): %1; sized by %2 alone")
                                          .arg(calibrated.calibrationError, calibrated.tokenizer);
                    setPromptSizing(calibrated);
                    run(workerThreads, load);
                });
        m_recordsTimer.start(kRecordsIntervalMs);
        m_calibrator->start();
        if (!m_controller) // still probing: "probe 1 of 7" at once
            postRecords();
    }

    void run(int workerThreads, const RunClock &clock)
    {
        m_workerThreads = workerThreads;
        m_controller =
            std::make_unique<LoadController>(m_plan, clock, [this](RequestRecord &&r) { recordDone(std::move(r)); });
        connect(m_controller.get(), &LoadController::stageStarted, this, [this](int stage, bool warmup) {
            if (!warmup) {
                const std::int64_t nowNs = m_controller->clock().nowNs();
                // Once: the first stage after the warm-up (without one, stage 0 began before the
                // monitor did, which then judges every second).
                if (!std::exchange(m_measuring, true) && m_health)
                    m_health->markMeasurementStart(nowNs);
                for (auto &sink : m_sinks) {
                    sink->server.markMeasurementStart(double(nowNs) / 1e9);
                    sink->gpu.markMeasurementStart(double(nowNs) / 1e9);
                    sink->aggregator.markStageStarted(stage, nowNs);
                }
            }
            const QString name = m_plan->stages.at(stage).name;
            post([stage, name, warmup](BenchmarkRunner *r) { Q_EMIT r->stageStarted(stage, name, warmup); });
        });
        connect(m_controller.get(), &LoadController::finished, this, &RunSession::finish);
        // The server's metrics endpoints answer once before the load (each within the scrape
        // timeout): a busy server's /metrics may not answer again until its first prefill is over.
        startScrapers();
        if (m_probesAwaited == 0 || m_stopRequested)
            startLoad();
    }

    /// `reason`: the run stops itself (--stop-on-saturation), saying why; empty: the user's Stop.
    void stop(const QString &reason = {})
    {
        m_stopRequested = true;
        if (m_loadStarted) {
            // Stop cuts the stage running now: its window ends here (RunAggregator).
            if (!m_finished) {
                const std::int64_t nowNs = m_controller->clock().nowNs();
                for (auto &sink : m_sinks)
                    sink->aggregator.markStopped(nowNs, reason);
            }
            m_controller->stop();
        } else if (m_controller) // still probing the metrics endpoints: nothing to wait for now
            startLoad();
        else if (m_calibrator)
            m_calibrator->abort();
    }

private:
    void startLoad()
    {
        if (std::exchange(m_loadStarted, true))
            return;
        m_recordsTimer.start(kRecordsIntervalMs);
        m_snapshotTimer.start(kSnapshotIntervalMs);
        m_controller->start(m_workerThreads);
        // After start(): the transport threads it probes exist only from then on.
        m_health = std::make_unique<ClientHealthMonitor>(m_controller->clock(), m_controller->transportThreadObjects(),
                                                         sendLagIsTheClients());
        m_health->setStallMs(m_runner->m_testStallMs);
        m_health->setTransportStallMs(m_runner->m_testTransportStallMs);
        m_health->start();
        if (m_stopRequested)
            m_controller->stop();
    }

    /// The load starts at `load`'s origin, after calibration: the run's t = 0 moves there in its
    /// records (run.json's clock, the summary's start) and in the runner's RunInfo.
    void moveOrigin(const RunClock &load)
    {
        std::vector<RunInfo> infos;
        for (auto &sink : m_sinks) {
            sink->aggregator.moveOrigin(load.origin());
            sink->writer.moveOrigin(load.origin()); // a failure stops the run at its first record
            infos.push_back(sink->aggregator.info());
        }
        post([infos = std::move(infos)](BenchmarkRunner *r) { r->m_infos = infos; });
    }

    /// Where calibration is: its probes and its time so far.
    RunProgress calibrationProgress() const
    {
        RunProgress p;
        p.calibrating = true;
        p.stageCount = int(m_plan->stages.size());
        p.stopping = m_stopRequested;
        if (m_calibrator) {
            p.probesSent = m_calibrator->probesSent();
            p.probesPlanned = m_calibrator->probesPlanned();
        }
        p.calibrationNs = m_calibrationClock.nowNs();
        return p;
    }

    void setPromptSizing(const PromptSizing &sizing)
    {
        for (auto &sink : m_sinks)
            sink->aggregator.setPromptSizing(sizing);
    }

    struct Sink {
        explicit Sink(const RunInfo &info)
            : aggregator(info)
        {}
        RunAggregator aggregator;
        RunWriter writer;
        ServerSeries server;
        std::unique_ptr<MetricsScraper> scraper;
        std::vector<bool> failureSaid; ///< per endpoint: its first failure was signalled
        bool scraping = false;         ///< the last scrape is awaited
        GpuSeries gpu;                 ///< --gpu-metrics: the DCGM exporter's scrapes
        GpuTrace gpuTrace;             ///< the same scrapes, for the GUI's chart over time
        std::unique_ptr<MetricsScraper> gpuScraper;
        bool gpuScraping = false; ///< its last scrape is awaited
    };

    /// One scraper per target whose metrics are scraped (an endpoint per instance, or the one given),
    /// each on its own thread; counts the probes to await before the load.
    void startScrapers()
    {
        for (std::size_t i = 0; i < m_sinks.size(); ++i) {
            Sink &sink = *m_sinks[i];
            MetricsScraper::Options options;
            options.endpoints = MetricsScraper::endpointsFor(sink.aggregator.info().config.target);
            if (options.endpoints.empty())
                continue;
            QStringList shown;
            for (const MetricsScraper::Endpoint &e : options.endpoints) {
                shown << MetricsScraper::displayUrl(e.url);
                sink.server.addSource(shown.back(), e.instance);
            }
            sink.failureSaid.assign(options.endpoints.size(), false);
            options.csvPath = sink.writer.directory() + QStringLiteral("/server_metrics.csv");
            options.clock = m_controller->clock();
            sink.scraper = std::make_unique<MetricsScraper>(options);
            MetricsScraper *scraper = sink.scraper.get();
            connect(scraper, &MetricsScraper::scraped, this,
                    [&sink](int endpoint, const ServerPoint &point, const QString &engine) {
                        sink.server.add(endpoint, point, engine);
                    });
            connect(scraper, &MetricsScraper::scrapeFailed, this,
                    [this, &sink, i, shown](int endpoint, double tS, const QString &problem, bool stopped) {
                        // A guessed endpoint that is not there is no failure of the run: nothing is kept.
                        if (!stopped)
                            sink.server.addFailure(endpoint, tS, problem);
                        auto said = sink.failureSaid[std::size_t(endpoint)];
                        if (said)
                            return;
                        said = true;
                        post([i, url = shown.value(endpoint), problem, stopped](BenchmarkRunner *r) {
                            Q_EMIT r->serverMetricsFailed(int(i), url, problem, stopped);
                        });
                    });
            connect(scraper, &MetricsScraper::probed, this, [this] {
                if (--m_probesAwaited == 0)
                    startLoad();
            });
            connect(scraper, &MetricsScraper::finished, this, [this, &sink] {
                if (std::exchange(sink.scraping, false))
                    lastScrapeDone();
            });
            ++m_probesAwaited;
            scraper->start();
        }
        for (auto &sink : m_sinks)
            startGpuScraper(*sink);
    }

    /// The target's DCGM exporter (--gpu-metrics), scraped like the server's metrics into
    /// gpu_metrics.csv; its first answer is awaited before the load, as theirs is.
    void startGpuScraper(Sink &sink)
    {
        MetricsScraper::Options options;
        options.endpoints = MetricsScraper::gpuEndpointsFor(sink.aggregator.info().config.target);
        if (options.endpoints.empty())
            return;
        options.gpu = true;
        options.csvPath = sink.writer.directory() + QStringLiteral("/gpu_metrics.csv");
        options.clock = m_controller->clock();
        sink.gpu.setUrl(MetricsScraper::displayUrl(options.endpoints.front().url));
        sink.gpuScraper = std::make_unique<MetricsScraper>(options);
        MetricsScraper *scraper = sink.gpuScraper.get();
        connect(scraper, &MetricsScraper::gpuScraped, this, [&sink](int, const GpuPoint &point) {
            sink.gpu.add(point);
            sink.gpuTrace.add(point);
        });
        connect(scraper, &MetricsScraper::scrapeFailed, this,
                [&sink](int, double, const QString &problem, bool) { sink.gpu.addFailure(problem); });
        connect(scraper, &MetricsScraper::probed, this, [this] {
            if (--m_probesAwaited == 0)
                startLoad();
        });
        connect(scraper, &MetricsScraper::finished, this, [this, &sink] {
            if (std::exchange(sink.gpuScraping, false))
                lastScrapeDone();
        });
        ++m_probesAwaited;
        scraper->start();
    }

    RunSummary summaryOf(const Sink &sink) const
    {
        RunSummary summary = sink.aggregator.summary();
        summary.warnings << m_warnings;
        summary.server = sink.server.summary();
        summary.warnings << sink.server.warnings();
        summary.gpu = sink.gpu.summary();
        if (summary.gpu) {
            summary.gpu->setWork(summary.total.tokens.output, summary.total.requests.ok,
                                 sink.aggregator.info().config.target.energyPricePerKwh);
            summary.warnings << sink.gpu.warnings();
        }
        // llama.cpp's prompt-token counter leaves embeddings out: against the tokens sent it read
        // as a 100% cache hit (tiny-llama3 with --embeddings), which no cache served. Rerank is
        // left out alike: no real server's counters were seen for it.
        if (summary.server && apiGenerates(summary.api)) {
            const TokenSummary &tokens = summary.total.tokens;
            if (const QString disagree = summary.server->compareCacheHits(tokens.input, tokens.cacheHitRatio);
                !disagree.isEmpty())
                summary.warnings << disagree;
            // Each instance's own endpoint against the requests it was sent (the run's warning is enough).
            for (ServerSummary &one : summary.server->instances) {
                const auto block = std::find_if(summary.instances.begin(), summary.instances.end(),
                                                [&one](const SummaryBlock &b) { return b.name == one.instance; });
                if (block != summary.instances.end())
                    one.compareCacheHits(block->tokens.input, block->tokens.cacheHitRatio);
            }
        }
        if (m_health) {
            summary.client = m_health->summary();
            if (summary.client->saturated)
                summary.warnings << summary.client->note();
        }
        return summary;
    }

    /// Open loop with no in-flight cap: a request sent late was held up by this machine alone.
    bool sendLagIsTheClients() const
    {
        const QList<StageConfig> &stages = m_plan->stages;
        return m_plan->config.load.maxInFlight == 0 &&
               std::all_of(stages.begin(), stages.end(), [](const StageConfig &s) { return s.mode == LoadMode::Rate; });
    }

    template<typename Fn> void post(Fn &&fn)
    {
        BenchmarkRunner *runner = m_runner;
        QMetaObject::invokeMethod(
            runner, [runner, fn = std::forward<Fn>(fn)]() mutable { fn(runner); }, Qt::QueuedConnection);
    }

    void recordDone(RequestRecord &&record)
    {
        if (m_health)
            m_health->addRecord(record);
        Sink &sink = *m_sinks.at(std::size_t(record.target));
        sink.aggregator.add(record);
        if (!sink.writer.append(record) && m_writeError.isEmpty()) {
            m_writeError = sink.writer.errorString();
            m_controller->stop(); // measuring on without saving would lose the results
        }
        record.tokenChunks = {};
        m_batch.append(std::move(record));
    }

    /// Sends the finished records, at most kRecordsPerPost or a tenth of those waiting (so that the
    /// views lag a second at most) unless `all` (the run's end).
    void postRecords(bool all = false)
    {
        if (!m_batch.isEmpty()) {
            const qsizetype n =
                all ? m_batch.size() : std::min(m_batch.size(), std::max(kRecordsPerPost, m_batch.size() / 10));
            QList<RequestRecord> batch;
            if (n == m_batch.size()) {
                batch.swap(m_batch);
            } else {
                batch.reserve(n);
                std::move(m_batch.begin(), m_batch.begin() + n, std::back_inserter(batch));
                m_batch.remove(0, n);
            }
            post([batch = std::move(batch)](BenchmarkRunner *r) { Q_EMIT r->recordsCompleted(batch); });
        }
        const RunProgress progress = m_controller ? m_controller->progress() : calibrationProgress();
        post([progress](BenchmarkRunner *r) { Q_EMIT r->progressed(progress); });
    }

    void postSnapshots()
    {
        const RunProgress progress = m_controller->progress();
        QString saturated;
        for (std::size_t i = 0; i < m_sinks.size(); ++i) {
            const Sink &sink = *m_sinks[i];
            RunSummary summary = summaryOf(sink);
            exportFigures(i, summary, progress.inFlight);
            std::vector<TimeSeriesRow> rows = sink.aggregator.timeSeries(0, progress.elapsedNs);
            if (saturated.isEmpty())
                saturated = saturation(rows, progress);
            post([s = RunSnapshot{int(i), progress, std::move(summary), std::move(rows), sink.server.rows(),
                                  sink.gpuTrace}](BenchmarkRunner *r) { Q_EMIT r->snapshotUpdated(s); });
        }
        if (!saturated.isEmpty())
            stop(saturated);
    }

    /// With --stop-on-saturation, while the load runs: the over-saturation of the open-loop stage
    /// running now, judged on its own seconds (rows: every completed second of the run), or empty.
    /// The rows' in flight counts only requests already done (records arrive at their end), which
    /// an over-saturated target's queue is not: the controller's live count, sampled at each
    /// snapshot, takes its place (the peak of each second).
    QString saturation(const std::vector<TimeSeriesRow> &rows, const RunProgress &progress)
    {
        if (!m_plan->config.load.stopOnSaturation || m_stopRequested || m_finished)
            return {};
        const auto second = std::size_t(std::max<std::int64_t>(progress.elapsedNs, 0) / kNsPerSecond);
        if (second < std::size_t(kMaxTimeSeriesSeconds)) {
            if (second >= m_liveInFlight.size())
                m_liveInFlight.resize(second + 1, 0);
            m_liveInFlight[second] =
                std::max(m_liveInFlight[second], int(std::min<std::int64_t>(progress.inFlight, INT_MAX)));
        }
        if (rows.empty())
            return {};
        const int stage = rows.back().stage;
        if (stage < 0 || stage >= m_plan->stages.size() || m_plan->stages.at(stage).mode != LoadMode::Rate)
            return {};
        const auto first =
            std::find_if(rows.begin(), rows.end(), [stage](const TimeSeriesRow &r) { return r.stage == stage; });
        std::vector<TimeSeriesRow> judged(first, rows.end());
        for (TimeSeriesRow &row : judged) {
            if (std::size_t(row.second) < m_liveInFlight.size())
                row.inFlight = std::max(row.inFlight, m_liveInFlight[std::size_t(row.second)]);
        }
        return SaturationDetector::check(judged);
    }

    /// The figures --metrics-listen serves: the snapshot's summary, copied to the exporter's thread.
    void exportFigures(std::size_t target, const RunSummary &summary, std::int64_t inFlight)
    {
        if (m_exporter)
            m_exporter->publish(int(target),
                                {m_sinks[target]->aggregator.info().config.target.displayName(), summary, inFlight});
    }

    void finish(bool cancelled)
    {
        m_finished = true;
        m_cancelled = cancelled;
        m_recordsTimer.stop();
        m_snapshotTimer.stop();
        m_health->stop(); // the wait for the last scrape is no part of the run
        postRecords(true);
        // The server's counters at the end close the window: one last scrape, briefly awaited.
        for (auto &sink : m_sinks) {
            if (sink->scraper) {
                sink->scraping = true;
                ++m_scrapesAwaited;
                sink->scraper->finish();
            }
            if (sink->gpuScraper) {
                sink->gpuScraping = true;
                ++m_scrapesAwaited;
                sink->gpuScraper->finish();
            }
        }
        if (m_scrapesAwaited == 0) {
            complete();
            return;
        }
        QTimer::singleShot(kLastScrapeWaitMs, this, [this] {
            m_scrapesAwaited = 0;
            complete();
        });
    }

    void lastScrapeDone()
    {
        if (m_scrapesAwaited > 0 && --m_scrapesAwaited == 0)
            complete();
    }

    void complete()
    {
        if (std::exchange(m_completed, true))
            return;
        const bool cancelled = m_cancelled;
        const RunProgress progress = m_controller->progress();
        std::vector<RunOutcome> outcomes;
        for (std::size_t i = 0; i < m_sinks.size(); ++i) {
            Sink &sink = *m_sinks[i];
            RunOutcome outcome;
            outcome.target = int(i);
            outcome.directory = sink.writer.directory();
            sink.scraper.reset();
            sink.gpuScraper.reset();
            outcome.summary = summaryOf(sink);
            outcome.timeSeries = sink.aggregator.timeSeries();
            outcome.progress = progress;
            outcome.steadyOriginNs =
                std::chrono::duration_cast<std::chrono::nanoseconds>(m_controller->clock().origin().time_since_epoch())
                    .count();
            outcome.cancelled = cancelled && m_writeError.isEmpty();
            outcome.error = m_writeError;
            if (!sink.writer.finish(outcome.summary, outcome.timeSeries) && outcome.error.isEmpty())
                outcome.error = sink.writer.errorString();
            else if (outcome.error.isEmpty())
                addWindows(sink, outcome);
            exportFigures(i, outcome.summary, 0);
            post([s = RunSnapshot{outcome.target, progress, outcome.summary, outcome.timeSeries, sink.server.rows(),
                                  sink.gpuTrace}](BenchmarkRunner *r) { Q_EMIT r->snapshotUpdated(s); });
            outcomes.push_back(std::move(outcome));
        }
        post([outcomes = std::move(outcomes)](BenchmarkRunner *r) {
            r->retire();
            for (const RunOutcome &outcome : outcomes)
                Q_EMIT r->runFinished(outcome);
        });
    }

    /// The steady window's figures and the headline window (--window) come from the saved requests
    /// (the aggregator keeps none): read back once summary.json is written, so the reader need not
    /// recompute them, then written again.
    static void addWindows(Sink &sink, RunOutcome &outcome)
    {
        const RunInfo &info = sink.aggregator.info();
        const auto window = parseHeadlineWindow(info.config.load.window);
        const bool steady = outcome.summary.steady && outcome.summary.steady->window.found;
        if (!steady && (!window || window->kind == HeadlineWindow::Kind::All))
            return;
        QString why;
        const auto data = RunReader::load(outcome.directory, &why, RunReader::Records | RunReader::Chunks);
        if (!data) {
            outcome.summary.warnings << QStringLiteral("steady state and --window: the saved requests could not be "
                                                       "read back (%1): the figures cover the whole run")
                                            .arg(why);
        } else {
            RunAggregator::addSteadyBlock(outcome.summary, info, data->records);
            RunAggregator::applyHeadlineWindow(outcome.summary, info, data->records);
        }
        if (!sink.writer.finish(outcome.summary, outcome.timeSeries))
            outcome.error = sink.writer.errorString();
    }

    BenchmarkRunner *m_runner;
    std::shared_ptr<const RunPlan> m_plan;
    MetricsExporter *m_exporter; ///< the runner's, outlives the session; null when not serving
    std::vector<std::unique_ptr<Sink>> m_sinks;
    std::unique_ptr<LoadController> m_controller;
    std::unique_ptr<ClientHealthMonitor> m_health;
    bool m_measuring = false; ///< a stage past the warm-up has begun
    QList<RequestRecord> m_batch;
    std::vector<int> m_liveInFlight; ///< --stop-on-saturation: the most in flight seen in each second
    QTimer m_recordsTimer;
    QTimer m_snapshotTimer;
    QString m_writeError;
    QStringList m_warnings; ///< of the run's preparation (calibration), for every summary
    int m_workerThreads = 0;
    int m_probesAwaited = 0; ///< scrapers whose endpoints have not all answered once yet
    bool m_loadStarted = false;
    bool m_finished = false;
    bool m_stopRequested = false;
    QPointer<PromptCalibrator> m_calibrator;
    RunClock m_calibrationClock; ///< its origin is calibration's start
    bool m_cancelled = false;
    bool m_completed = false;
    int m_scrapesAwaited = 0;
};

BenchmarkRunner::BenchmarkRunner(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<RunProgress>();
    qRegisterMetaType<RunSnapshot>();
    qRegisterMetaType<RunOutcome>();
    qRegisterMetaType<QList<RequestRecord>>();
}

BenchmarkRunner::~BenchmarkRunner()
{
    shutDown();
    for (const QPointer<QThread> &thread : std::as_const(m_retiring)) {
        if (thread) {
            thread->wait();
            delete thread;
        }
    }
}

bool BenchmarkRunner::start(const RunConfig &config, QString *error)
{
    return startInterleaved(config, {config.target}, {config.outDir}, error);
}

bool BenchmarkRunner::startInterleaved(const RunConfig &configured, const QList<TargetConfig> &targets,
                                       const QStringList &directories, QString *error)
{
    // A fresh salt makes this run's prompts its own, so no server cache carries over from an
    // earlier run; run.json records it for a replay. (Interleaved targets share it: the same
    // prompts go to each.)
    RunConfig workload = configured;
    if (workload.prompt.salt.isEmpty())
        workload.prompt.salt =
            QString::number(QRandomGenerator::system()->generate64(), 16).rightJustified(16, QLatin1Char('0'));
    m_configurationError = false;
    if (m_running) {
        if (error)
            *error = QStringLiteral("a run is already in progress");
        return false;
    }
    shutDown();
    QString why;
    RunConfig share = workload;
    if (m_shard.isSharded()) {
        const auto load = shardLoad(workload.load, m_shard, &why);
        if (!load) {
            m_configurationError = true;
            if (error)
                *error = QStringLiteral("load (--shard %1): %2").arg(m_shard.text(), why);
            return false;
        }
        share.load = *load;
    }
    const auto plan = RunPlan::create(share, targets, &why, m_shard);
    if (!plan) {
        m_configurationError = true;
        if (error)
            *error = why;
        return false;
    }
    m_infos.clear();
    m_directories.clear();
    // t = 0 of the run, recorded in run.json (the clock origins) before the first request exists.
    const RunClock clock;
    for (qsizetype i = 0; i < targets.size(); ++i) {
        RunConfig config = share;
        config.target = targets[i];
        config.outDir = directories.value(i);
        // A named directory that holds anything is a mistake in the configuration, not a failure
        // of the run: its files are not replaced unless asked (--force).
        if (!m_replaceExisting && !config.outDir.isEmpty()) {
            if (const QString why = RunWriter::occupied(config.outDir); !why.isEmpty()) {
                m_configurationError = true;
                if (error)
                    *error = why + QStringLiteral(": choose a new or empty directory");
                return false;
            }
        }
        RunInfo info = RunInfo::begin(config, clock.origin());
        const RequestBuilder &builder = plan->targets.at(std::size_t(i)).instances.front();
        const ProxyChoice &proxy = builder.endpoint().proxy;
        info.connection.proxy = proxy.url();
        info.connection.proxySource = QLatin1String(proxySourceName(proxy.source));
        info.connection.proxyOrigin = proxy.origin;
        info.connection.transport = transportKindName(builder.transport()); // a proxy may have moved it
        if (builder.endpoint().tls) {
            for (const QByteArray &protocol : alpnProtocols(alpnFor(builder.endpoint().httpVersion)))
                info.connection.alpn << QString::fromLatin1(protocol);
        }
        info.shard = m_shard;
        info.models = plan->targets.at(std::size_t(i)).models;
        info.saltReplayed = !configured.prompt.salt.isEmpty() && !m_freshSalt;
        info.sharedPromptTokens = plan->prompts->sharedTokens();
        if (const auto &stats = plan->prompts->workloadStats()) {
            info.workload = stats->toJson();
            if (stats->badLines > 0)
                info.preRunWarnings << QStringLiteral("workload file: %1").arg(stats->describe());
        }
        if (m_contextTokens > 0) {
            const auto over = plan->prompts->overContext(m_contextTokens, config.request.maxTokens);
            if (const QString warning = over.warning(m_contextTokens); !warning.isEmpty())
                info.preRunWarnings << warning;
        }
        if (m_shard.isSharded())
            info.totalLoad = workload.load;
        QString directory =
            config.outDir.isEmpty() ? RunWriter::defaultDirectory(config, info.startedAt) : config.outDir;
        if (config.outDir.isEmpty() && m_directories.contains(directory))
            directory += QStringLiteral("-%1").arg(i + 1); // two targets with one model name
        m_directories << directory;
        m_infos.push_back(std::move(info));
    }

    if (!startExporter(error))
        return false;

    m_run.start(new RunSession(this, plan, m_infos, m_exporter.get()), QStringLiteral("tb-run"));
    bool opened = false;
    RunSession *session = m_run.worker();
    // Creating the directories is quick; doing it here lets start() report an unwritable path.
    QMetaObject::invokeMethod(
        session, [&] { opened = session->open(m_directories, m_replaceExisting, &why); }, Qt::BlockingQueuedConnection);
    if (!opened) {
        shutDown();
        if (error)
            *error = why;
        return false;
    }
    m_running = true;
    const int threads = m_workerThreads;
    QMetaObject::invokeMethod(
        session, [session, threads, clock] { session->begin(threads, clock); }, Qt::QueuedConnection);
    Q_EMIT runStarted(m_directories.first());
    return true;
}

bool BenchmarkRunner::startExporter(QString *error)
{
    if (m_metricsListen.isEmpty()) {
        m_exporter.reset();
        m_exporterAddress.clear();
        return true;
    }
    if (m_exporter && m_exporterAddress == m_metricsListen) {
        m_exporter->publish(std::vector<ExportedTarget>{}); // the last run's figures are not this one's
        return true;
    }
    m_exporter.reset();
    m_exporterAddress.clear();
    QString why;
    const auto address = MetricsExporter::parseAddress(m_metricsListen, &why);
    if (!address) {
        m_configurationError = true;
        if (error)
            *error = QStringLiteral("--metrics-listen: ") + why;
        return false;
    }
    auto exporter = std::make_unique<MetricsExporter>();
    if (!exporter->listen(address->first, address->second, &why)) {
        if (error)
            *error = QStringLiteral("--metrics-listen %1: %2").arg(m_metricsListen, why);
        return false;
    }
    m_exporter = std::move(exporter);
    m_exporterAddress = m_metricsListen;
    return true;
}

QString BenchmarkRunner::metricsUrl() const
{
    return m_exporter ? m_exporter->url() : QString();
}

void BenchmarkRunner::stop()
{
    if (!m_running || !m_run.isRunning())
        return;
    RunSession *session = m_run.worker();
    QMetaObject::invokeMethod(
        session, [session] { session->stop(); }, Qt::QueuedConnection);
}

void BenchmarkRunner::retire()
{
    // The run is over: its thread deletes the session — joining the transport threads there — and
    // ends by itself, so the caller (the GUI thread, usually) never waits for that teardown.
    m_running = false;
    QThread *thread = m_run.retire();
    if (!thread)
        return;
    m_retiring.removeAll(nullptr);
    m_retiring.append(thread);
}

void BenchmarkRunner::shutDown()
{
    m_run.stop();
    m_running = false;
}

} // namespace tb
