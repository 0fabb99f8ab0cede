#pragma once

#include "api/apidialect.h"

namespace tb {

/// The OpenAI chat API (POST /chat/completions), and the OpenAI-compatible servers' (vLLM, llama.cpp, SGLang, TGI,
/// Ollama).
class OpenAiChat final : public ApiDialect
{
public:
    ApiKind kind() const override;
    const char *label() const override;
    const char *path() const override;
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const override;
};

} // namespace tb
