#include "sim/simjson.h"
#include "sim/simopenaichunks.h"

namespace tb::sim {

using json = nlohmann::json;

namespace {

constexpr OpenAiChunkFormat kChatFormat{
    "chat.completion.chunk",
    true,
    R"("delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}])",
    R"("delta":{"content":")",
    R"("delta":{"reasoning_content":")",
    R"("},"logprobs":null,"finish_reason":null}])",
    R"("delta":{},"logprobs":null,"finish_reason":")",
};

/// The OpenAI chat API (POST /v1/chat/completions) as the simulator serves it: messages in, chat.completion chunks with
/// reasoning_content out.
class SimOpenAiChat final : public OpenAiChunkApi
{
public:
    SimOpenAiChat()
        : OpenAiChunkApi(Endpoint::Chat, "chat", "/v1/chat/completions", "chatcmpl-", kChatFormat)
    {}
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
    bool hidesReasoning() const override { return true; }
    std::optional<ApiError> readTools(const nlohmann::json &body, GenerationRequest &request) const override
    {
        return readToolsAs(body, ToolShape::Chat, request);
    }
    std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                          const SimConfig &config) const override;
};

} // namespace

std::optional<ApiError> SimOpenAiChat::readPrompt(const json &body, GenerationRequest &request) const
{
    static const std::vector<std::string> roles{"system", "developer", "user", "assistant", "tool", "function"};
    return readMessages(body, roles, false, request);
}

std::optional<ApiError> SimOpenAiChat::readMaxTokens(const json &body, GenerationRequest &request,
                                                     const SimConfig &config) const
{
    // OpenAI's reasoning models refuse the older name outright.
    if (config.hideReasoning && member(body, "max_tokens"))
        return ApiError{400,
                        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                        "'max_completion_tokens' instead.",
                        "max_tokens", "unsupported_parameter"};
    return SimApi::readMaxTokens(body, request, config);
}

std::string SimOpenAiChat::completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                                        bool stoppedByLength, const Usage &usage, const Timings *timings) const
{
    json message = {{"role", "assistant"}, {"content", std::string(content)}};
    if (!meta.toolName.empty()) {
        // A tool call's arguments are a string of JSON text, and the message has no content.
        message["content"] = nullptr;
        message["tool_calls"] = json::array({{{"id", "call_" + meta.toolCallId},
                                              {"type", "function"},
                                              {"function", {{"name", meta.toolName}, {"arguments", content}}}}});
    }
    if (!reasoning.empty())
        message["reasoning_content"] = std::string(reasoning);
    return openAiCompleteBody(meta, "chat.completion", true, {{"message", message}}, stoppedByLength, usage, timings);
}

const SimApi &openAiChatApi()
{
    static const SimOpenAiChat api;
    return api;
}

} // namespace tb::sim
