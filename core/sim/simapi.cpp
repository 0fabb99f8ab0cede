#include "sim/simapi.h"

#include "api/apidialect.h"

#include "sim/simjson.h"

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
