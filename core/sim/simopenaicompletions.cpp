#include "sim/simjson.h"
#include "sim/simopenaichunks.h"

#include <algorithm>

namespace tb::sim {

using json = nlohmann::json;

namespace {

// The model does not reason here (chat() is false): reasoning would go as text.
constexpr OpenAiChunkFormat kCompletionsFormat{
    "text_completion",
    false,
    nullptr,
    R"("text":")",
    R"("text":")",
    R"(","logprobs":null,"finish_reason":null}])",
    R"("text":"","logprobs":null,"finish_reason":")",
};

/// The OpenAI legacy completions API (POST /v1/completions) as the simulator serves it: one prompt (text or token ids)
/// in, text_completion chunks out.
class SimOpenAiCompletions final : public OpenAiChunkApi
{
public:
    SimOpenAiCompletions()
        : OpenAiChunkApi(Endpoint::Completions, "completions", "/v1/completions", "cmpl-", kCompletionsFormat)
    {}
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
    bool chat() const override { return false; }
};

} // namespace

std::optional<ApiError> SimOpenAiCompletions::readPrompt(const json &body, GenerationRequest &request) const
{
    const json *prompt = member(body, "prompt");
    if (!prompt)
        return invalid("prompt", "'prompt' is a required property");
    json single = *prompt;
    if (prompt->is_array() && !prompt->empty() && !(*prompt)[0].is_number_integer()) {
        if (prompt->size() > 1)
            return invalid("prompt", "batched prompts (an array of several) are not supported; send one per request");
        single = (*prompt)[0];
    }
    if (single.is_string()) {
        request.prompt = single.get<std::string>();
        return std::nullopt;
    }
    if (single.is_array() &&
        std::all_of(single.begin(), single.end(), [](const json &t) { return t.is_number_integer(); })) {
        request.promptTokenIds = qint64(single.size());
        return std::nullopt;
    }
    return invalid("prompt", "'prompt' must be a string, an array with one string, or an array of token ids");
}

std::string SimOpenAiCompletions::completeBody(const ResponseMeta &meta, std::string_view, std::string_view content,
                                               bool stoppedByLength, const Usage &usage, const Timings *timings) const
{
    return openAiCompleteBody(meta, "text_completion", false, {{"text", std::string(content)}}, stoppedByLength, usage,
                              timings);
}

const SimApi &openAiCompletionsApi()
{
    static const SimOpenAiCompletions api;
    return api;
}

} // namespace tb::sim
