#pragma once

#include "metrics/contextsweep.h"
#include "metrics/runinfo.h"
#include "metrics/runsummary.h"
#include "metrics/slices.h"
#include "metrics/timeseriesrow.h"

#include <cstdint>
#include <vector>

namespace tb {

struct RequestRecord;
class TokenTimeline;

/// Turns the records of a run into its summary (docs/SPEC.md §4 summary.json: the whole run and each stage)
/// and its per-second time series, incrementally: add() costs O(chunks of the record) and keeps no
/// record, so the orchestrator calls it for every completed request and the live view asks for
/// summary() / timeSeries() whenever it redraws. Not thread-safe: use it from one thread and send
/// the value types it returns across threads.
///
/// Definitions (beyond docs/SPEC.md §3):
///  - Warm-up records count in requests.warmup and nowhere else (statistics, window, time series).
///  - Latency, token and throughput figures come from successful requests only.
///  - Cancelled requests (cut off by Stop) are neither ok nor failed: attempted = ok + failed, and
///    they show as requests.cancelled and by_error.cancelled. Counting them as failures would charge
///    the target for the user's Stop — every stopped run would show as many errors as it had
///    requests in flight — and counting them as attempted would do the same to good_fraction. They
///    still count in flight, and in the window.
///  - A request is good when it succeeded and meets every configured SLO on TTFT, TPOT and E2E
///    (measured from sent, as docs/SPEC.md §3 defines them). An unset SLO does not constrain, nor does one
///    on a metric the request does not have (TPOT below 2 tokens, TTFT without any token).
///  - Queue delay and TTFT/E2E from schedule are recorded wherever the schedule is known: in
///    open loop the arrival's time, in closed loop when the user was ready for the next request —
///    so a connect that stalled (a SYN retried after 1 s) is in what the user waited.
///  - The request phases (blocked, connect, tls, sending, waiting, receiving) come from every
///    attempted request that reached them, failed ones included; a connect of kSlowConnectMs or
///    more is a summary warning.
///  - In flight: from the records' [sent, done] intervals (failed and cancelled included); tokens in
///    flight likewise, each record holding its prompt from sent and each output token (of a
///    successful request) from its arrival, to done.
///  - Error-adjusted TTFT and E2E percentiles: the successful requests' values and each failed
///    request (not cancelled) as +∞.
///  - Cache hits are unexpected — a summary warning — beyond the tokens the run's requests share by
///    design (RunInfo::sharedPromptTokens; the rest of each prompt is unique to it and to the run,
///    its salt): more came from outside the run. Conversations carry their history and prompts
///    repeated on purpose are expected to hit. A run that replays a salt says so instead.
///  - A synthetic prompt the server measured (usage) below ContextSweepSummary::kTruncatedBelow of
///    its requested size was truncated by it: a summary warning, and out of a context sweep's fit.
///  - Conversations get figures per turn index (RequestRecord::turn) from their successful requests.
///  - Requests abandoned on purpose (--cancel-rate) are neither ok nor failed, like Stop's, and
///    counted apart (requests.abandoned, in prefill or decode; summary.cancellation): they are the
///    workload's, not the target's. They count in flight and stretch the window (they are load).
///  - A target with replicas also gets a block per instance (RequestRecord::instance); requests
///    never sent to any instance (cancelled while waiting) are in no instance's block.
///  - A run of more than one model (RunInfo::models) gets a block per model (RequestRecord::model).
class RunAggregator
{
public:
    /// Mean tokens per token-bearing chunk above which a summary warning says that ITL (per token)
    /// and ICL (per chunk) differ by that factor.
    static constexpr double kTokensPerChunkWarning = 1.2;

    explicit RunAggregator(RunInfo info);
    ~RunAggregator();
    RunAggregator(RunAggregator &&) noexcept;
    RunAggregator &operator=(RunAggregator &&) noexcept;

    void add(const RequestRecord &record);
    /// Stage `stage` of the load began at `ns` of run time (warm-up is no stage).
    void markStageStarted(int stage, std::int64_t ns);
    /// Stop ended the load at `ns` of run time; `reason`: the run stopped itself, saying why.
    void markStopped(std::int64_t ns, const QString &reason = {});

    const RunInfo &info() const { return m_info; }
    /// Before the first record: the run's t = 0 moves to the load's start (RunInfo::moveOrigin).
    void moveOrigin(std::chrono::steady_clock::time_point origin) { m_info.moveOrigin(origin); }
    /// Records added so far, warm-up included.
    std::int64_t recordCount() const { return m_records; }

    RunSummary summary() const;
    /// Fills summary.steady->block (a found window's figures) from the run's records (chunks
    /// included): the aggregator keeps no record, so the block is made once the run is saved.
    static void addSteadyBlock(RunSummary &summary, const RunInfo &info, const std::vector<RequestRecord> &records);
    /// --window (info's load.window): makes total cover the steady window (addSteadyBlock first) or
    /// the requests sent from a time on, the whole run kept in summary.window; when the window
    /// cannot be had (no steady state, nothing sent after the time) total stays whole and a warning
    /// says why.
    static void applyHeadlineWindow(RunSummary &summary, const RunInfo &info,
                                    const std::vector<RequestRecord> &records);
    /// How the prompts were sized (known once calibration, if any, is done); goes into summaries.
    void setPromptSizing(const PromptSizing &sizing) { m_promptSizing = sizing; }
    /// Rows [fromSecond, end): end is the last second with any event, or, when nowNs ≥ 0 (run
    /// time of a live run), the last second completed by then. A live run's recent rows still grow
    /// as long requests complete and are attributed to the seconds they were sent and streamed in,
    /// so a live view re-reads its last rows.
    std::vector<TimeSeriesRow> timeSeries(int fromSecond = 0, std::int64_t nowNs = -1) const;

    /// Heap bytes held (for the benchmark's memory figure).
    std::size_t heapBytes() const;

private:
    struct Block;
    struct Second;

    /// The second of run time `ns` falls in; none past kMaxTimeSeriesSeconds (counted).
    Second *second(std::int64_t ns);
    bool isGood(const RequestRecord &record) const;
    /// When Stop ended the load: as marked, else (a summary recomputed from requests.csv) when the
    /// first cancelled request ended; -1 when nothing was stopped.
    std::int64_t stoppedNs() const;
    /// Marks the stages of a stopped run in `summary`: the one Stop cut, those never reached, and
    /// the run's target concurrency from the stages that ran.
    void markPartial(RunSummary &summary, std::int64_t stopNs) const;
    /// The context sweep's block of `summary` (whose stage blocks are made).
    ContextSweepSummary contextSweep(const RunSummary &summary) const;
    /// "6 of 16 connects took ≈1 s …: the server's accept queue overflowed …", or empty.
    static QString slowConnectWarning(const SummaryBlock &total);
    /// The shape of the whole run's distributions (docs/metrics.md): bimodal TTFT or ITL (recorded in
    /// summary.bimodal), several tokens per chunk.
    static QStringList distributionWarnings(RunSummary &summary);
    /// What makes the prompts' figures suspect: a replayed salt, unexpected cache hits, truncation.
    QStringList promptWarnings(const SummaryBlock &total) const;

    RunInfo m_info;
    PromptSizing m_promptSizing;
    std::vector<Block> m_blocks;    ///< [0] the whole run, [1 + i] stage i
    std::vector<Block> m_instances; ///< with replicas: one per instance, over the whole run
    std::vector<Block> m_models;    ///< with more than one model: one per model, over the whole run
    struct Turn {
        std::int64_t requests = 0;
        std::int64_t toolResults = 0; ///< requests whose prompt carried tool results
        std::int64_t promptTotal = 0, completionTotal = 0;
        LogHistogram ttftMs, promptTokens, cachedTokens, completionTokens;
    };
    std::vector<Turn> m_turns; ///< conversations: [k − 1] turn k
    struct ContextStage {
        std::int64_t requests = 0;
        LogHistogram promptTokens;
        std::vector<ContextSweepSummary::Point> points;   ///< the first kMaxPointsPerStage
        std::vector<ContextSweepSummary::Point> excluded; ///< truncated requests', likewise
    };
    std::vector<ContextStage> m_context; ///< a context sweep (stages with prompt sizes): per stage
    struct Truncation {
        std::int64_t requested = 0; ///< the stage's synthetic prompt size, system included; 0: none asked for
        std::int64_t requests = 0;  ///< successful requests the server truncated
        std::int64_t measuredMin = 0;
        std::int64_t measuredMax = 0;
    };
    std::vector<Truncation> m_truncation; ///< per stage
    std::vector<Second> m_seconds;
    std::vector<std::int64_t> m_stageStartNs; ///< per stage, -1 until it began
    std::int64_t m_stoppedNs = -1;
    QString m_stopReason;
    /// The whole-run block over the records sent in [fromNs, toNs).
    static SummaryBlock blockSentIn(const RunInfo &info, const std::vector<RequestRecord> &records, std::int64_t fromNs,
                                    std::int64_t toNs);
    /// ≥ 0: only records sent in [m_sentFromNs, m_sentToNs) count (blockSentIn).
    std::int64_t m_sentFromNs = -1;
    std::int64_t m_sentToNs = -1;
    std::int64_t m_firstCancelledNs = -1;
    std::int64_t m_records = 0;
    std::int64_t m_pastSeries = 0;                     ///< sends and completions after the time series' last second
    std::optional<SliceAggregator> m_slices;           ///< with --slice
    std::optional<CancellationTracker> m_cancellation; ///< with --cancel-rate
    int m_streamsPerConnection = 0;
};

} // namespace tb
