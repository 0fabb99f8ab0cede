#include "api/apidialect.h"

namespace tb {

void ApiDialect::askStreamUsage(nlohmann::json &body, bool stream)
{
    if (stream)
        body["stream_options"] = {{"include_usage", true}};
}

nlohmann::json ApiDialect::textPart(const std::string &text) const
{
    return {{"type", "text"}, {"text", text}};
}

nlohmann::json ApiDialect::imagePart(const PromptImage &image) const
{
    return {{"type", "image_url"}, {"image_url", {{"url", image.url}}}};
}

nlohmann::json ApiDialect::userContent(const std::string &text, const Prompt &prompt) const
{
    if (prompt.images.empty())
        return text;
    nlohmann::json parts = nlohmann::json::array({textPart(text)});
    for (const auto &image : prompt.images)
        parts.push_back(imagePart(*image));
    return parts;
}

void ApiDialect::attachImages(nlohmann::json &messages, const Prompt &prompt) const
{
    if (prompt.images.empty() || !messages.is_array())
        return;
    for (auto m = messages.rbegin(); m != messages.rend(); ++m) {
        if (!m->is_object() || m->value("role", "") != "user")
            continue;
        nlohmann::json &content = (*m)["content"];
        if (content.is_string()) {
            content = userContent(content.get<std::string>(), prompt);
        } else {
            if (!content.is_array())
                content = nlohmann::json::array();
            for (const auto &image : prompt.images)
                content.push_back(imagePart(*image));
        }
        return;
    }
    // No user message: the images go in one of their own.
    messages.push_back({{"role", "user"}, {"content", userContent({}, prompt)}});
}

std::string ApiDialect::promptText(const Prompt &prompt)
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
    return text;
}

const char *ApiDialect::maxTokensKey(const TargetConfig &, MaxTokensField field) const
{
    // Servers that are not OpenAI's all read max_tokens; some (Ollama, TGI 3.0, llama.cpp before
    // 2026) silently ignore max_completion_tokens.
    return field == MaxTokensField::MaxCompletionTokens ? "max_completion_tokens" : "max_tokens";
}

void ApiDialect::addCredentials(const QByteArray &key, bool basicAuth, const AddHeader &add) const
{
    if (!key.isEmpty() && !basicAuth)
        add("Authorization", "Bearer " + key);
}

void ApiDialect::writeResponseFormat(nlohmann::json &body, const nlohmann::json &schema, const std::string &name) const
{
    if (schema.is_null())
        body["response_format"] = {{"type", "json_object"}};
    else
        body["response_format"] = {{"type", "json_schema"},
                                   {"json_schema", {{"name", name}, {"schema", schema}, {"strict", true}}}};
}

bool ApiDialect::readBatchAnswer(DocumentReader &reader, std::string_view array)
{
    JsonCursor &c = reader.cursor();
    DocumentFields &f = reader.fields();
    const bool ok = c.object([&](std::string_view key) {
        if (const auto known = reader.common(key))
            return *known;
        if (key == array) {
            f.items = 0;
            return c.null() || c.array([&] {
                ++f.items;
                return c.skip();
            });
        }
        return c.skip();
    });
    return reader.end(ok);
}

QString ApiDialect::batchAnswerProblem(const DocumentFields &f, const RequestRecord &r, const char *api,
                                       const char *array, const char *items, const char *inputs)
{
    const std::int64_t wanted = std::max(r.inputs, 1);
    if (f.items < 0)
        return QStringLiteral("%1 response without a \"%2\" array").arg(QLatin1String(api), QLatin1String(array));
    if (f.items != wanted)
        return QStringLiteral("%1 response with %2 %3 for %4 %5")
            .arg(QLatin1String(api))
            .arg(f.items)
            .arg(QLatin1String(items))
            .arg(wanted)
            .arg(QLatin1String(inputs));
    return {};
}

void ApiDialect::appendToolTurn(nlohmann::json &messages, const std::string &text,
                                const std::vector<ReplyToolCall> &calls, const std::vector<std::string> &results) const
{
    // The shapes of the openai package's ChatCompletionAssistantMessageParam (tool_calls of
    // ChatCompletionMessageFunctionToolCall) and ChatCompletionToolMessageParam.
    nlohmann::json toolCalls = nlohmann::json::array();
    for (const ReplyToolCall &call : calls)
        toolCalls.push_back({{"id", call.id},
                             {"type", "function"},
                             {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
    messages.push_back({{"role", "assistant"},
                        {"content", text.empty() ? nlohmann::json() : nlohmann::json(text)},
                        {"tool_calls", std::move(toolCalls)}});
    for (std::size_t i = 0; i < calls.size() && i < results.size(); ++i)
        messages.push_back({{"role", "tool"}, {"tool_call_id", calls[i].id}, {"content", results[i]}});
}

void ApiDialect::writeTools(nlohmann::json &body, const ToolSet &tools) const
{
    nlohmann::json list = nlohmann::json::array();
    for (const ToolSet::Tool &t : tools.tools()) {
        nlohmann::json fn = {{"name", t.name}, {"parameters", t.parameters}};
        if (!t.description.empty())
            fn["description"] = t.description;
        list.push_back({{"type", "function"}, {"function", std::move(fn)}});
    }
    body["tools"] = std::move(list);
    const ToolChoice &choice = tools.choice();
    switch (choice.kind) {
    case ToolChoice::Kind::Default:
        break;
    case ToolChoice::Kind::Auto:
        body["tool_choice"] = "auto";
        break;
    case ToolChoice::Kind::Required:
        body["tool_choice"] = "required";
        break;
    case ToolChoice::Kind::None:
        body["tool_choice"] = "none";
        break;
    case ToolChoice::Kind::Named:
        body["tool_choice"] = {{"type", "function"}, {"function", {{"name", choice.name}}}};
        break;
    }
}

bool ApiDialect::read(DocumentReader &reader) const
{
    return reader.readCompatible();
}

QString ApiDialect::foreignEvent(std::string_view event, std::string_view type, bool parsed,
                                 std::string_view data) const
{
    if (!event.starts_with("response.") && !type.starts_with("response.") &&
        (parsed || data.find("\"type\":\"response.") == std::string_view::npos))
        return {};
    const std::string_view shown = (event.starts_with("response.") ? event : type).substr(0, 60);
    return QStringLiteral(
               "the server sent an OpenAI Responses API event (%1) to the %2 API: use --api openai-responses")
        .arg(QString::fromUtf8(shown.data(), qsizetype(shown.size())), name());
}

nlohmann::json ApiDialect::errorObject(const nlohmann::json &parsed, const DocumentFields &) const
{
    if (!parsed.is_object())
        return nullptr;
    const auto it = parsed.find("error");
    return it == parsed.end() ? nlohmann::json() : *it;
}

bool ApiDialect::takeUsage(const DocumentUsage &u, RequestRecord &r) const
{
    const auto take = [](std::int64_t &field, std::int64_t count) {
        if (count >= 0)
            field = count;
    };
    take(r.promptTokens, u.promptTokens);
    take(r.completionTokens, u.completionTokens);
    take(r.cachedTokens, u.cachedTokens);
    take(r.reasoningTokens, u.reasoningTokens);
    return true;
}

QString ApiDialect::truncatedMessage() const
{
    return QStringLiteral("stream ended without ") + QLatin1String(m_streamEnd);
}

const std::vector<const ApiDialect *> &apiDialects()
{
    static const std::vector<const ApiDialect *> all{&openAiChatDialect(),
                                                     &openAiCompletionsDialect(),
                                                     &anthropicMessagesDialect(),
                                                     &openAiResponsesDialect(),
                                                     &openAiEmbeddingsDialect(),
                                                     &rerankDialect(),
                                                     &scoreDialect()};
    return all;
}

const ApiDialect &dialectFor(ApiKind api)
{
    return apiFor(apiDialects(), &ApiDialect::kind, api);
}

} // namespace tb
