#pragma once

#include "sim/simapi.h"

namespace tb::sim {

/// The OpenAI Responses API (POST /v1/responses) as the simulator serves it: `instructions` and
/// `input` (a string, or messages whose content is a string or input_text/output_text parts) and
/// max_output_tokens in; its typed stream events and its response object out, so that the
/// official client library works unchanged.
class SimOpenAiResponses final : public SimApi
{
public:
    Endpoint endpoint() const override;
    const char *name() const override;
    const char *path() const override;
    const char *idPrefix() const override;
    bool hidesReasoning() const override { return true; }
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                          const SimConfig &config) const override;
    std::unique_ptr<SimStream> stream(const ResponseMeta &meta) const override;
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
};

} // namespace tb::sim
