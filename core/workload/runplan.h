#pragma once

#include "api/requestbuilder.h"
#include "config/modelmix.h"
#include "config/runconfig.h"
#include "config/sharding.h"
#include "metrics/requestrecord.h"
#include "workload/promptsource.h"

#include <atomic>
#include <memory>
#include <vector>

namespace tb {

/// One target of a run: a request builder per instance (its url, then its replicas) and how
/// requests are spread over them.
struct PlannedTarget {
    std::vector<RequestBuilder> instances;
    Balance balance = Balance::RoundRobin;
    /// The target's tokenizer (target.tokenizer): counts text the server gives no usage for;
    /// nullptr: none ("server" cannot count locally), one token per chunk.
    std::shared_ptr<const Tokenizer> tokenizer;
    /// What --model asks for: one name, or the mix requests draw from.
    ModelMix mix;
    /// The models its requests ask for: the mix's names, then those only workload rows name (their
    /// "model"), in order of first appearance; what RequestRecord::model indexes.
    QStringList models;
};

/// Everything workers need to make requests, prepared once before the run and then shared
/// read-only between threads.
struct RunPlan {
    RunConfig config;          ///< the configuration as given (a value copy)
    QList<StageConfig> stages; ///< effectiveStages(config.load)
    std::vector<PlannedTarget> targets;
    /// Sized in the first target's tokenizer (all targets of a comparison get the same prompts).
    std::shared_ptr<const PromptSource> prompts;
    /// A context sweep: per stage, the prompts of its own size (StageConfig::promptTokens); null
    /// (or past the end) where the stage uses `prompts`.
    std::vector<std::shared_ptr<const PromptSource>> stagePrompts;
    ShardSpec shard; ///< which share of a sharded run `config.load` is
    /// secretsOf() every target: masked in server-provided text before it is recorded. Never printed.
    QStringList secrets;

    const PromptSource &promptsOf(int stage) const;
    /// The model (an index into targets[target].models) request `job` with `prompt` asks for: its
    /// workload row's, else the mix's draw for its conversation (every turn asks the same model)
    /// or its id, from where the run's salt starts the pattern.
    int modelFor(int target, std::uint64_t id, std::uint64_t conversation, const Prompt &prompt) const;
    /// (Re)makes `prompts` and `stagePrompts`, sized in `tokenizer` as `calibration` says; false with
    /// *error when a workload file cannot be read.
    bool makePrompts(const std::shared_ptr<const Tokenizer> &tokenizer, const PromptCalibration &calibration,
                     QString *error);

    /// Validates and prepares; nullptr with *error (naming the field) when the run cannot start.
    static std::shared_ptr<const RunPlan> create(const RunConfig &config, QString *error);
    /// An interleaved comparison: every request goes to each of `targets` (same prompt, same
    /// scheduled time); RequestRecord::target says which. `config.target` is not used.
    static std::shared_ptr<const RunPlan> create(const RunConfig &config, const QList<TargetConfig> &targets,
                                                 QString *error, ShardSpec shard = {});
};

/// One request the load profile wants made.
struct RequestJob {
    std::uint64_t id = 0;
    int stage = 0;
    bool warmup = false;
    std::int64_t scheduledNs = 0;
    int target = 0;
    int instance = 0; ///< which of the target's instances (load balancing)
    /// Conversations (--turns): the turn (1-based; 0 = an independent request), which conversation,
    /// and its prompt, history included (else the worker asks the plan's PromptSource).
    int turn = 0;
    std::uint64_t conversation = 0;
    std::shared_ptr<const Prompt> prompt;
    int toolResults = 0; ///< conversations with --tools: the tool results `prompt` ends with

    /// Its record before anything of its exchange is known: what the job says of it.
    RequestRecord record() const
    {
        RequestRecord r;
        r.id = id;
        r.stage = stage;
        r.target = target;
        r.instance = instance;
        r.warmup = warmup;
        r.scheduledNs = scheduledNs;
        r.turn = turn;
        r.conversation = conversation;
        r.toolResults = toolResults;
        return r;
    }
};

/// Counters workers update on the hot path and the controller reads for live progress.
struct LiveCounters {
    std::atomic<std::int64_t> inFlight{0}; ///< sent on the wire, not yet done
    std::atomic<std::int64_t> peakInFlight{0};
    std::atomic<std::int64_t> chunks{0};      ///< token-bearing chunks received
    std::atomic<std::int64_t> connecting{0};  ///< requests waiting for TCP to connect
    std::atomic<std::int64_t> handshaking{0}; ///< requests waiting for a TLS handshake
    /// Connections the native transports began to open: the last number given (RequestRecord::connection).
    std::atomic<std::uint64_t> connectionsOpened{0};

    void requestSent()
    {
        const std::int64_t now = inFlight.fetch_add(1, std::memory_order_relaxed) + 1;
        std::int64_t peak = peakInFlight.load(std::memory_order_relaxed);
        while (now > peak && !peakInFlight.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
        }
    }
    void requestDone() { inFlight.fetch_sub(1, std::memory_order_relaxed); }
    /// The next connection's number, unique in the run whichever worker thread opens it.
    std::uint64_t nextConnection() { return connectionsOpened.fetch_add(1, std::memory_order_relaxed) + 1; }
};

} // namespace tb
