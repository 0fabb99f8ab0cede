#include "sim/simapi.h"

#include "api/apidialect.h"

#include "sim/simjson.h"

#include <algorithm>

namespace tb::sim {

using json = nlohmann::json;

namespace {

std::string openAiErrorType(int status)
{
    switch (status) {
    case 404:
    case 413:
        return "invalid_request_error";
    case 429:
        return "rate_limit_exceeded";
    default:
        return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

} // namespace

std::optional<ApiError> SimApi::readMaxTokens(const json &body, GenerationRequest &request, const SimConfig &) const
{
    // Chat prefers max_completion_tokens (reasoning models): read last, it wins.
    for (const char *key : {"max_tokens", "max_completion_tokens"}) {
        auto value = optionalInt(body, key, 1);
        if (auto *error = std::get_if<ApiError>(&value))
            return *error;
        if (const auto v = std::get<std::optional<qint64>>(value))
            request.maxTokens = v;
    }
    return std::nullopt;
}

std::optional<ApiError> SimApi::readResponseFormat(const json &body, GenerationRequest &request) const
{
    return readFormat(member(body, "response_format"), "response_format", false, request);
}

std::optional<ApiError> SimApi::readFormat(const json *format, const std::string &param, bool flat,
                                           GenerationRequest &request)
{
    if (!format)
        return std::nullopt;
    const json *type = format->is_object() ? member(*format, "type") : nullptr;
    if (!type || !type->is_string())
        return invalid(param, "'" + param + "' must be an object with a 'type'");
    if (*type == "text")
        return std::nullopt;
    if (*type == "json_object") {
        request.jsonOutput = true;
        return std::nullopt;
    }
    if (*type != "json_schema")
        return invalid(param + ".type", "'" + param + ".type' must be 'text', 'json_object' or 'json_schema'");
    const json *holder = flat ? format : member(*format, "json_schema");
    const json *schema = holder && holder->is_object() ? member(*holder, "schema") : nullptr;
    const std::string schemaParam = param + (flat ? ".schema" : ".json_schema.schema");
    if (!schema || !schema->is_object())
        return invalid(schemaParam, "'" + schemaParam + "' must be a JSON Schema object");
    request.jsonOutput = true;
    request.outputSchema = *schema;
    return std::nullopt;
}

std::optional<ApiError> SimApi::readToolsAs(const json &body, ToolShape shape, GenerationRequest &request)
{
    const json *tools = member(body, "tools");
    if (!tools)
        return std::nullopt;
    if (!tools->is_array() || tools->size() > 128)
        return invalid("tools", "'tools' must be an array of at most 128 tools");
    if (tools->empty())
        return std::nullopt;
    std::vector<std::pair<std::string, json>> offered; // name, parameters
    for (std::size_t i = 0; i < tools->size(); ++i) {
        const json &tool = (*tools)[i];
        const std::string at = "tools[" + std::to_string(i) + "]";
        const json *type = tool.is_object() ? member(tool, "type") : nullptr;
        if (!tool.is_object() || (shape != ToolShape::Anthropic && (!type || *type != "function")))
            return invalid(at, "'" + at + "' must be a function tool");
        const json *fn = shape == ToolShape::Chat ? member(tool, "function") : &tool;
        if (!fn || !fn->is_object())
            return invalid(at + ".function", "'" + at + ".function' must be an object");
        const json *name = member(*fn, "name");
        if (!name || !name->is_string() || name->get<std::string>().empty())
            return invalid(at, "'" + at + "' must have a name");
        const json *parameters = member(*fn, shape == ToolShape::Anthropic ? "input_schema" : "parameters");
        if (parameters && !parameters->is_object())
            return invalid(at, "'" + at + "' parameters must be a JSON Schema object");
        offered.emplace_back(name->get<std::string>(), parameters ? *parameters : json{{"type", "object"}});
    }
    const json *choice = member(body, "tool_choice");
    std::string kind = "auto";
    std::string named;
    if (choice && choice->is_string() && shape != ToolShape::Anthropic) {
        kind = choice->get<std::string>();
    } else if (choice && choice->is_object()) {
        const json *type = member(*choice, "type");
        kind = type && type->is_string() ? type->get<std::string>() : "";
        const json *holder = shape == ToolShape::Chat ? member(*choice, "function") : choice;
        const json *name = holder && holder->is_object() ? member(*holder, "name") : nullptr;
        if ((kind == "function" || kind == "tool") && name && name->is_string())
            named = name->get<std::string>();
        else if (kind == "any")
            kind = "required";
        else if (kind == "function" || kind == "tool")
            kind = "";
    } else if (choice) {
        kind = "";
    }
    if (kind != "auto" && kind != "required" && kind != "none" && named.empty())
        return invalid("tool_choice", "'tool_choice' is not a choice this API takes");
    // After tools' results a model left to choose answers in text: the agent loop's turn ends.
    if (kind == "none" || (kind == "auto" && request.afterToolResult))
        return std::nullopt;
    auto chosen = offered.begin();
    if (!named.empty()) {
        chosen = std::find_if(offered.begin(), offered.end(), [&](const auto &t) { return t.first == named; });
        if (chosen == offered.end())
            return invalid("tool_choice", "'tool_choice' names '" + named + "', which is not one of the tools");
    }
    request.toolCall = true;
    request.toolName = chosen->first;
    request.toolParameters = chosen->second;
    return std::nullopt;
}

std::string SimApi::errorBody(const ApiError &error) const
{
    const json param = error.param.empty() ? json() : json(error.param);
    const json code = error.code.empty() ? json() : json(error.code);
    const json body{
        {"error",
         {{"message", error.message}, {"type", openAiErrorType(error.status)}, {"param", param}, {"code", code}}}};
    // Messages may quote what the client sent (a path, a model name), which need not be UTF-8.
    return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

const std::vector<const SimApi *> &simApis()
{
    static const std::vector<const SimApi *> all{&openAiChatApi(),
                                                 &openAiCompletionsApi(),
                                                 &anthropicMessagesApi(),
                                                 &openAiResponsesApi(),
                                                 &openAiEmbeddingsApi(),
                                                 &rerankApi(),
                                                 &scoreApi()};
    return all;
}

const SimApi &simApiFor(Endpoint endpoint)
{
    return apiFor(simApis(), &SimApi::endpoint, endpoint);
}

} // namespace tb::sim
