#pragma once

// One API dialect as the simulator serves it: the request body's fields it needs, and the
// stream events, final body and error body in that API's exact format. A new API is a SimApi in
// its own file (sim<dialect>.cpp) with an accessor declared below, listed in simApis(), plus
// its client side (api/ApiDialect).

#include "sim/simprotocol.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb::sim {

/// One streaming response's SSE events in a dialect's format.
class SimStream
{
public:
    virtual ~SimStream() = default;
    /// Events sent with the response headers (chat's role chunk, Anthropic's message_start).
    virtual void start(std::string &out, const Usage &prompt) = 0;
    /// One chunk of generated text; `text` must need no JSON escaping (TextSource's words).
    virtual void delta(std::string &out, bool reasoning, std::string_view text) = 0;
    /// The closing events: finish reason, usage, the end marker.
    virtual void finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings) = 0;
};

class SimApi
{
public:
    virtual ~SimApi() = default;

    Endpoint endpoint() const { return m_endpoint; }
    /// "chat", as RequestTrace::endpoint says.
    const char *name() const { return m_name; }
    /// "/v1/chat/completions": where its requests are posted.
    const char *path() const { return m_path; }
    /// "chatcmpl-": what its response ids begin with.
    const char *idPrefix() const { return m_idPrefix; }
    /// The prompt goes through the chat template (SimConfig::templateTokens) and the model may
    /// reason; not so for legacy completions.
    virtual bool chat() const { return true; }
    /// --hide-reasoning applies: the API reports reasoning tokens without their text.
    virtual bool hidesReasoning() const { return false; }
    /// The API generates text. Embeddings do not: a request costs its prompt's prefill alone (the
    /// serving model's one token, due when the prefill ends, is not sent) and its body carries
    /// one vector per input.
    virtual bool generates() const { return true; }

    /// Reads the prompt (into request.prompt or promptTokenIds) and the dialect's own fields.
    virtual std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const = 0;
    /// stream_options (include_usage) is one of its fields.
    virtual bool takesStreamOptions() const { return false; }
    /// Reads the output cap. Default: max_tokens, else max_completion_tokens, neither required.
    virtual std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                                  const SimConfig &config) const;

    /// Reads the structured output asked for, if any. Default: the chat API's response_format
    /// ({"type": "json_schema", "json_schema": {"schema": …}}, or json_object).
    virtual std::optional<ApiError> readResponseFormat(const nlohmann::json &body, GenerationRequest &request) const;

    /// Reads the tools offered and tool_choice, if any: unless the choice is none, or auto (or not
    /// given) after tools' results (GenerationRequest::afterToolResult), the reply is a call to the
    /// named tool or else the first (GenerationRequest::toolCall). Default: none read
    /// (the APIs without tools).
    virtual std::optional<ApiError> readTools(const nlohmann::json &, GenerationRequest &) const
    {
        return std::nullopt;
    }

    /// The error body for a refused request. Default: OpenAI's {"error": {message, type, param, code}}.
    virtual std::string errorBody(const ApiError &error) const;
    virtual std::unique_ptr<SimStream> stream(const ResponseMeta &meta) const = 0;
    /// A complete non-streaming response body; `timings` (chat, completions) at its top level.
    virtual std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                                     bool stoppedByLength, const Usage &usage, const Timings *timings) const = 0;

protected:
    /// A format object {"type": "text" | "json_object" | "json_schema", …} at `param`; its schema
    /// is the member "schema" of `format` (flat) or of its "json_schema" (the chat API's).
    static std::optional<ApiError> readFormat(const nlohmann::json *format, const std::string &param, bool flat,
                                              GenerationRequest &request);

    /// How an API writes its tools: chat's {"type": "function", "function": {name, parameters}},
    /// the Responses API's flat {"type": "function", name, parameters}, Anthropic's {name,
    /// input_schema}; and its tool_choice ("auto" | "required" | "none" | {…} for the first two,
    /// {"type": "auto" | "any" | "none" | "tool", "name"} for Anthropic).
    enum class ToolShape { Chat, Flat, Anthropic };
    static std::optional<ApiError> readToolsAs(const nlohmann::json &body, ToolShape shape, GenerationRequest &request);

    SimApi(Endpoint endpoint, const char *name, const char *path, const char *idPrefix)
        : m_endpoint(endpoint)
        , m_name(name)
        , m_path(path)
        , m_idPrefix(idPrefix)
    {}

private:
    Endpoint m_endpoint;
    const char *m_name;
    const char *m_path;
    const char *m_idPrefix;
};

// The dialects, each defined in its own file: only simApis() lists them.
const SimApi &openAiChatApi();
const SimApi &openAiCompletionsApi();
const SimApi &anthropicMessagesApi();
const SimApi &openAiResponsesApi();
const SimApi &openAiEmbeddingsApi();
const SimApi &rerankApi();
const SimApi &scoreApi();

const SimApi &simApiFor(Endpoint endpoint);
/// Every dialect the simulator serves, in Endpoint's order.
const std::vector<const SimApi *> &simApis();

} // namespace tb::sim
