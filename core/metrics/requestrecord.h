#pragma once

// What the engine measured about one request: plain data, produced by the transport, consumed by
// metrics and results. All times are nanoseconds on one monotonic clock (steady_clock), relative
// to the run's start (docs/SPEC.md §2); -1 means "did not happen".

#include <QMetaType>
#include <QString>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb {

/// `ok` or the error class (docs/SPEC.md §3 error rate). HTTP errors carry httpStatus.
enum class RequestStatus : std::uint8_t {
    Ok,
    Http,            ///< non-2xx status (429, 500, 503, 4xx …); see httpStatus
    Timeout,         ///< per-request deadline passed
    Connect,         ///< connection refused / host unreachable / DNS
    Tls,             ///< TLS handshake or certificate failure
    Protocol,        ///< malformed HTTP, SSE or JSON; a peer that is not an HTTP/1.1 server
    StreamTruncated, ///< the stream ended without [DONE] / finish
    ServerError,     ///< the server's own error in a 2xx response: an error event mid-stream, an error body
    Cancelled,       ///< stopped by the user
    Proxy,           ///< the proxy refused the connection, wanted credentials (407) or refused CONNECT
    /// Cancelled on purpose by the workload (--cancel-rate, --cancel-after): neither ok nor failed.
    /// Not "cancelled", which is Stop's in every requests.csv written before it.
    Abandoned,
};
/// "ok", "http", "timeout", "connect", "tls", "protocol", "stream-truncated", "server-error", "cancelled",
/// "proxy", "abandoned"
const char *statusName(RequestStatus status);
std::optional<RequestStatus> statusFromName(const QString &name);

/// Where completion/prompt token counts came from (docs/SPEC.md §3 "Token counts"): the server's usage,
/// the target's configured tokenizer, one token per chunk (completions), or TokenBench's
/// approximation when no tokenizer is configured (prompts).
enum class TokenSource : std::uint8_t { Usage, Tokenizer, Chunks, Estimate };
const char *tokenSourceName(TokenSource source); ///< "usage", "tokenizer", "chunks", "estimate"
std::optional<TokenSource> tokenSourceFromName(const QString &name);

/// Where a cached-token count came from: the server's usage (cached_tokens; Anthropic's cache
/// reads), or llama.cpp's `timings` (usage's prompt tokens less timings.prompt_n, the tokens it
/// evaluated); None when the server said nothing of its cache.
enum class CacheSource : std::uint8_t { None, Usage, Timings };
const char *cacheSourceName(CacheSource source); ///< "", "usage", "timings"
std::optional<CacheSource> cacheSourceFromName(const QString &name);

/// What the check of a structured output (--response-format) found in a successful request's
/// reply (docs/metrics.md "Structured output"): None when no format was asked or the request
/// failed; NotChecked when the reply was longer than the decoder keeps (StreamDecoder::kMaxReplyBytes).
enum class OutputCheck : std::uint8_t { None, NotChecked, NotJson, SchemaInvalid, Valid };
/// "", "not_checked", "invalid_json", "schema_invalid", "valid"
const char *outputCheckName(OutputCheck check);
std::optional<OutputCheck> outputCheckFromName(const QString &name);

/// What the check of a successful request's tool calls (--tools) found (docs/metrics.md "Tool
/// calls"): NotAsked when no tools were offered or the request failed; None when no call came;
/// Missing when none came though --tool-choice required one (llama.cpp sends a call cut by
/// max_tokens as content); else the worst of its calls: arguments that are not JSON, then
/// arguments not valid for the tool's parameters (or a tool that was not offered); NotChecked when
/// the calls were longer than the decoder keeps (ToolCallTexts::kMaxBytes, kMaxCalls).
enum class ToolCallCheck : std::uint8_t { NotAsked, None, NotChecked, InvalidJson, SchemaMismatch, Valid, Missing };
/// "", "none", "not_checked", "invalid_json", "schema_mismatch", "valid", "missing"
const char *toolCallCheckName(ToolCallCheck check);
std::optional<ToolCallCheck> toolCallCheckFromName(const QString &name);

/// A tool call of a reply as a conversation's next turn sends it back (--tools with --turns): the
/// server's call id (empty when it sent none, or one the client would not send back: see
/// ToolCallTexts::kMaxIdBytes), the tool's name and the arguments as received (JSON text, maybe broken).
struct ReplyToolCall {
    std::string id;
    std::string name;
    std::string arguments;
};

/// One token-bearing chunk: when its read was stamped, and how many characters of generated text
/// (content, reasoning or tool-call arguments) it carried. Tokens per chunk are apportioned from
/// the completion token count by these characters (see metrics/requestmetrics.h).
struct ChunkStamp {
    std::int64_t tNs = 0;
    std::int32_t chars = 0;
};

struct RequestRecord {
    std::uint64_t id = 0; ///< 1-based, in order of scheduling
    int stage = 0;        ///< index into the run's effective stages
    int target = 0;       ///< index of the target (interleaved comparisons send each request to several)
    int instance = 0;     ///< which of the target's instances served it (load balancing); -1: none (never sent)
    int shard = -1;       ///< a merged run: the index of the shard that made it; -1 otherwise
    int model = 0;        ///< which of the run's models it asked for (RunInfo::models)
    bool warmup = false;  ///< excluded from statistics, still in requests.csv
    int turn = 0;         ///< conversations (--turns): 1-based turn index; 0 = not a conversation
    std::uint64_t conversation = 0; ///< conversations: which one (1-based, in order of starting); 0 = none
    RequestStatus status = RequestStatus::Ok;
    int httpStatus = 0;                                    ///< 0 when no response arrived
    int httpVersion = 0;                                   ///< of the response: 1 (HTTP/1.1), 2 (HTTP/2); 0: none
    int redirects = 0;                                     ///< redirects followed (target.follow_redirects)
    int streams = 0;                                       ///< requests on its connection as its answer began
    TokenSource tokenSource = TokenSource::Chunks;         ///< of completionTokens
    TokenSource promptTokenSource = TokenSource::Estimate; ///< of promptTokens

    std::int64_t scheduledNs = -1;     ///< when the load profile wanted it sent
    std::int64_t sentNs = -1;          ///< handed to the network (request bytes written)
    std::int64_t headersNs = -1;       ///< response headers received
    std::int64_t firstTokenNs = -1;    ///< first chunk with content or reasoning (tool-call text is neither)
    std::int64_t firstContentNs = -1;  ///< first chunk with non-reasoning content
    std::int64_t firstToolCallNs = -1; ///< first chunk with a tool call's name or arguments (--tools)
    std::int64_t lastTokenNs = -1;     ///< last token-bearing chunk
    std::int64_t doneNs = -1;          ///< stream complete / response body complete / failure seen

    /// Where the wait before `sent` went (docs/SPEC.md §3 request phases, named as k6 and HAR name them),
    /// in ns; -1: not measured (QNAM does not say when TCP is up or when bytes left; a phase the
    /// request never reached). Of the attempt that got the answer; an attempt on a stale
    /// connection before it is in `blocked`.
    std::int64_t blockedNs =
        -1; ///< scheduled → its connect began, or its bytes began to go out on a kept-alive connection
    std::int64_t connectNs =
        -1;                  ///< TCP connect, name lookup and a proxy's tunnel included; 0 on a kept-alive connection
    std::int64_t tlsNs = -1; ///< TLS handshake; 0 in clear or on a kept-alive connection
    std::int64_t sendingNs = -1; ///< its bytes going out: the first write → all of them in the kernel
    /// Times it was sent again because its kept-alive connection closed before any response
    /// (transport.h connectionStale); at most limits::kMaxRetries.
    int retries = 0;
    /// The connection that carried it (its last hop; after a stale kept-alive connection, the new
    /// one): numbered from 1 in the order the run's native transports began to open them; 0:
    /// unknown (QNAM does not say; runs from before it). Kept alive or new: connectNs is 0 on a
    /// kept-alive one.
    std::uint64_t connection = 0;
    /// The response was complete by its protocol ([DONE], its API's finish event, a whole JSON
    /// body) but the server did not end its HTTP body after it (a chunked body without its last
    /// chunk, a Content-Length larger than the body, a connection kept open): its connection was
    /// closed and not reused (TransportWorker::kBodyEndGraceNs).
    bool unendedBody = false;

    int chunks = 0; ///< token-bearing chunks (== tokenChunks.size() while kept)
    /// Inputs the request carried (embeddings: request.batch_size); 0 for the generating APIs.
    int inputs = 0;
    /// Images the request carried (--images, a dataset row's) and their files' bytes, before base64.
    int images = 0;
    std::int64_t imageBytes = 0;
    /// With images and the server's usage: its prompt tokens less the text's as the run counts
    /// them (docs/metrics.md "Images"): what the images cost (negative when a server counts less);
    /// none otherwise.
    std::optional<std::int64_t> imageTokens;
    std::int64_t promptTokens = 0;
    std::int64_t completionTokens = 0;
    std::int64_t cachedTokens = 0; ///< usage.prompt_tokens_details.cached_tokens (or Anthropic cache reads)
    CacheSource cachedSource = CacheSource::None; ///< where cachedTokens came from
    std::int64_t reasoningTokens = 0;             ///< usage.completion_tokens_details.reasoning_tokens
    /// Reasoning tokens the server counted but did not stream (OpenAI's o-series): reasoningTokens
    /// when no reasoning text arrived, else 0. They are inside completionTokens and TTFO, and out
    /// of TPOT, ITL and decode speed, which measure what was streamed.
    std::int64_t hiddenReasoningTokens = 0;

    double retryAfterS = -1; ///< from a 429's Retry-After, -1 when absent
    QString responseId;      ///< the server's response "id"
    QString finishReason;
    QString errorMessage; ///< short, human readable, never contains secrets

    std::vector<ChunkStamp> tokenChunks; ///< every token-bearing chunk; may be dropped after aggregation
    /// Conversations: the generated content as received (bounded), which the next turn carries.
    /// Taken by the load controller; never written to a file.
    std::string reply;
    /// Conversations with --tools: the reply's tool calls (bounded as ToolCallTexts keeps them),
    /// which the next turn sends back with their results; taken with `reply`, never written.
    std::vector<ReplyToolCall> replyCalls;
    bool replyCallsCut = false; ///< more calls or call text came than are kept: they cannot go back whole
    /// Conversations with --tools: the tool results this request's prompt carried (one per call of
    /// the turn before); 0 when its new message was a user's.
    int toolResults = 0;
    /// Output redundancy of the generated content (metrics/outputredundancy.h), in [0, 1]; -1: none
    /// (a failed request, or fewer than 3 units of text).
    double redundancy = -1;
    /// With --save-outputs: the generated content as received, at most
    /// OutputRedundancy::kMaxExaminedBytes, for outputs.jsonl; empty otherwise.
    std::string output;
    /// --response-format: whether the reply parsed as JSON and was valid for the schema.
    OutputCheck outputCheck = OutputCheck::None;
    /// Tool calls the response made (their names and arguments are not content: docs/metrics.md).
    int toolCalls = 0;
    /// --tools: whether its calls' arguments were JSON valid for their tools' parameters.
    ToolCallCheck toolCallCheck = ToolCallCheck::NotAsked;

    bool ok() const { return status == RequestStatus::Ok; }
    /// The first generated token of any kind — content, reasoning or a tool call —: decoding began
    /// (--cancel-after counts from it); -1 before.
    std::int64_t firstGeneratedNs() const
    {
        if (firstTokenNs < 0 || firstToolCallNs < 0)
            return std::max(firstTokenNs, firstToolCallNs);
        return std::min(firstTokenNs, firstToolCallNs);
    }

    // Derived durations in milliseconds; std::nullopt when the events are missing (docs/SPEC.md §3).
    std::optional<double> ttfbMs() const { return spanMs(sentNs, headersNs); }
    std::optional<double> ttftMs() const { return spanMs(sentNs, firstTokenNs); }
    std::optional<double> ttftFromScheduleMs() const { return spanMs(scheduledNs, firstTokenNs); }
    /// Time to first visible output: first non-reasoning content − sent.
    std::optional<double> ttfoMs() const { return spanMs(sentNs, firstContentNs); }
    /// Time to first tool-call token: the first chunk of a tool call's name or arguments − sent.
    std::optional<double> firstToolCallMs() const { return spanMs(sentNs, firstToolCallNs); }
    /// last_token − sent; without tokens (non-streaming, or empty output) done − sent.
    std::optional<double> e2eMs() const { return spanMs(sentNs, lastTokenNs >= 0 ? lastTokenNs : doneNs); }
    std::optional<double> e2eFromScheduleMs() const
    {
        return spanMs(scheduledNs, lastTokenNs >= 0 ? lastTokenNs : doneNs);
    }
    std::optional<double> queueMs() const { return spanMs(scheduledNs, sentNs); }
    std::optional<double> blockedMs() const { return durationMs(blockedNs); }
    std::optional<double> connectMs() const { return durationMs(connectNs); }
    std::optional<double> tlsMs() const { return durationMs(tlsNs); }
    std::optional<double> sendingMs() const { return durationMs(sendingNs); }
    /// The server's turn: sent → headers (TTFB).
    std::optional<double> waitingMs() const { return ttfbMs(); }
    /// headers → done.
    std::optional<double> receivingMs() const { return spanMs(headersNs, doneNs); }
    /// The completion tokens that arrived in the stream: all of them, less hidden reasoning.
    std::int64_t streamedTokens() const { return std::max<std::int64_t>(completionTokens - hiddenReasoningTokens, 0); }
    /// (last_token − first_token) / (streamed tokens − 1), for ≥ 2 streamed tokens. With hidden
    /// reasoning nothing but visible output streams, so first_token is the first visible one.
    std::optional<double> tpotMs() const
    {
        if (streamedTokens() < 2 || firstTokenNs < 0 || lastTokenNs < firstTokenNs)
            return std::nullopt;
        return double(lastTokenNs - firstTokenNs) / 1e6 / double(streamedTokens() - 1);
    }
    /// streamed tokens / (last_token − first_token), tokens/s.
    std::optional<double> decodeTokensPerS() const
    {
        if (streamedTokens() < 2 || firstTokenNs < 0 || lastTokenNs <= firstTokenNs)
            return std::nullopt;
        return double(streamedTokens()) / (double(lastTokenNs - firstTokenNs) / 1e9);
    }

    static std::optional<double> spanMs(std::int64_t from, std::int64_t to)
    {
        if (from < 0 || to < 0)
            return std::nullopt;
        return double(to - from) / 1e6;
    }
    static std::optional<double> durationMs(std::int64_t ns)
    {
        if (ns < 0)
            return std::nullopt;
        return double(ns) / 1e6;
    }
};

} // namespace tb

Q_DECLARE_METATYPE(tb::RequestRecord)
