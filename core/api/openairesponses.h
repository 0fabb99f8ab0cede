#pragma once

#include "api/apidialect.h"

namespace tb {

/// The OpenAI Responses API (POST /responses): instructions and input, typed response.* events ending in
/// response.completed.
class OpenAiResponses final : public ApiDialect
{
public:
    ApiKind kind() const override;
    const char *label() const override;
    const char *path() const override;
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const override;
    bool read(DocumentReader &reader) const override;
    QString foreignEvent(std::string_view, std::string_view, bool, std::string_view) const override { return {}; }
    bool isError(const DocumentFields &f) const override;
    nlohmann::json errorObject(const nlohmann::json &parsed, const DocumentFields &f) const override;
    std::string_view finishReason(const DocumentFields &f) const override;
    bool finishEndsStream() const override { return true; }
    bool takeUsage(const DocumentUsage &u, RequestRecord &r) const override;
    QString truncatedMessage() const override;
};

} // namespace tb
