#include "api/apidialect.h"

#include <QCoreApplication>
#include <QUrl>

namespace tb {

namespace {

/// The OpenAI chat API (POST /chat/completions), and the OpenAI-compatible servers' (vLLM, llama.cpp, SGLang, TGI,
/// Ollama).
class OpenAiChat final : public ApiDialect
{
public:
    OpenAiChat()
        : ApiDialect(ApiKind::OpenAIChat, QT_TRANSLATE_NOOP("tb::ApiDialect", "OpenAI chat — /chat/completions"),
                     "/chat/completions")
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const override;
};

} // namespace

const char *OpenAiChat::maxTokensKey(const TargetConfig &target, MaxTokensField field) const
{
    if (field != MaxTokensField::Auto)
        return ApiDialect::maxTokensKey(target, field);
    // OpenAI's own chat API (api.openai.com, Azure OpenAI) takes max_completion_tokens: its
    // o-series answer max_tokens with HTTP 400, and it refuses both at once.
    const QString host = QUrl(target.url).host().toLower();
    const bool openAi = host == QLatin1String("api.openai.com") || host.endsWith(QLatin1String(".openai.azure.com"));
    return openAi ? "max_completion_tokens" : "max_tokens";
}

void OpenAiChat::writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const
{
    nlohmann::json messages = nlohmann::json::array();
    if (!prompt.system.empty())
        messages.push_back({{"role", "system"}, {"content", prompt.system}});
    if (prompt.messages.is_array()) {
        for (const auto &m : prompt.messages)
            messages.push_back(m);
        attachImages(messages, prompt);
    } else {
        messages.push_back({{"role", "user"}, {"content", userContent(prompt.user, prompt)}});
    }
    body["messages"] = std::move(messages);
    askStreamUsage(body, stream);
}

const ApiDialect &openAiChatDialect()
{
    static const OpenAiChat dialect;
    return dialect;
}

} // namespace tb
