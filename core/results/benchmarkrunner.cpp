#include "results/benchmarkrunner.h"

#include "engine/loadcontroller.h"
#include "metrics/runaggregator.h"
#include "results/runwriter.h"

#include <QThread>
#include <QTimer>

namespace tb {

namespace {

constexpr int kRecordsIntervalMs = 100;  // ≤ 10 Hz to the GUI
constexpr int kSnapshotIntervalMs = 250; // summaries and time series
constexpr int kFlushIntervalMs = 1000;   // requests.csv reaches the disk at least once a second

} // namespace

/// The run's work on its own thread: owns the controller, the aggregator and the writer, and
/// posts value types back to the runner.
class RunSession : public QObject
{
public:
    RunSession(BenchmarkRunner *runner, std::shared_ptr<const RunPlan> plan, RunInfo info)
        : m_runner(runner)
        , m_plan(std::move(plan))
        , m_aggregator(info)
    {
        m_recordsTimer.setParent(this);
        m_snapshotTimer.setParent(this);
        m_flushTimer.setParent(this);
        connect(&m_recordsTimer, &QTimer::timeout, this, &RunSession::postRecords);
        connect(&m_snapshotTimer, &QTimer::timeout, this, &RunSession::postSnapshot);
        connect(&m_flushTimer, &QTimer::timeout, this, [this] { m_writer.flush(); });
    }

    ~RunSession() override
    {
        // Destroyed mid-run (the runner went away): requests in flight are abandoned, but what
        // finished is saved with a summary.
        if (m_controller && !m_finished) {
            m_controller.reset();
            m_writer.finish(m_aggregator.summary(), m_aggregator.timeSeries());
        }
    }

    bool open(const QString &directory, const RunInfo &info, QString *error)
    {
        if (!m_writer.open(directory, info)) {
            *error = m_writer.errorString();
            return false;
        }
        return true;
    }

    void begin(int workerThreads)
    {
        m_controller = std::make_unique<LoadController>(m_plan, RunClock(), [this](RequestRecord &&r) { recordDone(std::move(r)); });
        connect(m_controller.get(), &LoadController::stageStarted, this, [this](int stage, bool warmup) {
            const QString name = m_plan->stages.at(stage).name;
            post([stage, name, warmup](BenchmarkRunner *r) { Q_EMIT r->stageStarted(stage, name, warmup); });
        });
        connect(m_controller.get(), &LoadController::finished, this, &RunSession::finish);
        m_recordsTimer.start(kRecordsIntervalMs);
        m_snapshotTimer.start(kSnapshotIntervalMs);
        m_flushTimer.start(kFlushIntervalMs);
        m_controller->start(workerThreads);
    }

    void stop()
    {
        if (m_controller)
            m_controller->stop();
    }

private:
    template<typename Fn>
    void post(Fn &&fn)
    {
        BenchmarkRunner *runner = m_runner;
        QMetaObject::invokeMethod(runner, [runner, fn = std::forward<Fn>(fn)]() mutable { fn(runner); }, Qt::QueuedConnection);
    }

    void recordDone(RequestRecord &&record)
    {
        m_aggregator.add(record);
        if (!m_writer.append(record) && m_writeError.isEmpty()) {
            m_writeError = m_writer.errorString();
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

    RunSnapshot snapshot() const
    {
        return {m_controller->progress(), m_aggregator.summary(), m_aggregator.timeSeries(0, m_controller->progress().elapsedNs)};
    }

    void postSnapshot()
    {
        post([s = snapshot()](BenchmarkRunner *r) { Q_EMIT r->snapshotUpdated(s); });
    }

    void finish(bool cancelled)
    {
        m_finished = true;
        m_recordsTimer.stop();
        m_snapshotTimer.stop();
        m_flushTimer.stop();
        postRecords();
        RunOutcome outcome;
        outcome.directory = m_writer.directory();
        outcome.summary = m_aggregator.summary();
        outcome.timeSeries = m_aggregator.timeSeries();
        outcome.progress = m_controller->progress();
        outcome.cancelled = cancelled && m_writeError.isEmpty();
        outcome.error = m_writeError;
        if (!m_writer.finish(outcome.summary, outcome.timeSeries) && outcome.error.isEmpty())
            outcome.error = m_writer.errorString();
        post([s = RunSnapshot{outcome.progress, outcome.summary, outcome.timeSeries}](BenchmarkRunner *r) {
            Q_EMIT r->snapshotUpdated(s);
        });
        post([outcome](BenchmarkRunner *r) {
            r->m_running = false;
            r->shutDown();
            Q_EMIT r->runFinished(outcome);
        });
    }

    BenchmarkRunner *m_runner;
    std::shared_ptr<const RunPlan> m_plan;
    RunAggregator m_aggregator;
    RunWriter m_writer;
    std::unique_ptr<LoadController> m_controller;
    QList<RequestRecord> m_batch;
    QTimer m_recordsTimer;
    QTimer m_snapshotTimer;
    QTimer m_flushTimer;
    QString m_writeError;
    bool m_finished = false;
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
}

bool BenchmarkRunner::start(const RunConfig &config, QString *error)
{
    m_configurationError = false;
    if (m_running) {
        if (error)
            *error = QStringLiteral("a run is already in progress");
        return false;
    }
    shutDown();
    QString why;
    const auto plan = RunPlan::create(config, &why);
    if (!plan) {
        m_configurationError = true;
        if (error)
            *error = why;
        return false;
    }
    m_info = RunInfo::begin(config);
    m_directory = config.outDir.isEmpty() ? RunWriter::defaultDirectory(config, m_info.startedAt) : config.outDir;

    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("tb-run"));
    m_session = new RunSession(this, plan, m_info);
    m_session->moveToThread(m_thread);
    m_thread->start();
    bool opened = false;
    RunSession *session = m_session;
    // Creating the directory is quick; doing it here lets start() report an unwritable path.
    QMetaObject::invokeMethod(
        session, [&] { opened = session->open(m_directory, m_info, &why); }, Qt::BlockingQueuedConnection);
    if (!opened) {
        shutDown();
        if (error)
            *error = why;
        return false;
    }
    m_running = true;
    const int threads = m_workerThreads;
    QMetaObject::invokeMethod(session, [session, threads] { session->begin(threads); }, Qt::QueuedConnection);
    Q_EMIT runStarted(m_directory);
    return true;
}

void BenchmarkRunner::stop()
{
    if (!m_running || !m_session)
        return;
    RunSession *session = m_session;
    QMetaObject::invokeMethod(session, [session] { session->stop(); }, Qt::QueuedConnection);
}

void BenchmarkRunner::shutDown()
{
    if (!m_thread)
        return;
    RunSession *session = m_session;
    // The session's sockets and timers belong to its thread: delete it there.
    QMetaObject::invokeMethod(session, [session] { delete session; }, Qt::BlockingQueuedConnection);
    m_session = nullptr;
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_running = false;
}

} // namespace tb
