#include "sim/simapi.h"

#include "sim/simjson.h"

namespace tb::sim {

using json = nlohmann::json;

namespace {

// Thinking blocks end with a signature; the simulator's is a fixed placeholder.
constexpr const char *kSignature = "c2ltdWxhdGVkLXRoaW5raW5nLXNpZ25hdHVyZQ==";

/// Anthropic counts cache reads apart from input_tokens: input + cache_read = the prompt.
json anthropicUsage(const Usage &usage)
{
    return {
        {"input_tokens", usage.promptTokens - usage.cachedTokens},
        {"cache_creation_input_tokens", 0},
        {"cache_read_input_tokens", usage.cachedTokens},
        {"output_tokens", usage.completionTokens},
    };
}

const char *finishReason(const ResponseMeta &meta, bool stoppedByLength)
{
    return stoppedByLength ? "max_tokens" : meta.toolName.empty() ? "end_turn" : "tool_use";
}

std::string errorType(int status)
{
    switch (status) {
    case 404:
        return "not_found_error";
    case 413:
        return "request_too_large";
    case 429:
        return "rate_limit_error";
    case 503:
        return "overloaded_error";
    default:
        return status >= 500 ? "api_error" : "invalid_request_error";
    }
}

/// message_start, then a content block per kind of text (thinking, text) with its deltas, then
/// message_delta with the stop reason and usage, and message_stop.
class MessagesStream final : public SimStream
{
public:
    explicit MessagesStream(const ResponseMeta &meta)
        : m_meta(meta)
    {}

    void start(std::string &out, const Usage &prompt) override
    {
        json usage = anthropicUsage(prompt);
        usage["output_tokens"] = 1; // as the real API reports before generating
        appendEvent(out, "message_start",
                    {{"type", "message_start"},
                     {"message",
                      {{"id", m_meta.id},
                       {"type", "message"},
                       {"role", "assistant"},
                       {"model", m_meta.model},
                       {"content", json::array()},
                       {"stop_reason", nullptr},
                       {"stop_sequence", nullptr},
                       {"usage", usage}}}});
        appendEvent(out, "ping", {{"type", "ping"}});
    }

    void delta(std::string &out, bool reasoning, std::string_view text) override
    {
        const Block wanted = reasoning ? Block::Thinking : !m_meta.toolName.empty() ? Block::ToolUse : Block::Text;
        if (m_block != wanted) {
            closeBlock(out);
            m_block = wanted;
            ++m_blockIndex;
            if (wanted == Block::ToolUse) {
                appendEvent(out, "content_block_start",
                            {{"type", "content_block_start"},
                             {"index", m_blockIndex},
                             {"content_block",
                              {{"type", "tool_use"},
                               {"id", "toolu_" + m_meta.toolCallId},
                               {"name", m_meta.toolName},
                               {"input", json::object()}}}});
            } else {
                out += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" +
                       std::to_string(m_blockIndex) +
                       (reasoning ? R"(,"content_block":{"type":"thinking","thinking":""}})"
                                  : R"(,"content_block":{"type":"text","text":""}})") +
                       "\n\n";
            }
        }
        out += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":";
        out += std::to_string(m_blockIndex);
        out += wanted == Block::ToolUse ? R"(,"delta":{"type":"input_json_delta","partial_json":")"
               : reasoning              ? R"(,"delta":{"type":"thinking_delta","thinking":")"
                                        : R"(,"delta":{"type":"text_delta","text":")";
        out += text;
        out += "\"}}\n\n";
    }

    void finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *) override
    {
        closeBlock(out);
        appendEvent(out, "message_delta",
                    {{"type", "message_delta"},
                     {"delta", {{"stop_reason", finishReason(m_meta, stoppedByLength)}, {"stop_sequence", nullptr}}},
                     {"usage", {{"output_tokens", usage.completionTokens}}}});
        appendEvent(out, "message_stop", {{"type", "message_stop"}});
    }

private:
    enum class Block { None, Thinking, Text, ToolUse };

    void closeBlock(std::string &out)
    {
        if (m_block == Block::None)
            return;
        if (m_block == Block::Thinking) {
            appendEvent(out, "content_block_delta",
                        {{"type", "content_block_delta"},
                         {"index", m_blockIndex},
                         {"delta", {{"type", "signature_delta"}, {"signature", kSignature}}}});
        }
        appendEvent(out, "content_block_stop", {{"type", "content_block_stop"}, {"index", m_blockIndex}});
        m_block = Block::None;
    }

    ResponseMeta m_meta;
    Block m_block = Block::None;
    int m_blockIndex = -1;
};

/// The Anthropic messages API (POST /v1/messages) as the simulator serves it: system beside the messages, typed events
/// (message_start … message_stop) with thinking and text blocks.
class SimAnthropicMessages final : public SimApi
{
public:
    SimAnthropicMessages()
        : SimApi(Endpoint::Messages, "messages", "/v1/messages", "msg_")
    {}
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::optional<ApiError> readResponseFormat(const nlohmann::json &body, GenerationRequest &request) const override
    {
        const nlohmann::json *config = member(body, "output_config");
        return readFormat(config && config->is_object() ? member(*config, "format") : nullptr, "output_config.format",
                          true, request);
    }
    std::optional<ApiError> readTools(const nlohmann::json &body, GenerationRequest &request) const override
    {
        return readToolsAs(body, ToolShape::Anthropic, request);
    }
    std::unique_ptr<SimStream> stream(const ResponseMeta &meta) const override;
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
    std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                          const SimConfig &config) const override;
    std::string errorBody(const ApiError &error) const override;
};

} // namespace

std::optional<ApiError> SimAnthropicMessages::readPrompt(const json &body, GenerationRequest &request) const
{
    if (const json *system = member(body, "system")) {
        auto text = contentText(*system, "system");
        if (auto *error = std::get_if<ApiError>(&text))
            return *error;
        request.prompt = std::get<std::string>(text);
    }
    static const std::vector<std::string> roles{"user", "assistant"};
    return readMessages(body, roles, true, request);
}

std::optional<ApiError> SimAnthropicMessages::readMaxTokens(const json &body, GenerationRequest &request,
                                                            const SimConfig &config) const
{
    if (auto error = SimApi::readMaxTokens(body, request, config))
        return error;
    if (!request.maxTokens)
        return invalid("max_tokens", "'max_tokens' is a required property");
    return std::nullopt;
}

std::string SimAnthropicMessages::errorBody(const ApiError &error) const
{
    const json body{{"type", "error"}, {"error", {{"type", errorType(error.status)}, {"message", error.message}}}};
    // Messages may quote what the client sent (a path, a model name), which need not be UTF-8.
    return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::unique_ptr<SimStream> SimAnthropicMessages::stream(const ResponseMeta &meta) const
{
    return std::make_unique<MessagesStream>(meta);
}

std::string SimAnthropicMessages::completeBody(const ResponseMeta &meta, std::string_view reasoning,
                                               std::string_view content, bool stoppedByLength, const Usage &usage,
                                               const Timings *) const
{
    json blocks = json::array();
    if (!reasoning.empty())
        blocks.push_back({{"type", "thinking"}, {"thinking", std::string(reasoning)}, {"signature", kSignature}});
    if (meta.toolName.empty()) {
        blocks.push_back({{"type", "text"}, {"text", std::string(content)}});
    } else {
        // The input is a JSON object, not text: arguments broken on purpose (invalid_tool_call_rate)
        // cannot be one, and go as a string, which the tool's schema then refuses.
        json input = json::parse(content, nullptr, false);
        if (input.is_discarded())
            input = std::string(content);
        blocks.push_back(
            {{"type", "tool_use"}, {"id", "toolu_" + meta.toolCallId}, {"name", meta.toolName}, {"input", input}});
    }
    return json{{"id", meta.id},
                {"type", "message"},
                {"role", "assistant"},
                {"model", meta.model},
                {"content", blocks},
                {"stop_reason", finishReason(meta, stoppedByLength)},
                {"stop_sequence", nullptr},
                {"usage", anthropicUsage(usage)}}
        .dump();
}

const SimApi &anthropicMessagesApi()
{
    static const SimAnthropicMessages api;
    return api;
}

} // namespace tb::sim
