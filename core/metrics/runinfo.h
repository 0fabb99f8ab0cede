#pragma once

#include "config/runconfig.h"
#include "config/sharding.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <cstdint>
#include <optional>

namespace tb {

/// How the run's connections were made (run.json's and summary.json's "connection" block).
struct ConnectionInfo {
    QString proxy;       ///< the proxy's URL, never its credentials; empty: direct
    QString proxySource; ///< "none" | "config" | "environment" | "system" (engine/proxyresolver.h)
    QString proxyOrigin; ///< what decided: "HTTPS_PROXY", "NO_PROXY", "target.proxy", "system"; may be empty
    QString transport;   ///< "native" | "qnam" (docs/measuring.md "Transports"); empty for runs from before transports
    /// Most requests seen in flight on one connection (HTTP/2 streams; 1 over HTTP/1.1); 0: not
    /// known before the run, or no response arrived. Set in the summary, from the records.
    int streamsPerConnection = 0;
    /// What the connections offered by ALPN ("h2", "http/1.1"), in order of preference; empty
    /// in clear (http://).
    QStringList alpn;
    /// What the server picked, from the responses: "h2" or "http/1.1" over https, "h2c" or
    /// "http/1.1" in clear; several when its connections differed. Set in the summary.
    QStringList negotiated;

    /// "http://proxy:3128 (HTTPS_PROXY)", "none (NO_PROXY)", "none".
    QString proxyText() const;
    nlohmann::json toJson() const;
    static ConnectionInfo fromJson(const nlohmann::json &json); ///< absent or partial: direct
    bool operator==(const ConnectionInfo &) const = default;
};

/// The I/O backend a run was measured with (run.json's and summary.json's "io" block): what its
/// chunk times and timers could see (platform/iobackend.h). Runs from before it have none.
struct IoInfo {
    QString backend;  ///< "linux" | "portable"; "mixed" for a merged run whose shards differed; empty: not recorded
    QString poller;   ///< "epoll", "poll and Qt socket notifiers"; "mixed"
    QString stamping; ///< where a response's bytes were stamped, in words; "mixed"
    /// Every chunk time is the bytes' arrival at the socket; false: some are when this process read them.
    bool kernelReceiveStamps = false;
    QString timerPrecision;       ///< "1 ns (timerfd)", "1 ms (Qt timer, rounded up)"; "mixed"
    std::int64_t clockStepNs = 0; ///< the steady clock's step as the run's process saw it (a merged run: the largest)

    /// This build and process: tb::ioBackend() and tb::steadyClockResolutionNs().
    static IoInfo current();
    /// A merged run's: each field the shards share, "mixed" where they differ; kernel receive
    /// stamps only if every shard had them. Not recorded if any shard's is not.
    static IoInfo merged(const QList<IoInfo> &shards);
    bool recorded() const { return !backend.isEmpty(); }
    /// "linux backend (epoll; chunk times: kernel receive stamps; timers 1 ns; clock step 24 ns)",
    /// or "not recorded".
    QString text() const;
    nlohmann::json toJson() const;
    static IoInfo fromJson(const nlohmann::json &json); ///< absent or not an object: not recorded
    bool operator==(const IoInfo &) const = default;
};

/// What describes a run besides its records: the configuration as run, the stages it executes, and
/// where and when it started. The aggregator names its blocks from it, the writer stores it as
/// run.json, the reader gives it back.
struct RunInfo {
    RunConfig config;          ///< as run, redacted(): no key, no userinfo, no credential header value
    QList<StageConfig> stages; ///< effectiveStages(config.load): what RequestRecord::stage indexes
    QDateTime startedAt;       ///< wall-clock time of the run's t = 0
    QString host;
    QString toolVersion;
    /// CLOCK_MONOTONIC (steady_clock) and Unix wall time at t = 0, in ns (0: unknown, older runs):
    /// joins the run's offsets with other tools' stamps on this machine, and aligns shards.
    std::int64_t monotonicOriginNs = 0;
    std::int64_t wallOriginNs = 0;
    ShardSpec shard;           ///< a sharded run: config.load is this shard's share of totalLoad
    LoadConfig totalLoad;      ///< with shard.isSharded(): the whole run's load before the split
    QStringList mergedFrom;    ///< a merged run: the shard directories it was made of
    ConnectionInfo connection; ///< of the target's (first instance's) connections
    IoInfo io;                 ///< the I/O backend it was measured with
    /// What reading the workload file kept and dropped (WorkloadStats::toJson()); null without one.
    nlohmann::json workload;
    /// Problems found before the run (e.g. requests longer than the model's context): summary warnings.
    QStringList preRunWarnings;
    /// The most prompt tokens a request shares with other requests of the run by design (system
    /// prompt, shared prefix, a workload file's system messages), in the sizing tokenizer; none
    /// when requests repeat one another by design (prompt.repeat, a trace's hash blocks) or it is
    /// not known (runs from before). More cached tokens than that are a summary warning.
    std::optional<std::int64_t> sharedPromptTokens;
    /// The prompt salt was given (--prompt-salt, prompt.salt), not made for this run: its prompts
    /// are an earlier run's, which a server's prefix cache may still hold.
    bool saltReplayed = false;
    /// The models its requests asked for, what RequestRecord::model indexes: --model's (a mix's
    /// names), then those only the workload file's rows named (run.json "models" when more than
    /// one). Empty (a RunInfo made by hand): modelList() reads config.target.model.
    QStringList models;

    /// `models`, or the names config.target.model gives (ModelMix); one name when unparsable.
    QStringList modelList() const;
    /// modelList()[index]; empty when out of range.
    QString modelName(int index) const;

    /// For a run whose t = 0 is `origin` (steady_clock) on this machine with this build.
    static RunInfo begin(const RunConfig &config,
                         std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now());
    /// The run's t = 0 moved to `origin` (the load starts after calibration): the clock's stamps
    /// and startedAt name that instant.
    void moveOrigin(std::chrono::steady_clock::time_point origin);
    /// startedAt as ISO 8601 with milliseconds and the UTC offset ("2024-05-01T10:00:00.000+02:00").
    QString startedAtText() const;

    /// "~512 tokens + system ~128" (or the prompt file, or "templates").
    QString promptText() const;
    /// The stages with arrivals and warm-up: "c=4:5s, c=16:5s", "r=20:60s poisson, warm-up 10s".
    QString loadText() const;
    /// One line that says what was measured, for a figure's caption: model and target, load,
    /// prompt and max tokens, date ("gpt4-like at http://… · c=4:5s · ~512 tokens · max 256 tokens ·
    /// 2026-12-01 10:00").
    QString workloadCaption() const;
    /// wallOriginNs as ISO 8601 UTC with microseconds ("2024-05-01T08:00:00.123456Z"); empty when unknown.
    QString wallOriginText() const;
};

} // namespace tb
