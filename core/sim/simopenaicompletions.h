#pragma once

#include "sim/simapi.h"

namespace tb::sim {

/// The OpenAI legacy completions API (POST /v1/completions) as the simulator serves it: one prompt (text or token ids)
/// in, text_completion chunks out.
class SimOpenAiCompletions final : public SimApi
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
    bool chat() const override { return false; }
    bool takesStreamOptions() const override { return true; }
};

} // namespace tb::sim
