#pragma once

// The simulator's API surface, what all its APIs share: parsing and validating a generation
// request's common fields, and writing responses (SSE events and JSON bodies) in each API's exact
// format, so that the official client libraries work unchanged. Each API's own part is its
// SimApi (simapi.h: sim<dialect>.cpp).

#include "sim/simconfig.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <variant>

namespace tb::sim {

enum class Endpoint { Chat, Completions, Messages, Responses, Embeddings, Rerank, Score };

/// "chat", "completions", "messages", "responses", "embeddings", "rerank", "score" (as in RequestTrace::endpoint)
const char *endpointName(Endpoint endpoint);

struct GenerationRequest {
    Endpoint endpoint = Endpoint::Chat;
    std::string model;
    bool stream = false;
    bool includeUsage = false;       ///< stream_options.include_usage (Anthropic always reports usage)
    std::optional<qint64> maxTokens; ///< max_completion_tokens, else max_tokens
    qint64 minTokens = 0;            ///< vLLM's min_tokens
    bool ignoreEos = false;          ///< vLLM's ignore_eos: generate exactly max_tokens
    bool jsonOutput = false;         ///< structured output asked for (SimApi::readResponseFormat)
    nlohmann::json outputSchema;     ///< its schema; null: any JSON object (json_object)
    /// Tools were offered and tool_choice allows a call (SimApi::readTools): the reply is one call
    /// to toolName, its arguments generated from toolParameters.
    bool toolCall = false;
    std::string toolName;
    nlohmann::json toolParameters;
    /// The prompt ends with tools' results (an agent loop's turn after calls): under tool_choice
    /// auto the reply is text, as a model's that has what it asked for.
    bool afterToolResult = false;
    /// The tool call ids of the history so far, which a tool result must answer (read with the prompt).
    std::unordered_set<std::string> toolCallIds;
    /// The text whose tokens count as the prompt: message contents (text parts only), system
    /// prompt first, joined with '\n' (which is no token); roles and templates add nothing.
    std::string prompt;
    qint64 promptTokenIds = 0; ///< completions given token ids count one token each
    qint64 images = 0;         ///< image content parts (SimImage)
    qint64 imageTokens = 0;    ///< their prompt tokens, by SimImage's rule
    qint64 inputs = 0;         ///< embeddings: the inputs (prompt holds them all, '\n' between); rerank: documents
    bool base64 = false;       ///< embeddings: encoding_format "base64"
};

struct ApiError {
    int status = 400;
    std::string message;
    std::string param; ///< the offending parameter, if any
    std::string code;  ///< machine-readable code, if any
};

/// Parses and validates a request body; unknown models are a 404.
std::variant<GenerationRequest, ApiError> parseGenerationRequest(Endpoint endpoint, std::string_view body,
                                                                 const SimConfig &config);

/// An error body in the style of the endpoint's API (OpenAI's {"error": {…}} or Anthropic's
/// {"type": "error", "error": {…}}).
std::string errorBody(Endpoint endpoint, const ApiError &error);

struct ResponseMeta {
    Endpoint endpoint = Endpoint::Chat;
    std::string id;
    std::string model;
    qint64 created = 0; ///< Unix seconds
    bool includeUsage = false;
    /// llamacpp: usage has no details and is always in the chunk with the finish reason (chat,
    /// completions), never a chunk of its own, whatever stream_options say.
    Dialect usageDialect = Dialect::Vllm;
    qint64 inputs = 0;   ///< embeddings: one vector each; rerank: one score each
    bool base64 = false; ///< embeddings: the vectors as base64 of little-endian float32
    quint64 seed = 0;    ///< embeddings, rerank: what the vectors and scores derive from (the request plan's)
    /// The reply is a call to this tool (GenerationRequest::toolCall), its arguments the content
    /// text; empty: an ordinary reply.
    std::string toolName;
    std::string toolCallId; ///< the call's unique part; each API puts its own prefix before it
};

struct Usage {
    qint64 promptTokens = 0;
    qint64 completionTokens = 0; ///< reasoning included
    qint64 cachedTokens = 0;
    qint64 reasoningTokens = 0;
};

/// llama.cpp's `timings` of a finished request (chat and completions): what its slot evaluated
/// and generated, and how long each took.
struct Timings {
    qint64 promptN = 0; ///< prompt tokens evaluated: not served from the prefix cache
    double promptMs = 0;
    qint64 predictedN = 0;
    double predictedMs = 0; ///< from the first token to the last

    nlohmann::json toJson() const;
};

class SimStream;

/// Writes one streaming response's SSE events with its API's SimStream. Everything constant per
/// response is formatted once, so a token chunk costs a few appends (this runs for every chunk of
/// every stream).
class SseFormatter
{
public:
    explicit SseFormatter(const ResponseMeta &meta);
    ~SseFormatter();
    SseFormatter(SseFormatter &&) noexcept;
    SseFormatter &operator=(SseFormatter &&) noexcept;

    /// Events sent with the response headers: chat's role chunk, Anthropic's message_start.
    void start(std::string &out, const Usage &prompt);
    /// One chunk of generated text; `text` must need no JSON escaping (TextSource's words).
    void delta(std::string &out, bool reasoning, std::string_view text);
    /// The closing events: finish reason, usage (when asked for, or always for Anthropic), and
    /// [DONE] / message_stop. `timings` (chat, completions) goes into the finish reason's chunk.
    void finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings = nullptr);

private:
    std::unique_ptr<SimStream> m_stream;
};

/// A complete non-streaming response body; `timings` (chat, completions) at its top level.
std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                         bool stoppedByLength, const Usage &usage, const Timings *timings = nullptr);

} // namespace tb::sim
