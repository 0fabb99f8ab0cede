#pragma once

// The summary of a run (docs/SPEC.md §4 summary.json) as a value type: produced by RunAggregator, written
// and read by the run directory code, shown by the GUI and the comparison table.

#include "config/runconfig.h"
#include "metrics/bimodality.h"
#include "metrics/cancellationsummary.h"
#include "metrics/clienthealthsummary.h"
#include "metrics/contextsweep.h"
#include "metrics/erroradjusted.h"
#include "metrics/gpumetrics.h"
#include "metrics/latencystats.h"
#include "metrics/loghistogram.h"
#include "metrics/runinfo.h"
#include "metrics/servermetrics.h"
#include "metrics/slices.h"
#include "metrics/steadywindow.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace tb {

/// Version of summary.json and run.json; a reader refuses files from a newer one.
inline constexpr int kRunFormatVersion = 1;

/// Every distribution a summary block carries.
enum class Metric : std::uint8_t {
    Ttft,             ///< first_token − sent, ms
    Ttfo,             ///< first visible (non-reasoning) output − sent, ms
    TtftFromSchedule, ///< first_token − scheduled (closed loop: when the user was ready), ms
    Ttfb,             ///< headers − sent, ms
    E2e,              ///< last_token (or done) − sent, ms
    E2eFromSchedule,  ///< the same from scheduled, ms
    Tpot,             ///< ms per output token after the first
    Itl,              ///< token-normalised inter-token latency, ms, one value per token
    Icl,              ///< raw inter-chunk gap, ms
    QueueDelay,       ///< sent − scheduled, ms
    DecodeSpeed,      ///< completion tokens / (last_token − first_token), tokens/s
    TokensPerChunk,   ///< apportioned tokens of each token-bearing chunk
    RetryAfter,       ///< Retry-After of failed requests, s
    // The request phases (docs/SPEC.md §3), ms, over every attempted request that reached them:
    Blocked,   ///< scheduled → its connect began or its bytes began to go out
    Connect,   ///< TCP connect (0 on a kept-alive connection)
    Tls,       ///< TLS handshake (0 in clear or kept alive)
    Sending,   ///< the request's bytes going out
    Waiting,   ///< sent → headers: the server's turn (= TTFB)
    Receiving, ///< headers → done
};
inline constexpr std::size_t kMetricCount = 19;
/// What people call it: "TTFT", "TTFT from schedule", "E2E", "Decode speed", "Retry-After", …
QString metricLabel(Metric metric);
/// The metrics under "latency_ms" (the first ten).
bool isLatencyMetric(Metric metric);
/// The request phases, under "phases_ms".
bool isPhaseMetric(Metric metric);
/// A connect this long is a retried SYN (the first retry comes after 1 s), not a slow network.
inline constexpr double kSlowConnectMs = 900;

struct LoadSummary {
    LoadMode mode = LoadMode::Concurrency;
    std::optional<int> concurrency; ///< concurrency-mode level
    std::optional<double> rate;     ///< rate-mode level, requests/s
    std::optional<Arrival> arrival; ///< rate mode only
    int maxInFlight = 0;            ///< open-loop cap, 0 = none
    QString stages;                 ///< formatStages() of the whole run; empty in stage blocks
};

struct RequestCounts {
    std::int64_t attempted = 0; ///< ok + failed: requests that reached a verdict
    std::int64_t ok = 0;
    std::int64_t failed = 0;    ///< errors caused by the target or the network
    std::int64_t cancelled = 0; ///< cut off by Stop: neither ok nor failed (see RunAggregator)
    /// --cancel-rate: abandoned on purpose, neither ok nor failed (see RunAggregator); of them,
    /// those abandoned before their first token (in prefill; the rest in decode).
    std::int64_t abandoned = 0;
    std::int64_t abandonedInPrefill = 0;
    std::int64_t warmup = 0;     ///< warm-up requests, excluded from everything else
    std::int64_t redirected = 0; ///< attempted requests that followed a redirect
    std::int64_t redirects = 0;  ///< redirects they followed, all hops
    /// Times attempted requests were sent again: a kept-alive connection the server had closed
    /// (docs/SPEC.md §3 request phases), or QNAM's own reposts of requests it failed unsent.
    std::int64_t retries = 0;
    /// Embeddings: the inputs successful requests carried (Σ RequestRecord::inputs); 0 for the
    /// generating APIs.
    std::int64_t inputs = 0;
    std::map<int, std::int64_t> byStatus;    ///< HTTP status of attempted requests that got one
    std::map<QString, std::int64_t> byError; ///< error class → count, "cancelled" included
    /// finish_reason of successful requests ("stop", "length", Anthropic's "end_turn", "max_tokens" …)
    std::map<QString, std::int64_t> byFinishReason;
    /// HTTP version ("1.1", "2") of attempted requests that got a response: what was negotiated.
    std::map<QString, std::int64_t> byHttpVersion;
    /// Successful requests that stopped at the max_tokens cap (finish_reason "length" or "max_tokens").
    std::int64_t stoppedAtCap() const;

    /// Every request that reached a verdict failed: the run measured nothing of the target.
    bool allFailed() const { return attempted > 0 && ok == 0; }
};

struct ThroughputSummary {
    double requestsPerS = 0;
    double outputTokensPerS = 0;
    double inputTokensPerS = 0;
    double totalTokensPerS = 0;
    double peakOutputTokensPerS = 0; ///< the largest 1-s bucket of run time
    double goodputRequestsPerS = 0;
    double inputsPerS = 0; ///< embeddings: requests.inputs / window; 0 for the generating APIs
    std::int64_t good = 0;
    std::optional<double> goodFraction; ///< good / attempted; none without attempts
};

struct TokenSummary {
    std::int64_t input = 0; ///< Σ over successful requests, like every figure here
    std::int64_t output = 0;
    std::int64_t cached = 0;
    std::int64_t reasoning = 0;
    std::int64_t reasoningHidden = 0;    ///< of `reasoning`, counted by the server but not streamed
    std::optional<double> outInRatio;    ///< output / input
    std::optional<double> cacheHitRatio; ///< cached / input
    std::int64_t fromUsage = 0;          ///< successful requests whose counts came from each source
    std::int64_t fromTokenizer = 0;
    std::int64_t fromChunks = 0;
    std::int64_t fromEstimate = 0;    ///< non-streaming, no usage, no tokenizer: ApproxTokenizer
    std::int64_t promptFromUsage = 0; ///< successful requests whose prompt count came from each source
    std::int64_t promptFromTokenizer = 0;
    std::int64_t promptEstimated = 0;
    std::int64_t cachedFromUsage = 0;   ///< successful requests whose cached count the usage gave
    std::int64_t cachedFromTimings = 0; ///< … or llama.cpp's timings.prompt_n (RequestRecord::cachedSource)
    std::int64_t promptMin = 0;         ///< smallest and largest prompt_tokens of a successful request
    std::int64_t promptMax = 0;
};

/// How prompts were sized: what was asked, in which tokenizer, and what calibration found.
struct PromptSizing {
    std::optional<std::int64_t> requested; ///< system_tokens + prompt_tokens of synthetic prompts
    QString tokenizer;                     ///< Tokenizer::description() of the sizing tokenizer
    std::int64_t localTokens = 0;          ///< that tokenizer's count of a synthetic prompt (after calibration)
    QString calibration;                   ///< "usage" or "tokenize" when calibrated, else empty
    QString calibrationDialect;            ///< with "tokenize": the body that counted, e.g. {"content"}
    double scale = 1;                      ///< target tokens per local token, from calibration
    std::int64_t overhead = 0;             ///< chat-template tokens per request, from calibration
    std::int64_t trim = 0;                 ///< local tokens of words calibration took off each user prompt
    std::int64_t pad = 0;                  ///< fillers calibration added to each user prompt
    int probes = 0;                        ///< calibration requests sent
    std::optional<std::int64_t> probed;    ///< the target's count of the calibrated prompt
    QString calibrationError;              ///< why --calibrate could not calibrate (the run went on without)
    /// How long calibration took, before the run's t = 0 (the load's start); 0 when there was none
    /// or the run is from before it was recorded.
    double calibrationS = 0;
    bool operator==(const PromptSizing &) const = default;
};

/// How attempted requests got their connections (native transport; QNAM does not say).
struct ConnectionSummary {
    std::int64_t opened = 0; ///< requests that waited for a new connection to open
    std::int64_t reused = 0; ///< requests sent on a kept-alive connection
    /// Of `opened`, connects of kSlowConnectMs or more, and their mean: a connect retried after
    /// its SYN was dropped (an accept queue overflowed) takes 1 s, 3 s, 7 s …
    std::int64_t slow = 0;
    double slowMeanMs = 0;
    /// Of `slow`, those that took about a SYN retry's time (isSynRetryMs): several retries mixed
    /// (1 s and 3 s) have a mean that is neither.
    std::int64_t slowAtSynRetry = 0;
    /// Whether a connect of `ms` took about what Linux's SYN retries take: 1 s, then 3 s, 7 s …
    /// after the first try.
    static bool isSynRetryMs(double ms);
    /// Responses complete by their protocol whose HTTP body the server never ended: their
    /// connections were closed (RequestRecord::unendedBody).
    std::int64_t unendedBodies = 0;
};

/// Output redundancy of a block's successful requests that have one (docs/metrics.md "Output
/// redundancy"): its mean and percentiles (from a LogHistogram: the mean exact, percentiles within
/// 0.5%), and how many exceed the run's threshold (quality.redundancy_threshold).
struct RedundancySummary {
    std::int64_t requests = 0;
    double mean = 0;
    double p50 = 0;
    double p90 = 0;
    double threshold = 0.3;
    std::int64_t above = 0; ///< requests with redundancy > threshold
    double aboveShare() const { return requests > 0 ? double(above) / double(requests) : 0; }
    QString unit; ///< "tokens" (the target has a tokenizer) or "words"
};

/// Structured output (--response-format) of a block's successful requests (docs/metrics.md
/// "Structured output"): how many replies were checked, parsed as JSON, and were valid for the
/// schema; and the quality-qualified goodput, good requests (every SLO met) whose reply was valid.
struct StructuredOutputSummary {
    std::int64_t requests = 0;        ///< successful requests, their replies to be checked
    std::int64_t notChecked = 0;      ///< replies longer than the client keeps (StreamDecoder::kMaxReplyBytes)
    std::int64_t validJson = 0;       ///< checked replies that parsed as JSON
    std::int64_t schemaValid = 0;     ///< of them, those valid for the schema (json_object: every one)
    std::int64_t qualifiedGood = 0;   ///< good requests whose reply was checked and valid
    double qualifiedGoodputPerS = 0;  ///< qualifiedGood / the block's window
    double qualifiedGoodFraction = 0; ///< qualifiedGood / attempted requests, as goodFraction
    std::int64_t checked() const { return requests - notChecked; }
    double validJsonShare() const { return checked() > 0 ? double(validJson) / double(checked()) : 0; }
    double schemaValidShare() const { return checked() > 0 ? double(schemaValid) / double(checked()) : 0; }
};

/// Images the block's requests carried (--images, a dataset's "images"; docs/metrics.md "Images"),
/// and what the server counted for them: each successful request with usage costs its prompt
/// tokens less its text's (RequestRecord::imageTokens); divided by its images, that is its tokens
/// per image, whose median is over those requests, and whose mean weighs each image alike (Σ image
/// tokens / Σ their images).
struct ImageSummary {
    std::int64_t requests = 0;       ///< attempted requests that carried images
    std::int64_t images = 0;         ///< the images they carried
    std::int64_t imageBytes = 0;     ///< their files' bytes, before base64
    std::int64_t measured = 0;       ///< successful requests whose usage gave their images' tokens
    std::int64_t measuredImages = 0; ///< the images of those
    std::int64_t imageTokens = 0;    ///< Σ of their images' tokens
    double tokensPerImageMedian = 0; ///< of the measured requests' tokens per image (the lower middle)
    double tokensPerImageMean() const { return measuredImages > 0 ? double(imageTokens) / double(measuredImages) : 0; }
    /// "18 sent (1.9 MiB); prompt tokens per image 90.0 median, 90.0 mean (6 requests' usage)"
    QString line() const;
};

/// Tool calls (--tools) of a block's successful requests (docs/metrics.md "Tool calls"): how many
/// made calls, whether their arguments were JSON valid for the tools' parameters, the time to
/// the first tool-call token, the tokens of the requests that made calls, and the quality-
/// qualified goodput: good requests (every SLO met) that made no invalid call and, where the tool
/// choice required one, made a call.
struct ToolCallSummary {
    std::int64_t requests = 0;        ///< successful requests offered tools
    std::int64_t withCalls = 0;       ///< of them, those that made a call
    std::int64_t calls = 0;           ///< their calls in all
    std::int64_t notChecked = 0;      ///< requests whose calls were longer than the client keeps
    std::int64_t valid = 0;           ///< requests whose every call was valid
    std::int64_t invalidJson = 0;     ///< requests with a call whose arguments were not JSON
    std::int64_t schemaMismatch = 0;  ///< the others with a call not valid for its tool's parameters
    std::int64_t missing = 0;         ///< requests without a call that --tool-choice required
    std::int64_t tokens = 0;          ///< completion tokens of the requests with calls
    LatencyStats firstToolCallMs;     ///< sent → first tool-call token, of streamed requests with calls
    std::int64_t qualifiedGood = 0;   ///< good requests with no invalid or missing call
    double qualifiedGoodputPerS = 0;  ///< qualifiedGood / the block's window
    double qualifiedGoodFraction = 0; ///< qualifiedGood / attempted requests, as goodFraction
    std::int64_t checked() const { return withCalls - notChecked; }
    double validShare() const { return checked() > 0 ? double(valid) / double(checked()) : 0; }
};

struct ConcurrencySummary {
    std::optional<int> target; ///< virtual users (concurrency mode); none for open loop
    int peakInFlight = 0;
    /// Busy time / window: the time-weighted ("effective") concurrency.
    double meanInFlight = 0;
    /// Tokens held by the requests in flight (TokensInFlight): time-weighted over the window, and
    /// the largest one-second mean. 0 in summaries from before them.
    double meanTokensInFlight = 0;
    double peakTokensInFlight = 0;
};

/// What a block's requests cost at the target's prices (docs/user-guide.md "Cost"), in USD. Tokens are those
/// of successful requests, as everywhere in a summary: cached prompt tokens at the cached price
/// (the input price when none is set), the rest of the prompt at the input price, completion
/// tokens (reasoning included) at the output price.
struct CostSummary {
    Pricing prices;
    double input = 0;       ///< uncached prompt tokens
    double cachedInput = 0; ///< cached prompt tokens
    double output = 0;
    double total = 0;
    std::optional<double> perRequest;       ///< total / successful requests
    std::optional<double> perMOutputTokens; ///< total per 1M output tokens
    std::optional<double> perGoodRequest;   ///< total / good requests (meeting every SLO)

    /// None when the target has no price.
    static std::optional<CostSummary> of(const Pricing &prices, const TokenSummary &tokens, std::int64_t ok,
                                         std::int64_t good);
};

/// How far a block got when Stop ended the run early: a stage Stop cut, or the whole stopped run.
struct StopSummary {
    double afterS = 0;                ///< the stage's (the load's) start → Stop
    double plannedS = 0;              ///< the planned duration; 0: it ended by count alone
    std::int64_t plannedRequests = 0; ///< the planned count; 0: it ended by time alone
    /// Why the run stopped itself ("over-saturated at 23 s: …", --stop-on-saturation); empty: Stop.
    QString reason;
    bool operator==(const StopSummary &) const = default;
};

/// One block of summary.json: the whole run, or one stage (then `name` is set).
struct SummaryBlock {
    QString name;
    LoadSummary load;
    /// First sent → last done, warm-up excluded; a request Stop cancelled does not stretch it: the
    /// block Stop cut ends at Stop, a stage that ended before ends at its last request done.
    double windowS = 0;
    std::optional<StopSummary> stopped; ///< Stop cut this stage (or ended this run) before its plan
    bool reached = true;                ///< false: a stage Stop came before
    RequestCounts requests;
    ThroughputSummary throughput;
    TokenSummary tokens;
    ConcurrencySummary concurrency;
    ConnectionSummary connections;
    std::optional<CostSummary> cost;                         ///< with prices for the target
    std::optional<RedundancySummary> redundancy;             ///< when a successful request had one
    std::optional<StructuredOutputSummary> structuredOutput; ///< when a successful request's reply was checked
    std::optional<ImageSummary> images;                      ///< when a request carried images
    std::optional<ToolCallSummary> toolCalls;                ///< when a successful request was offered tools
    std::array<LatencyStats, kMetricCount> stats{};
    std::array<LogHistogram, kMetricCount> histograms{};
    /// TTFT and E2E with failures as +∞ (docs/metrics.md); count 0 in summaries from before them.
    ErrorAdjusted errorAdjustedTtft;
    ErrorAdjusted errorAdjustedE2e;

    const LatencyStats &stat(Metric m) const { return stats[std::size_t(m)]; }
    const LogHistogram &histogram(Metric m) const { return histograms[std::size_t(m)]; }
    /// Its figures do not cover its plan: Stop cut it, or it never began.
    bool partial() const { return stopped.has_value() || !reached; }
    /// What a reader of its figures must know: "stopped after 2.1 s of 10 s", "not reached
    /// (stopped before)", or empty for a block that ran its plan.
    QString partialNote() const;
    /// The stage's name with partialNote() after it: "c=100 (stopped after 2.1 s of 10 s)".
    QString label() const;
};

/// The run's steady state (SteadyWindow, docs/metrics.md "Steady state") beside the whole run.
struct SteadySummary {
    SteadyWindow window;
    QString method; ///< SteadyWindow::method(): the rule and its parameters
    /// Every figure over the requests sent in [window.startS, window.endS) (name "steady"); none
    /// when no window was found, or in a live snapshot (it is made from the saved requests at the end).
    std::optional<SummaryBlock> block;
    /// "steady state 15–55 s of 60 s: TTFT p99 410 ms (whole run 1,240 ms)", or "steady state: none
    /// (why)"; `whole` is the run's total block.
    QString line(const SummaryBlock &whole) const;
};

/// What the headline figures (RunSummary::total) cover when --window chose less than the whole run
/// (docs/metrics.md "Headline window").
struct HeadlineWindowSummary {
    QString mode;       ///< "steady" (the steady-state window) or "from" (sent from startS on)
    double startS = 0;  ///< the requests sent in [startS, endS) of run time
    double endS = 0;    ///< "from": the run's end
    SummaryBlock whole; ///< the whole run's figures, which total holds without --window
    /// "headline figures cover the steady state 10–30 s (--window); …", for the CLI, GUI and compare.
    QString line() const;
};

/// Conversations (--turns): one turn index over the whole run, from its successful requests
/// (warm-up excluded) — the multi-turn token growth, measured.
struct TurnSummary {
    int turn = 0;              ///< 1-based
    std::int64_t requests = 0; ///< successful requests of this turn
    LatencyStats ttftMs;
    LatencyStats promptTokens; ///< as counted (usage first, docs/SPEC.md §3)
    LatencyStats cachedTokens;
    LatencyStats completionTokens;
    /// --tools: requests of this turn whose prompt ended with tool results (an agent loop's turn
    /// after calls); none in summaries from before it.
    std::int64_t toolResults = 0;
    std::int64_t promptTokensTotal = 0; ///< summed over the turn's requests
    std::int64_t completionTokensTotal = 0;
};

/// The token cost of a conversation (--turns): the sum over its turn indexes of the mean request's
/// tokens (docs/metrics.md "Conversations"); what an agent loop costs when each runs every turn.
struct ConversationTokens {
    double prompt = 0;
    double completion = 0;
    int turnsWithToolResults = 0; ///< turn indexes where some request carried tool results
    double total() const { return prompt + completion; }
    static ConversationTokens of(const std::vector<TurnSummary> &turns);
};

/// A run made from another tool's result file (`tokenbench-cli import`, docs/output-files.md
/// "Imported runs"): which tool and file, whether per-request values were there (then every figure
/// is TokenBench's own, computed from them) or only the tool's summary (then the figures are its
/// point values, under our names), and how the tool's definitions differ from ours.
struct ImportedFrom {
    QString tool;            ///< "vLLM bench serve", "GuideLLM", "AIPerf"
    QString version;         ///< as the file says; empty when it does not
    QString source;          ///< the file's name (no directory)
    bool perRequest = false; ///< per-request values were imported: distributions and noise tests are ours
    /// The metric keys ("ttft", "tpot", "icl", "e2e") that hold the tool's own point values only
    /// (its mean, median, percentiles) without the values under them.
    QStringList pointValues;
    QStringList definitions; ///< each definition of the tool's that differs from ours, in words
    /// "vLLM bench serve 0.11.0 (run.json)": what a comparison calls it.
    QString text() const;
    nlohmann::json toJson() const;
    static std::optional<ImportedFrom> fromJson(const nlohmann::json &json, QString *error);
    bool operator==(const ImportedFrom &) const = default;
};

struct RunSummary {
    /// The transport and the HTTP versions it negotiated: "native · HTTP/1.1", "qnam · HTTP/2",
    /// "qnam · HTTP/1.1 × 3, HTTP/2 × 5"; empty for runs from before transports were chosen.
    QString transportText() const;
    /// The API and, when known, transportText(): "openai-chat, qnam · HTTP/2" (compare's run lines).
    QString apiAndTransport() const;

    int formatVersion = kRunFormatVersion;
    QString toolName;
    QString toolVersion;
    QString targetName;
    QString targetUrl;
    QString api;
    QString model;
    QString startedAt;          ///< ISO 8601 with offset
    QStringList targetReplicas; ///< more instances of the target beyond targetUrl
    QString balance;            ///< balanceName() when there are replicas, else empty
    ConnectionInfo connection;  ///< how the connections were made (RunInfo::connection)
    IoInfo io;                  ///< the I/O backend it was measured with (RunInfo::io); not recorded in older runs
    SummaryBlock total;
    std::vector<SummaryBlock> stages;
    /// With replicas: one block per instance (name = its URL, in url-then-replicas order) over the
    /// whole run, so the balance policy's effect — load share, per-instance latency — shows.
    std::vector<SummaryBlock> instances;
    /// With more than one model (a --model mix, a dataset's "model"): one block per model (name =
    /// the model's, in RunInfo::models order) over the whole run, the way instances get theirs.
    std::vector<SummaryBlock> models;
    std::vector<TurnSummary> turns;                  ///< conversations only: turn 1, 2, …
    std::optional<ContextSweepSummary> contextSweep; ///< context sweeps only (--sweep p=…)
    /// Single-stage runs; none in summaries from before it and for staged runs.
    std::optional<SteadySummary> steady;
    /// --window steady|D: what total covers; none when it covers the whole run.
    std::optional<HeadlineWindowSummary> window;
    PromptSizing promptSizing;
    /// The server's own metrics over the run, when its Prometheus endpoint was scraped.
    std::optional<ServerSummary> server;
    /// GPU telemetry over the run (--gpu-metrics: a DCGM exporter), with energy per token.
    std::optional<GpuSummary> gpu;
    /// --cancel-rate: the abandoned requests and the others' latency before and during.
    std::optional<CancellationSummary> cancellation;
    /// Whether this machine kept up (ClientHealthMonitor); none in summaries from before it.
    std::optional<ClientHealthSummary> client;
    /// A run imported from another tool's file; none for TokenBench's own runs.
    std::optional<ImportedFrom> imported;
    /// The whole run's bimodal distributions by metric key ("ttft", "itl"); none when unimodal.
    std::map<QString, Bimodality> bimodal;
    /// Per-slice metrics (--slice): the slice length and the slices; 0 and none when not asked for.
    double sliceS = 0;
    std::vector<SliceSummary> slices;
    /// What makes the figures suspect, in words (e.g. cache hits the workload did not ask for).
    QStringList warnings;
    /// The workload file's reading (format, entries read, bad lines skipped, filtered, sampled);
    /// null when prompts came from no file.
    nlohmann::json workload;

    /// Stop ended the run before its plan (or, for a stage split off as a run, cut that stage).
    bool partial() const { return total.partial(); }
    /// The whole run's figures: total, or what --window moved out of it.
    const SummaryBlock &wholeRun() const { return window ? window->whole : total; }
    /// The stopped run in one line, for every place that shows or exports its figures: "partial run:
    /// stopped after 12.3 s of 30 s; c=100 stopped after 2.1 s of 10 s; c=200 not reached: stopped
    /// before"; empty when it ran its plan.
    QString partialNote() const;

    nlohmann::json toJson() const;
    /// Reads summary.json. Unknown keys are ignored (later versions may add some); a missing or
    /// mistyped docs/SPEC.md key is an error "path.to.key: problem". A newer format_version is refused with
    /// "written by a newer format version N".
    static std::optional<RunSummary> fromJson(const nlohmann::json &json, QString *error);
};

} // namespace tb
