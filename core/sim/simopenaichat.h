#pragma once

#include "sim/simapi.h"

namespace tb::sim {

/// The OpenAI chat API (POST /v1/chat/completions) as the simulator serves it: messages in, chat.completion chunks with
/// reasoning_content out.
class SimOpenAiChat final : public SimApi
{
public:
    Endpoint endpoint() const override;
    const char *name() const override;
    const char *path() const override;
    const char *idPrefix() const override;
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::unique_ptr<SimStream> stream(const ResponseMeta &meta) const override;
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
    bool hidesReasoning() const override { return true; }
    bool takesStreamOptions() const override { return true; }
    std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                          const SimConfig &config) const override;
};

} // namespace tb::sim
