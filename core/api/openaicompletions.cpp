#include "api/apidialect.h"

#include <QCoreApplication>

namespace tb {

namespace {

/// The OpenAI legacy completions API (POST /completions): the prompt as one text.
class OpenAiCompletions final : public ApiDialect
{
public:
    OpenAiCompletions()
        : ApiDialect(ApiKind::OpenAICompletions,
                     QT_TRANSLATE_NOOP("tb::ApiDialect", "OpenAI completions — /completions"), "/completions")
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    bool promptIsText() const override { return true; }
};

} // namespace

void OpenAiCompletions::writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const
{
    body["prompt"] = promptText(prompt);
    askStreamUsage(body, stream);
}

const ApiDialect &openAiCompletionsDialect()
{
    static const OpenAiCompletions dialect;
    return dialect;
}

} // namespace tb
