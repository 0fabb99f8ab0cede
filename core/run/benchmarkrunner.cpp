#include "run/benchmarkrunner.h"

#include "engine/loadcontroller.h"
#include "metrics/runaggregator.h"
#include "observe/metricsscraper.h"
#include "results/runwriter.h"

#include <QRandomGenerator>
#include <QThread>
#include <QTimer>

namespace tb {

namespace {

constexpr int kRecordsIntervalMs = 100;  // ≤ 10 Hz to the GUI
constexpr int kSnapshotIntervalMs = 250; // summaries and time series
constexpr int kLastScrapeWaitMs = 3000;  // a run's end waits this long at most for the last scrape

} // namespace

/// The run's work on its own thread: owns the controller and, per target, the aggregator and the
/// writer of its run directory; posts value types back to the runner.
class RunSession : public QObject
{
public:
    RunSession(BenchmarkRunner *runner, std::shared_ptr<const RunPlan> plan, const std::vector<RunInfo> &infos)
        : m_runner(runner)
        , m_plan(std::move(plan))
    {
        for (const RunInfo &info : infos)
            m_sinks.push_back(std::make_unique<Sink>(info));
        m_recordsTimer.setParent(this);
        m_snapshotTimer.setParent(this);
        connect(&m_recordsTimer, &QTimer::timeout, this, &RunSession::postRecords);
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
        m_controller =
            std::make_unique<LoadController>(m_plan, clock, [this](RequestRecord &&r) { recordDone(std::move(r)); });
        startScrapers();
        connect(m_controller.get(), &LoadController::stageStarted, this, [this](int stage, bool warmup) {
            if (!warmup) {
                const double tS = double(m_controller->clock().nowNs()) / 1e9;
                for (auto &sink : m_sinks)
                    sink->server.markMeasurementStart(tS);
            }
            const QString name = m_plan->stages.at(stage).name;
            post([stage, name, warmup](BenchmarkRunner *r) { Q_EMIT r->stageStarted(stage, name, warmup); });
        });
        connect(m_controller.get(), &LoadController::finished, this, &RunSession::finish);
        m_recordsTimer.start(kRecordsIntervalMs);
        m_snapshotTimer.start(kSnapshotIntervalMs);
        m_controller->start(workerThreads);
    }

    void stop()
    {
        if (m_controller)
            m_controller->stop();
    }

private:
    struct Sink {
        explicit Sink(const RunInfo &info)
            : aggregator(info)
        {}
        RunAggregator aggregator;
        RunWriter writer;
        ServerSeries server;
        std::unique_ptr<MetricsScraper> scraper;
        bool scrapeFailed = false;
        bool scraping = false; ///< the last scrape is awaited
    };

    /// One scraper per target whose metrics endpoint is known, each on its own thread.
    void startScrapers()
    {
        for (std::size_t i = 0; i < m_sinks.size(); ++i) {
            Sink &sink = *m_sinks[i];
            bool discovered = false;
            const QUrl url = MetricsScraper::endpointFor(sink.aggregator.info().config.target, &discovered);
            if (url.isEmpty())
                continue;
            MetricsScraper::Options options;
            options.url = url;
            options.discovered = discovered;
            options.csvPath = sink.writer.directory() + QStringLiteral("/server_metrics.csv");
            options.clock = m_controller->clock();
            const QString shown = MetricsScraper::displayUrl(url);
            sink.server.setEndpoint(shown);
            sink.scraper = std::make_unique<MetricsScraper>(options);
            MetricsScraper *scraper = sink.scraper.get();
            connect(scraper, &MetricsScraper::scraped, this,
                    [&sink](const ServerPoint &point, const QString &engine) { sink.server.add(point, engine); });
            connect(scraper, &MetricsScraper::scrapeFailed, this,
                    [this, &sink, i, shown](const QString &problem, bool stopped) {
                        // A guessed endpoint that is not there is no failure of the run: nothing is kept.
                        if (!(stopped && sink.server.isEmpty()))
                            sink.server.addFailure(problem);
                        if (!std::exchange(sink.scrapeFailed, true)) {
                            post([i, shown, problem, stopped](BenchmarkRunner *r) {
                                Q_EMIT r->serverMetricsFailed(int(i), shown, problem, stopped);
                            });
                        }
                    });
            connect(scraper, &MetricsScraper::finished, this, [this, &sink] {
                if (std::exchange(sink.scraping, false))
                    lastScrapeDone();
            });
            scraper->start();
        }
    }

    RunSummary summaryOf(const Sink &sink) const
    {
        RunSummary summary = sink.aggregator.summary();
        summary.server = sink.server.summary();
        return summary;
    }

    template<typename Fn> void post(Fn &&fn)
    {
        BenchmarkRunner *runner = m_runner;
        QMetaObject::invokeMethod(
            runner, [runner, fn = std::forward<Fn>(fn)]() mutable { fn(runner); }, Qt::QueuedConnection);
    }

    void recordDone(RequestRecord &&record)
    {
        Sink &sink = *m_sinks.at(std::size_t(record.target));
        sink.aggregator.add(record);
        if (!sink.writer.append(record) && m_writeError.isEmpty()) {
            m_writeError = sink.writer.errorString();
            m_controller->stop(); // measuring on without saving would lose the results
        }
        record.tokenChunks = {};
        m_batch.append(std::move(record));
    }

    void postRecords()
    {
        if (!m_batch.isEmpty()) {
            QList<RequestRecord> batch;
            batch.swap(m_batch);
            post([batch = std::move(batch)](BenchmarkRunner *r) { Q_EMIT r->recordsCompleted(batch); });
        }
        const RunProgress progress = m_controller->progress();
        post([progress](BenchmarkRunner *r) { Q_EMIT r->progressed(progress); });
    }

    void postSnapshots()
    {
        const RunProgress progress = m_controller->progress();
        for (std::size_t i = 0; i < m_sinks.size(); ++i) {
            const Sink &sink = *m_sinks[i];
            post([s = RunSnapshot{int(i), progress, summaryOf(sink), sink.aggregator.timeSeries(0, progress.elapsedNs),
                                  sink.server.rows()}](BenchmarkRunner *r) { Q_EMIT r->snapshotUpdated(s); });
        }
    }

    void finish(bool cancelled)
    {
        m_finished = true;
        m_cancelled = cancelled;
        m_recordsTimer.stop();
        m_snapshotTimer.stop();
        postRecords();
        // The server's counters at the end close the window: one last scrape, briefly awaited.
        for (auto &sink : m_sinks) {
            if (sink->scraper) {
                sink->scraping = true;
                ++m_scrapesAwaited;
                sink->scraper->finish();
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
            post([s = RunSnapshot{outcome.target, progress, outcome.summary, outcome.timeSeries, sink.server.rows()}](
                     BenchmarkRunner *r) { Q_EMIT r->snapshotUpdated(s); });
            outcomes.push_back(std::move(outcome));
        }
        post([outcomes = std::move(outcomes)](BenchmarkRunner *r) {
            r->retire();
            for (const RunOutcome &outcome : outcomes)
                Q_EMIT r->runFinished(outcome);
        });
    }

    BenchmarkRunner *m_runner;
    std::shared_ptr<const RunPlan> m_plan;
    std::vector<std::unique_ptr<Sink>> m_sinks;
    std::unique_ptr<LoadController> m_controller;
    QList<RequestRecord> m_batch;
    QTimer m_recordsTimer;
    QTimer m_snapshotTimer;
    QString m_writeError;
    bool m_finished = false;
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
        info.shard = m_shard;
        if (m_shard.isSharded())
            info.totalLoad = workload.load;
        QString directory =
            config.outDir.isEmpty() ? RunWriter::defaultDirectory(config, info.startedAt) : config.outDir;
        if (config.outDir.isEmpty() && m_directories.contains(directory))
            directory += QStringLiteral("-%1").arg(i + 1); // two targets with one model name
        m_directories << directory;
        m_infos.push_back(std::move(info));
    }

    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("tb-run"));
    m_session = new RunSession(this, plan, m_infos);
    m_session->moveToThread(m_thread);
    m_thread->start();
    bool opened = false;
    RunSession *session = m_session;
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

void BenchmarkRunner::stop()
{
    if (!m_running || !m_session)
        return;
    RunSession *session = m_session;
    QMetaObject::invokeMethod(
        session, [session] { session->stop(); }, Qt::QueuedConnection);
}

void BenchmarkRunner::retire()
{
    // The run is over: its thread deletes the session — joining the transport threads there — and
    // ends by itself, so the caller (the GUI thread, usually) never waits for that teardown.
    m_running = false;
    QThread *thread = std::exchange(m_thread, nullptr);
    RunSession *session = std::exchange(m_session, nullptr);
    if (!thread)
        return;
    m_retiring.removeAll(nullptr);
    m_retiring.append(thread);
    connect(thread, &QThread::finished, thread, &QObject::deleteLater);
    QMetaObject::invokeMethod(
        session,
        [session, thread] {
            delete session;
            thread->quit();
        },
        Qt::QueuedConnection);
}

void BenchmarkRunner::shutDown()
{
    if (!m_thread)
        return;
    RunSession *session = m_session;
    // The session's sockets and timers belong to its thread: delete it there.
    QMetaObject::invokeMethod(
        session, [session] { delete session; }, Qt::BlockingQueuedConnection);
    m_session = nullptr;
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_running = false;
}

} // namespace tb
