#include "api/apidialect.h"

#include <QCoreApplication>

#include <algorithm>

namespace tb {

namespace {

constexpr const char kAnthropicVersion[] = "2023-06-01";

/// The Anthropic messages API (POST /messages): x-api-key, the system prompt beside the messages, typed events ending
/// in message_stop.
class AnthropicMessages final : public ApiDialect
{
public:
    AnthropicMessages()
        : ApiDialect(ApiKind::AnthropicMessages, QT_TRANSLATE_NOOP("tb::ApiDialect", "Anthropic messages — /messages"),
                     "/messages", "message_stop")
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    void writeResponseFormat(nlohmann::json &body, const nlohmann::json &schema,
                             const std::string &name) const override;
    nlohmann::json imagePart(const PromptImage &image) const override
    {
        return {{"type", "image"},
                {"source", {{"type", "base64"}, {"media_type", image.mediaType()}, {"data", image.base64()}}}};
    }
    void writeTools(nlohmann::json &body, const ToolSet &tools) const override;
    void appendToolTurn(nlohmann::json &messages, const std::string &text, const std::vector<ReplyToolCall> &calls,
                        const std::vector<std::string> &results) const override;
    const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const override;
    void addCredentials(const QByteArray &key, bool basicAuth, const AddHeader &add) const override;
    bool listsContextLengths() const override { return false; }
    bool endsWithDone() const override { return false; }
    bool endsStream(const DocumentFields &f) const override { return f.type == "message_stop"; }
    bool takeUsage(const DocumentUsage &u, RequestRecord &r) const override;
};

} // namespace

const char *AnthropicMessages::maxTokensKey(const TargetConfig &, MaxTokensField) const
{
    return "max_tokens"; // its only name
}

void AnthropicMessages::addCredentials(const QByteArray &key, bool, const AddHeader &add) const
{
    if (!key.isEmpty())
        add("x-api-key", key);
    add("anthropic-version", QByteArray(kAnthropicVersion));
}

void AnthropicMessages::writeResponseFormat(nlohmann::json &body, const nlohmann::json &schema,
                                            const std::string &) const
{
    // output_config.format (generally available, no beta header); it has no schema-less JSON mode,
    // which configProblems() refuses.
    body["output_config"]["format"] = {{"type", "json_schema"}, {"schema", schema}};
}

void AnthropicMessages::writeTools(nlohmann::json &body, const ToolSet &tools) const
{
    // The schema is input_schema; "required" is "any", a named tool {"type": "tool", "name"}.
    nlohmann::json list = nlohmann::json::array();
    for (const ToolSet::Tool &t : tools.tools()) {
        nlohmann::json tool = {{"name", t.name}, {"input_schema", t.parameters}};
        if (!t.description.empty())
            tool["description"] = t.description;
        list.push_back(std::move(tool));
    }
    body["tools"] = std::move(list);
    const ToolChoice &choice = tools.choice();
    switch (choice.kind) {
    case ToolChoice::Kind::Default:
        break;
    case ToolChoice::Kind::Auto:
        body["tool_choice"] = {{"type", "auto"}};
        break;
    case ToolChoice::Kind::Required:
        body["tool_choice"] = {{"type", "any"}};
        break;
    case ToolChoice::Kind::None:
        body["tool_choice"] = {{"type", "none"}};
        break;
    case ToolChoice::Kind::Named:
        body["tool_choice"] = {{"type", "tool"}, {"name", choice.name}};
        break;
    }
}

void AnthropicMessages::appendToolTurn(nlohmann::json &messages, const std::string &text,
                                       const std::vector<ReplyToolCall> &calls,
                                       const std::vector<std::string> &results) const
{
    // The @anthropic-ai/sdk package's ToolUseBlockParam in the assistant's content, then a user
    // message of ToolResultBlockParam, one a call. The input is an object: arguments that are not
    // one (broken on the way) go as an empty object, which the server takes.
    nlohmann::json content = nlohmann::json::array();
    if (!text.empty())
        content.push_back({{"type", "text"}, {"text", text}});
    for (const ReplyToolCall &call : calls) {
        // Depth-bounded: the arguments are the server's.
        auto input =
            parseJsonBounded(QByteArray::fromRawData(call.arguments.data(), qsizetype(call.arguments.size())), nullptr);
        if (!input || !input->is_object())
            input = nlohmann::json::object();
        content.push_back({{"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", std::move(*input)}});
    }
    messages.push_back({{"role", "assistant"}, {"content", std::move(content)}});
    nlohmann::json outputs = nlohmann::json::array();
    for (std::size_t i = 0; i < calls.size() && i < results.size(); ++i)
        outputs.push_back({{"type", "tool_result"}, {"tool_use_id", calls[i].id}, {"content", results[i]}});
    messages.push_back({{"role", "user"}, {"content", std::move(outputs)}});
}

void AnthropicMessages::writeBody(nlohmann::json &body, const Prompt &prompt, bool) const
{
    nlohmann::json messages = nlohmann::json::array();
    std::string system = prompt.system;
    if (prompt.messages.is_array()) {
        for (const auto &m : prompt.messages) {
            // Anthropic takes the system prompt beside the messages, not as one of them.
            if (m.value("role", "") == "system" && m["content"].is_string())
                system += (system.empty() ? "" : "\n\n") + m["content"].get<std::string>();
            else
                messages.push_back(m);
        }
        attachImages(messages, prompt);
    } else {
        messages.push_back({{"role", "user"}, {"content", userContent(prompt.user, prompt)}});
    }
    if (!system.empty())
        body["system"] = std::move(system);
    body["messages"] = std::move(messages);
}

bool AnthropicMessages::takeUsage(const DocumentUsage &u, RequestRecord &r) const
{
    // Anthropic's input_tokens exclude cache reads and writes; prompt_tokens counts all of
    // them, as OpenAI's prompt_tokens does, so ratios mean the same for both APIs.
    if (u.inputTokens >= 0) {
        // Each count fits in 64 bits; a hostile server can still make their sum overflow.
        std::int64_t prompt = 0;
        if (__builtin_add_overflow(u.inputTokens, std::max<std::int64_t>(0, u.cacheReadTokens), &prompt) ||
            __builtin_add_overflow(prompt, std::max<std::int64_t>(0, u.cacheCreationTokens), &prompt))
            return false;
        r.cachedTokens = std::max<std::int64_t>(0, u.cacheReadTokens);
        r.promptTokens = prompt;
    }
    if (u.outputTokens >= 0)
        r.completionTokens = u.outputTokens;
    return true;
}

const ApiDialect &anthropicMessagesDialect()
{
    static const AnthropicMessages dialect;
    return dialect;
}

} // namespace tb
