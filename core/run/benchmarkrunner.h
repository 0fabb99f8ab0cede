#pragma once

#include "client/runprogress.h"
#include "config/runconfig.h"
#include "config/sharding.h"
#include "metrics/gpumetrics.h"
#include "metrics/requestrecord.h"
#include "metrics/runinfo.h"
#include "metrics/runsummary.h"
#include "metrics/servermetrics.h"
#include "metrics/timeseriesrow.h"
#include "threads/ownedthread.h"

#include <QList>
#include <QObject>
#include <QPointer>

#include <memory>
#include <vector>

class QThread;

namespace tb {

class MetricsExporter;
class RunSession;

/// The live state of a run, sent to the GUI and the CLI a few times a second.
struct RunSnapshot {
    int target = 0;                        ///< which target (interleaved runs have several)
    RunProgress progress;                  ///< of the whole run
    RunSummary summary;                    ///< everything so far (the same code as summary.json)
    std::vector<TimeSeriesRow> timeSeries; ///< every second so far; the last rows may still grow
    std::vector<ServerRow> server;         ///< every scrape of the server's metrics so far
    GpuTrace gpu;                          ///< every scrape of the DCGM exporter so far (--gpu-metrics)
};

/// How a run ended.
struct RunOutcome {
    int target = 0; ///< which target (interleaved runs end with one outcome per target)
    QString directory;
    RunSummary summary;
    std::vector<TimeSeriesRow> timeSeries;
    RunProgress progress;
    bool cancelled = false; ///< Stop ended it early (results are saved all the same)
    /// The run's t = 0 as std::chrono::steady_clock nanoseconds since its epoch: joins the run's
    /// timestamps with other traces on this machine (e.g. the simulator's /sim/requests).
    std::int64_t steadyOriginNs = 0;
    QString error; ///< a runtime failure (e.g. the disk filled up); empty when none
};

/// Runs one benchmark: the load controller and its transport threads, the aggregator that makes
/// the summary, and the writer of the run directory, all off the caller's thread. The caller (GUI
/// or CLI) only receives value types through queued signals, batched: records at most 10 times a
/// second, snapshots about 4 times a second.
class BenchmarkRunner : public QObject
{
    Q_OBJECT

public:
    explicit BenchmarkRunner(QObject *parent = nullptr);
    /// A run still going is stopped without waiting for its requests: what was measured is saved.
    ~BenchmarkRunner() override;

    /// Transport threads (0 = one per core, at least 2).
    void setWorkerThreads(int threads) { m_workerThreads = threads; }
    /// Write into a named run directory that is not empty, replacing the run files there (--force);
    /// by default start() refuses it as a configuration error.
    void setReplaceExisting(bool replace) { m_replaceExisting = replace; }
    /// Run only this share of the configured load (see shardLoad); run.json records the shard and
    /// the whole run's load. Applies to the next start().
    void setShard(ShardSpec shard) { m_shard = shard; }
    /// Serve TokenBench's own figures as OpenMetrics at http://ADDRESS:PORT/metrics from the next
    /// start() on (--metrics-listen; empty: not served). Once listening, the endpoint stays up with
    /// the last run's final figures until the runner is destroyed, so a scraper sees the end of a
    /// run; a later run on the same address replaces them.
    void setMetricsListen(const QString &address) { m_metricsListen = address; }
    /// Tests only: the run's thread is kept busy for this long every 100 ms (a client starved on
    /// purpose, to see it flagged).
    void setTestStallMs(int ms) { m_testStallMs = ms; }
    /// Tests only: each transport thread is kept busy for this long every 100 ms (bytes wait in the
    /// kernel: a read backlog on purpose).
    void setTestTransportStallMs(int ms) { m_testTransportStallMs = ms; }
    /// The served endpoint, "http://127.0.0.1:9464/metrics"; empty when not serving.
    QString metricsUrl() const;
    /// The target model's context length, when it reports one (contextLengthFromModels): requests
    /// that exceed it are counted before the run, as a warning in info().preRunWarnings and the
    /// summary. 0: unknown. Applies to the next start().
    void setContextTokens(qint64 tokens) { m_contextTokens = tokens; }
    /// The configuration's prompt salt was made for this run (a sharded run's common salt), not
    /// given back from an earlier run: the run does not replay it (RunInfo::saltReplayed). Applies
    /// to the next start().
    void setFreshSalt(bool fresh) { m_freshSalt = fresh; }

    /// Validates the configuration, creates the run directory and starts. On failure returns
    /// false with *error; failureIsConfiguration() then tells a bad configuration (exit 2) from a
    /// runtime failure such as an unwritable directory (exit 1). Without a prompt salt the run
    /// gets a fresh one (info().config.prompt.salt); with one, it replays that salt's prompts
    /// and says so (info().saltReplayed) unless setFreshSalt().
    bool start(const RunConfig &config, QString *error);
    /// An interleaved comparison: each request of `configured` goes to every target at the same
    /// time (same prompt, same schedule), so conditions match; one run directory per target
    /// (`directories[i]`, or a default name when empty). Signals carry the target index, and
    /// runFinished comes once per target, in order.
    bool startInterleaved(const RunConfig &configured, const QList<TargetConfig> &targets,
                          const QStringList &directories, QString *error);
    /// Cancels the requests in flight and finishes the run (runFinished follows). Safe to call
    /// again and when not running.
    void stop();

    bool isRunning() const { return m_running; }
    bool failureIsConfiguration() const { return m_configurationError; }
    int targetCount() const { return int(m_infos.size()); }
    QString directory(int target = 0) const { return m_directories.value(target); }
    const RunInfo &info(int target = 0) const { return m_infos.at(std::size_t(target)); }

Q_SIGNALS:
    void runStarted(const QString &directory);
    void stageStarted(int stage, const QString &name, bool warmup);
    void progressed(const tb::RunProgress &progress);
    /// Finished requests in completion order, without their per-chunk stamps (those are in
    /// chunks.jsonl) to keep the GUI's memory flat.
    void recordsCompleted(const QList<tb::RequestRecord> &records);
    void snapshotUpdated(const tb::RunSnapshot &snapshot);
    /// The first time the target's metrics endpoint failed (once per run and target); `stopped`:
    /// it is not asked again (a guessed endpoint that is not there).
    void serverMetricsFailed(int target, const QString &url, const QString &problem, bool stopped);
    void runFinished(const tb::RunOutcome &outcome);

private:
    friend class RunSession;
    void shutDown();
    void retire();
    bool startExporter(QString *error);

    int m_workerThreads = 0;
    bool m_replaceExisting = false;
    qint64 m_contextTokens = 0;
    bool m_freshSalt = false;
    ShardSpec m_shard;
    QString m_metricsListen;
    int m_testStallMs = 0;
    int m_testTransportStallMs = 0;
    QString m_exporterAddress; ///< what m_exporter listens on
    std::unique_ptr<MetricsExporter> m_exporter;
    bool m_running = false;
    bool m_configurationError = false;
    QStringList m_directories;
    std::vector<RunInfo> m_infos;
    OwnedThread<RunSession> m_run;
    QList<QPointer<QThread>> m_retiring; ///< finished runs' threads, winding down on their own
};

} // namespace tb

Q_DECLARE_METATYPE(tb::RunSnapshot)
Q_DECLARE_METATYPE(tb::RunOutcome)
