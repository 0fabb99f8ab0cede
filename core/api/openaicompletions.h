#pragma once

#include "api/apidialect.h"

namespace tb {

/// The OpenAI legacy completions API (POST /completions): the prompt as one text.
class OpenAiCompletions final : public ApiDialect
{
public:
    ApiKind kind() const override;
    const char *label() const override;
    const char *path() const override;
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    bool promptIsText() const override { return true; }
};

} // namespace tb
