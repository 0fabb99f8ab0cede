#pragma once

#include "sim/simapi.h"

namespace tb::sim {

/// The Anthropic messages API (POST /v1/messages) as the simulator serves it: system beside the messages, typed events
/// (message_start … message_stop) with thinking and text blocks.
class SimAnthropicMessages final : public SimApi
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
    std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                          const SimConfig &config) const override;
    std::string errorBody(const ApiError &error) const override;
};

} // namespace tb::sim
