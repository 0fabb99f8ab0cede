#pragma once

#include "api/apidialect.h"

namespace tb {

/// The Anthropic messages API (POST /messages): x-api-key, the system prompt beside the messages, typed events ending
/// in message_stop.
class AnthropicMessages final : public ApiDialect
{
public:
    ApiKind kind() const override;
    const char *label() const override;
    const char *path() const override;
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const override;
    void addCredentials(const QByteArray &key, bool basicAuth, const AddHeader &add) const override;
    bool listsContextLengths() const override { return false; }
    bool endsWithDone() const override { return false; }
    bool endsStream(const DocumentFields &f) const override { return f.type == "message_stop"; }
    bool takeUsage(const DocumentUsage &u, RequestRecord &r) const override;
    QString truncatedMessage() const override;
};

} // namespace tb
