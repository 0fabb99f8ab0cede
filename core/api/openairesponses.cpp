#include "api/apidialect.h"

#include <QCoreApplication>

namespace tb {

namespace {

/// The OpenAI Responses API (POST /responses): instructions and input, typed response.* events ending in
/// response.completed.
class OpenAiResponses final : public ApiDialect
{
public:
    OpenAiResponses()
        : ApiDialect(ApiKind::OpenAIResponses, QT_TRANSLATE_NOOP("tb::ApiDialect", "OpenAI Responses — /responses"),
                     "/responses", "response.completed")
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    void writeResponseFormat(nlohmann::json &body, const nlohmann::json &schema,
                             const std::string &name) const override;
    nlohmann::json textPart(const std::string &text) const override { return {{"type", "input_text"}, {"text", text}}; }
    nlohmann::json imagePart(const PromptImage &image) const override
    {
        return {{"type", "input_image"}, {"image_url", image.url}};
    }
    void writeTools(nlohmann::json &body, const ToolSet &tools) const override;
    void appendToolTurn(nlohmann::json &messages, const std::string &text, const std::vector<ReplyToolCall> &calls,
                        const std::vector<std::string> &results) const override;
    const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const override;
    bool read(DocumentReader &reader) const override;
    QString foreignEvent(std::string_view, std::string_view, bool, std::string_view) const override { return {}; }
    bool isError(const DocumentFields &f) const override;
    nlohmann::json errorObject(const nlohmann::json &parsed, const DocumentFields &f) const override;
    std::string_view finishReason(const DocumentFields &f) const override;
    bool finishEndsStream() const override { return true; }
    bool takeUsage(const DocumentUsage &u, RequestRecord &r) const override;
};

} // namespace

const char *OpenAiResponses::maxTokensKey(const TargetConfig &, MaxTokensField) const
{
    return "max_output_tokens"; // its only name
}

void OpenAiResponses::writeResponseFormat(nlohmann::json &body, const nlohmann::json &schema,
                                          const std::string &name) const
{
    // The Responses API's format is flat: name, schema and strict beside the type.
    if (schema.is_null())
        body["text"]["format"] = {{"type", "json_object"}};
    else
        body["text"]["format"] = {{"type", "json_schema"}, {"name", name}, {"schema", schema}, {"strict", true}};
}

void OpenAiResponses::writeTools(nlohmann::json &body, const ToolSet &tools) const
{
    // Flat: the function's name, description and parameters beside the type.
    nlohmann::json list = nlohmann::json::array();
    for (const ToolSet::Tool &t : tools.tools()) {
        nlohmann::json tool = {{"type", "function"}, {"name", t.name}, {"parameters", t.parameters}};
        if (!t.description.empty())
            tool["description"] = t.description;
        list.push_back(std::move(tool));
    }
    body["tools"] = std::move(list);
    const ToolChoice &choice = tools.choice();
    if (choice.kind == ToolChoice::Kind::Named)
        body["tool_choice"] = {{"type", "function"}, {"name", choice.name}};
    else if (choice.kind != ToolChoice::Kind::Default)
        body["tool_choice"] = choice.kind == ToolChoice::Kind::Auto       ? "auto"
                              : choice.kind == ToolChoice::Kind::Required ? "required"
                                                                          : "none";
}

void OpenAiResponses::appendToolTurn(nlohmann::json &messages, const std::string &text,
                                     const std::vector<ReplyToolCall> &calls,
                                     const std::vector<std::string> &results) const
{
    // Input items beside the messages, as the openai package's ResponseFunctionToolCall and
    // ResponseInputItem.FunctionCallOutput: every call, then every output, matched by call_id.
    if (!text.empty())
        messages.push_back({{"role", "assistant"}, {"content", text}});
    for (const ReplyToolCall &call : calls)
        messages.push_back(
            {{"type", "function_call"}, {"call_id", call.id}, {"name", call.name}, {"arguments", call.arguments}});
    for (std::size_t i = 0; i < calls.size() && i < results.size(); ++i)
        messages.push_back({{"type", "function_call_output"}, {"call_id", calls[i].id}, {"output", results[i]}});
}

void OpenAiResponses::writeBody(nlohmann::json &body, const Prompt &prompt, bool) const
{
    // The system prompt is the instructions; a conversation's history goes as input messages
    // (every turn whole, so no previous_response_id and no state kept on the server).
    if (!prompt.system.empty())
        body["instructions"] = prompt.system;
    if (prompt.messages.is_array()) {
        body["input"] = prompt.messages;
        attachImages(body["input"], prompt);
    } else if (prompt.images.empty()) {
        body["input"] = prompt.user;
    } else {
        body["input"] = nlohmann::json::array({{{"role", "user"}, {"content", userContent(prompt.user, prompt)}}});
    }
}

bool OpenAiResponses::read(DocumentReader &reader) const
{
    JsonCursor &c = reader.cursor();
    DocumentFields &f = reader.fields();
    reader.nullUsageIsAbsent = true;
    // The response object (a body, or inside response.* events); its output items are read only
    // in a body, since response.completed repeats the streamed text there.
    const auto textPart = [&](std::string_view &raw, std::string_view &type) {
        return c.object([&](std::string_view k) {
            if (k == "type")
                return reader.optionalString(type);
            if (k == "text" || k == "arguments")
                return reader.optionalString(raw);
            return c.skip();
        });
    };
    // Each part's text is classed by its type, which may come after the text.
    const auto outputParts = [&](bool reasoning) {
        return c.null() || c.array([&] {
            std::string_view raw, type;
            if (!textPart(raw, type))
                return false;
            const bool isReasoning = reasoning || type == "reasoning_text";
            reader.keep(raw, isReasoning ? f.reasoningBytes : f.contentBytes, !isReasoning && type != "refusal");
            return true;
        });
    };
    // An output item; a function_call's name and arguments are its tool call's, taken once the
    // item is read (its type may come last).
    struct Call {
        std::string_view type, name, arguments, callId;
    };
    // texts: a body's items, whose texts are read; an event's item repeats what deltas brought.
    const auto item = [&](Call &call, bool texts) {
        return c.object([&](std::string_view k) {
            if (texts && k == "content")
                return outputParts(false);
            if (texts && k == "summary")
                return outputParts(true);
            if (k == "type")
                return reader.optionalString(call.type);
            if (k == "name")
                return reader.optionalString(call.name);
            if (k == "arguments")
                return reader.optionalString(call.arguments);
            if (k == "call_id")
                return reader.optionalString(call.callId);
            return c.skip();
        });
    };
    const auto outputItems = [&] {
        std::int64_t position = 0;
        return c.null() || c.array([&] {
            Call call;
            if (!item(call, true))
                return false;
            if (call.type == "function_call")
                reader.toolCall(position, call.name, call.arguments, false, call.callId);
            ++position;
            return true;
        });
    };
    const auto incomplete = [&] {
        return c.null() || c.object([&](std::string_view k) {
            if (k == "reason")
                return reader.optionalString(f.incompleteReason);
            return c.skip();
        });
    };
    const auto response = [&](bool body, std::string_view key) {
        if (const auto known = reader.common(key))
            return *known;
        if (key == "status")
            return reader.optionalString(f.status);
        if (key == "incomplete_details")
            return incomplete();
        if (key == "output" && body)
            return outputItems();
        return c.skip();
    };
    Call added;                     // response.output_item.added's item
    std::string_view doneArguments; // response.function_call_arguments.done's
    const bool ok = c.object([&](std::string_view key) {
        if (key == "type")
            return reader.optionalString(f.type);
        if (key == "delta")
            return c.null() || c.string(&f.delta);
        if (key == "item")
            return c.null() || item(added, false);
        if (key == "output_index")
            return c.null() || c.integer(&f.index);
        if (key == "arguments")
            return reader.optionalString(doneArguments);
        if (key == "response")
            return c.null() || c.object([&](std::string_view k) { return response(false, k); });
        if (key == "code" || key == "message")
            return c.skip(); // the error event's; read again for its message
        return response(true, key);
    });
    const bool whole = reader.end(ok);
    if (!f.delta.empty()) {
        if (f.type == "response.output_text.delta" || f.type == "response.refusal.delta")
            reader.keep(f.delta, f.contentBytes, f.type == "response.output_text.delta");
        else if (f.type == "response.function_call_arguments.delta")
            reader.toolCall(f.index, {}, f.delta);
        else if (f.type.starts_with("response.reasoning"))
            reader.keep(f.delta, f.reasoningBytes, false);
    }
    if (whole && f.type == "response.output_item.added" && added.type == "function_call")
        reader.toolCall(f.index, added.name, added.arguments, false, added.callId);
    // The done event repeats the arguments: they count only when no delta brought them.
    if (whole && f.type == "response.function_call_arguments.done" && !reader.hasToolArguments(f.index))
        reader.toolCall(f.index, {}, doneArguments);
    return whole;
}

bool OpenAiResponses::isError(const DocumentFields &f) const
{
    return ApiDialect::isError(f) || f.type == "response.failed";
}

nlohmann::json OpenAiResponses::errorObject(const nlohmann::json &parsed, const DocumentFields &f) const
{
    if (!parsed.is_object())
        return nullptr;
    // The error event is the error itself (its type is "error"); response.failed has it in its
    // response.
    if (f.type == "error")
        return {{"code", parsed.value("code", nlohmann::json())},
                {"message", parsed.value("message", nlohmann::json())}};
    if (const auto response = parsed.find("response"); response != parsed.end() && !response->is_null()) {
        if (!response->is_object())
            return nullptr;
        const auto error = response->find("error");
        return error == response->end() ? nlohmann::json() : *error;
    }
    return ApiDialect::errorObject(parsed, f);
}

std::string_view OpenAiResponses::finishReason(const DocumentFields &f) const
{
    if (f.status == "completed" || f.status == "incomplete")
        return f.incompleteReason.empty() ? f.status : f.incompleteReason;
    return {};
}

bool OpenAiResponses::takeUsage(const DocumentUsage &u, RequestRecord &r) const
{
    // input_tokens include the cached ones, as OpenAI's prompt_tokens do.
    if (u.inputTokens >= 0)
        r.promptTokens = u.inputTokens;
    if (u.outputTokens >= 0)
        r.completionTokens = u.outputTokens;
    if (u.cachedTokens >= 0)
        r.cachedTokens = u.cachedTokens;
    if (u.reasoningTokens >= 0)
        r.reasoningTokens = u.reasoningTokens;
    return true;
}

const ApiDialect &openAiResponsesDialect()
{
    static const OpenAiResponses dialect;
    return dialect;
}

} // namespace tb
