#include "sim/simjson.h"

#include "sim/simimage.h"

#include <algorithm>

namespace tb::sim {

using json = nlohmann::json;

namespace {

/// A client's value as an error message shows it. Containers by kind only: dump() recurses per
/// nesting level, and a body nested 100,000 deep overflowed the stack; scalars are shortened.
std::string shown(const json &value)
{
    if (value.is_object())
        return "an object";
    if (value.is_array())
        return "an array";
    std::string text = value.dump();
    if (text.size() > 80)
        text = text.substr(0, 77) + "...";
    return text;
}

void appendText(std::string &text, const std::string &more)
{
    if (!text.empty())
        text += '\n';
    text += more;
}

/// A string member of `object` at `where`, or the refusal naming it.
Checked<std::string> requiredString(const json &object, const char *key, const std::string &where)
{
    const json *v = member(object, key);
    if (!v || !v->is_string())
        return invalid(where + "." + key, "'" + where + "." + key + "' must be a string");
    return v->get<std::string>();
}

/// Anthropic's tool_use block (its name and input count) or tool_result block (its content counts;
/// its tool_use_id must answer a tool_use of the history, as Anthropic's API checks).
std::optional<ApiError> readToolBlock(const json &part, const std::string &where, std::string &text,
                                      GenerationRequest &request)
{
    if (part["type"] == "tool_use") {
        auto id = requiredString(part, "id", where);
        auto name = requiredString(part, "name", where);
        for (auto *checked : {&id, &name}) {
            if (auto *error = std::get_if<ApiError>(checked))
                return *error;
        }
        const json *input = member(part, "input");
        if (!input || !input->is_object())
            return invalid(where + ".input", "'" + where + ".input' must be an object");
        request.toolCallIds.insert(std::get<std::string>(id));
        appendText(text, std::get<std::string>(name));
        appendText(text, input->dump(-1, ' ', false, json::error_handler_t::replace));
        return std::nullopt;
    }
    auto id = requiredString(part, "tool_use_id", where);
    if (auto *error = std::get_if<ApiError>(&id))
        return *error;
    if (!request.toolCallIds.contains(std::get<std::string>(id)))
        return invalid(where, where + ": unexpected `tool_use_id` found in `tool_result` blocks: " +
                                  shown(json(std::get<std::string>(id))) +
                                  ". Each `tool_result` block must have a corresponding `tool_use` block in the "
                                  "previous message.");
    const json *content = member(part, "content");
    if (content && content->is_array()) {
        for (const json &block : *content) {
            if (!block.is_object() || block.value("type", json()) != "text" || !block.value("text", json()).is_string())
                return invalid(where + ".content", "'" + where + ".content' must be a string or text blocks");
            appendText(text, block["text"].get<std::string>());
        }
    } else if (content && content->is_string()) {
        appendText(text, content->get<std::string>());
    } else if (content) {
        return invalid(where + ".content", "'" + where + ".content' must be a string or text blocks");
    }
    request.afterToolResult = true;
    return std::nullopt;
}

/// The chat API's assistant tool_calls (each call's name and arguments count as prompt) and a
/// tool message's tool_call_id, which must answer a call of the history (as OpenAI checks).
std::optional<ApiError> readChatToolParts(const json &message, const std::string &where, GenerationRequest &request)
{
    const json *role = member(message, "role");
    if (const json *calls = member(message, "tool_calls"); calls && *role == "assistant") {
        if (!calls->is_array())
            return invalid(where + ".tool_calls", "'" + where + ".tool_calls' must be an array");
        for (std::size_t k = 0; k < calls->size(); ++k) {
            const json &call = (*calls)[k];
            const std::string at = where + ".tool_calls[" + std::to_string(k) + "]";
            const json *fn = call.is_object() ? member(call, "function") : nullptr;
            if (!fn || !fn->is_object() || call.value("type", json()) != "function")
                return invalid(at, "'" + at + "' must be {\"id\", \"type\": \"function\", \"function\"}");
            auto id = requiredString(call, "id", at);
            auto name = requiredString(*fn, "name", at + ".function");
            auto arguments = requiredString(*fn, "arguments", at + ".function");
            for (auto *checked : {&id, &name, &arguments}) {
                if (auto *error = std::get_if<ApiError>(checked))
                    return *error;
            }
            request.toolCallIds.insert(std::get<std::string>(id));
            appendPrompt(request.prompt, std::get<std::string>(name));
            appendPrompt(request.prompt, std::get<std::string>(arguments));
        }
    }
    if (*role != "tool")
        return std::nullopt;
    request.afterToolResult = true;
    auto id = requiredString(message, "tool_call_id", where);
    if (auto *error = std::get_if<ApiError>(&id))
        return *error;
    if (!request.toolCallIds.contains(std::get<std::string>(id)))
        return invalid(where + ".role", "Invalid parameter: messages with role 'tool' must be a response to a "
                                        "preceeding message with 'tool_calls'.");
    return std::nullopt;
}

} // namespace

ApiError invalid(std::string param, std::string message)
{
    return ApiError{400, std::move(message), std::move(param), {}};
}

std::string jsonString(std::string_view s)
{
    return json(std::string(s)).dump();
}

const json *member(const json &object, const char *key)
{
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

Checked<bool> optionalBool(const json &object, const char *key, bool fallback)
{
    const json *v = member(object, key);
    if (!v)
        return fallback;
    if (!v->is_boolean())
        return invalid(key, std::string("'") + key + "' must be a boolean, got " + shown(*v));
    return v->get<bool>();
}

Checked<std::optional<qint64>> optionalInt(const json &object, const char *key, qint64 min)
{
    const json *v = member(object, key);
    if (!v)
        return std::optional<qint64>();
    if (!v->is_number_integer() || v->get<double>() < double(min))
        return invalid(key, std::string("'") + key + "' must be an integer >= " + std::to_string(min) + ", got " +
                                shown(*v));
    return std::optional<qint64>(v->get<qint64>());
}

Checked<std::string> contentText(const json &content, const std::string &param, GenerationRequest *request)
{
    if (content.is_null())
        return std::string();
    if (content.is_string())
        return content.get<std::string>();
    if (!content.is_array())
        return invalid(param, "'" + param + "' must be a string or an array of content parts");
    std::string text;
    for (std::size_t i = 0; i < content.size(); ++i) {
        const json &part = content[i];
        const std::string where = param + "[" + std::to_string(i) + "]";
        if (!part.is_object() || !part.contains("type") || !part["type"].is_string())
            return invalid(where, "'" + where + "' must be an object with a 'type'");
        if (request && (part["type"] == "tool_use" || part["type"] == "tool_result")) {
            // Anthropic's agent loop: a call's name and input, a result's content, count as prompt.
            if (auto error = readToolBlock(part, where, text, *request))
                return *error;
            continue;
        }
        if (part["type"] != "text") {
            if (request && SimImage::isImagePart(part["type"].get_ref<const std::string &>())) {
                if (auto error = SimImage::read(part, where, *request))
                    return *error;
            }
            continue; // audio, files: not tokens here
        }
        const json *t = member(part, "text");
        if (!t || !t->is_string())
            return invalid(where + ".text", "'" + where + ".text' must be a string");
        if (!text.empty())
            text += '\n';
        text += t->get<std::string>();
    }
    return text;
}

void appendPrompt(std::string &prompt, const std::string &text)
{
    if (!prompt.empty())
        prompt += '\n';
    prompt += text;
}

std::optional<ApiError> readMessages(const json &body, const std::vector<std::string> &roles, bool contentRequired,
                                     GenerationRequest &request)
{
    const json *messages = member(body, "messages");
    if (!messages)
        return invalid("messages", "'messages' is a required property");
    if (!messages->is_array() || messages->empty())
        return invalid("messages", "'messages' must be a non-empty array");
    for (std::size_t i = 0; i < messages->size(); ++i) {
        const json &message = (*messages)[i];
        const std::string where = "messages[" + std::to_string(i) + "]";
        if (!message.is_object())
            return invalid(where, "'" + where + "' must be an object");
        const json *role = member(message, "role");
        if (!role || !role->is_string() ||
            std::find(roles.begin(), roles.end(), role->get<std::string>()) == roles.end()) {
            std::string why = "'" + where + ".role' must be one of: ";
            for (std::size_t k = 0; k < roles.size(); ++k) {
                if (k > 0)
                    why += ", ";
                why += roles[k];
            }
            return invalid(where + ".role", why);
        }
        const auto it = message.find("content");
        if (it == message.end() && contentRequired)
            return invalid(where + ".content", "'" + where + ".content' is a required property");
        request.afterToolResult = false; // a tool message, or a content of tool results, says otherwise
        auto text = contentText(it == message.end() ? json() : *it, where + ".content", &request);
        if (auto *error = std::get_if<ApiError>(&text))
            return *error;
        appendPrompt(request.prompt, std::get<std::string>(text));
        if (auto error = readChatToolParts(message, where, request))
            return error;
    }
    return std::nullopt;
}

void appendEvent(std::string &out, const char *name, const json &data)
{
    out += "event: ";
    out += name;
    out += "\ndata: ";
    out += data.dump();
    out += "\n\n";
}

} // namespace tb::sim
