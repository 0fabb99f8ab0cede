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
        auto text = contentText(it == message.end() ? json() : *it, where + ".content", &request);
        if (auto *error = std::get_if<ApiError>(&text))
            return *error;
        appendPrompt(request.prompt, std::get<std::string>(text));
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
