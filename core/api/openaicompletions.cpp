#include "api/openaicompletions.h"

#include <QCoreApplication>

namespace tb {

ApiKind OpenAiCompletions::kind() const
{
    return ApiKind::OpenAICompletions;
}

const char *OpenAiCompletions::label() const
{
    return QT_TRANSLATE_NOOP("tb::ApiDialect", "OpenAI completions — /completions");
}

const char *OpenAiCompletions::path() const
{
    return "/completions";
}

void OpenAiCompletions::writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const
{
    std::string text = prompt.system;
    const auto append = [&text](const std::string &part) {
        if (!text.empty() && !part.empty())
            text += "\n\n";
        text += part;
    };
    if (prompt.messages.is_array()) {
        for (const auto &m : prompt.messages) {
            if (m["content"].is_string())
                append(m["content"].get<std::string>());
        }
    } else {
        append(prompt.user);
    }
    body["prompt"] = std::move(text);
    if (stream)
        body["stream_options"] = {{"include_usage", true}};
}

} // namespace tb
