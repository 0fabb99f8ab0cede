#include "sim/simprotocol.h"

#include "sim/responsesapi.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace tb::sim {

namespace {

using json = nlohmann::json;

/// Either a value or the reason the request is refused.
template<typename T> using Checked = std::variant<T, ApiError>;

ApiError invalid(std::string param, std::string message)
{
    return ApiError{400, std::move(message), std::move(param), {}};
}

/// A JSON string, safely quoted.
std::string jsonString(std::string_view s)
{
    return json(std::string(s)).dump();
}

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

/// An integer >= min, or nullopt when absent.
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

/// Text of a content value: a string, or an array of parts whose text parts count.
Checked<std::string> contentText(const json &content, const std::string &param)
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
        if (part["type"] != "text")
            continue; // images, audio, files: not text tokens
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

std::optional<ApiError> readMessages(const json &body, Endpoint endpoint, std::string &prompt)
{
    const json *messages = member(body, "messages");
    if (!messages)
        return invalid("messages", "'messages' is a required property");
    if (!messages->is_array() || messages->empty())
        return invalid("messages", "'messages' must be a non-empty array");
    static const std::vector<std::string> openAiRoles{"system", "developer", "user", "assistant", "tool", "function"};
    static const std::vector<std::string> anthropicRoles{"user", "assistant"};
    const auto &roles = endpoint == Endpoint::Messages ? anthropicRoles : openAiRoles;
    for (std::size_t i = 0; i < messages->size(); ++i) {
        const json &message = (*messages)[i];
        const std::string where = "messages[" + std::to_string(i) + "]";
        if (!message.is_object())
            return invalid(where, "'" + where + "' must be an object");
        const json *role = member(message, "role");
        if (!role || !role->is_string() ||
            std::find(roles.begin(), roles.end(), role->get<std::string>()) == roles.end()) {
            std::string accepted;
            for (const auto &r : roles)
                accepted += (accepted.empty() ? "" : ", ") + r;
            return invalid(where + ".role", "'" + where + ".role' must be one of: " + accepted);
        }
        const auto it = message.find("content");
        if (it == message.end() && endpoint == Endpoint::Messages)
            return invalid(where + ".content", "'" + where + ".content' is a required property");
        auto text = contentText(it == message.end() ? json() : *it, where + ".content");
        if (auto *error = std::get_if<ApiError>(&text))
            return *error;
        appendPrompt(prompt, std::get<std::string>(text));
    }
    return std::nullopt;
}

std::optional<ApiError> readCompletionPrompt(const json &body, GenerationRequest &request)
{
    const json *prompt = member(body, "prompt");
    if (!prompt)
        return invalid("prompt", "'prompt' is a required property");
    json single = *prompt;
    if (prompt->is_array() && !prompt->empty() && !(*prompt)[0].is_number_integer()) {
        if (prompt->size() > 1)
            return invalid("prompt", "batched prompts (an array of several) are not supported; send one per request");
        single = (*prompt)[0];
    }
    if (single.is_string()) {
        request.prompt = single.get<std::string>();
        return std::nullopt;
    }
    if (single.is_array() &&
        std::all_of(single.begin(), single.end(), [](const json &t) { return t.is_number_integer(); })) {
        request.promptTokenIds = qint64(single.size());
        return std::nullopt;
    }
    return invalid("prompt", "'prompt' must be a string, an array with one string, or an array of token ids");
}

Checked<GenerationRequest> parse(Endpoint endpoint, const json &body, const SimConfig &config)
{
    if (!body.is_object())
        return invalid({}, "the request body must be a JSON object");
    GenerationRequest request;
    request.endpoint = endpoint;

    const json *model = member(body, "model");
    if (!model || !model->is_string() || model->get<std::string>().empty())
        return invalid("model", "'model' is a required property (a non-empty string)");
    request.model = model->get<std::string>();

    if (endpoint == Endpoint::Completions) {
        if (auto error = readCompletionPrompt(body, request))
            return *error;
    } else if (endpoint == Endpoint::Responses) {
        if (auto error = readResponsesRequest(body, request))
            return *error;
    } else {
        if (endpoint == Endpoint::Messages) {
            if (const json *system = member(body, "system")) {
                auto text = contentText(*system, "system");
                if (auto *error = std::get_if<ApiError>(&text))
                    return *error;
                request.prompt = std::get<std::string>(text);
            }
        }
        if (auto error = readMessages(body, endpoint, request.prompt))
            return *error;
    }

    auto stream = optionalBool(body, "stream", false);
    if (auto *error = std::get_if<ApiError>(&stream))
        return *error;
    request.stream = std::get<bool>(stream);
    if (const json *options = member(body, "stream_options");
        options && endpoint != Endpoint::Messages && endpoint != Endpoint::Responses) {
        if (!request.stream)
            return invalid("stream_options", "'stream_options' is only allowed when 'stream' is true");
        if (!options->is_object())
            return invalid("stream_options", "'stream_options' must be an object");
        auto usage = optionalBool(*options, "include_usage", false);
        if (auto *error = std::get_if<ApiError>(&usage))
            return *error;
        request.includeUsage = std::get<bool>(usage);
    }

    // OpenAI's reasoning models refuse the older name outright.
    if (endpoint == Endpoint::Chat && config.hideReasoning && member(body, "max_tokens"))
        return ApiError{400,
                        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                        "'max_completion_tokens' instead.",
                        "max_tokens", "unsupported_parameter"};
    // Anthropic requires max_tokens; chat prefers max_completion_tokens (reasoning models).
    for (const char *key : {"max_tokens", "max_completion_tokens"}) {
        if (endpoint == Endpoint::Responses)
            break; // max_output_tokens, read with its input
        auto value = optionalInt(body, key, 1);
        if (auto *error = std::get_if<ApiError>(&value))
            return *error;
        if (const auto v = std::get<std::optional<qint64>>(value))
            request.maxTokens = v;
    }
    if (endpoint == Endpoint::Messages && !request.maxTokens)
        return invalid("max_tokens", "'max_tokens' is a required property");

    auto minTokens = optionalInt(body, "min_tokens", 0);
    if (auto *error = std::get_if<ApiError>(&minTokens))
        return *error;
    request.minTokens = std::get<std::optional<qint64>>(minTokens).value_or(0);
    if (request.maxTokens && request.minTokens > *request.maxTokens)
        return invalid("min_tokens", "'min_tokens' must not exceed 'max_tokens'");
    auto ignoreEos = optionalBool(body, "ignore_eos", false);
    if (auto *error = std::get_if<ApiError>(&ignoreEos))
        return *error;
    request.ignoreEos = std::get<bool>(ignoreEos);

    auto n = optionalInt(body, "n", 1);
    if (auto *error = std::get_if<ApiError>(&n))
        return *error;
    if (std::get<std::optional<qint64>>(n).value_or(1) != 1)
        return invalid("n", "'n' must be 1: the simulator generates one choice per request");

    if (!config.servesModel(QString::fromStdString(request.model))) {
        return ApiError{404,
                        "The model '" + request.model + "' does not exist; this simulator serves '" +
                            config.model.toStdString() + "'" +
                            (config.aliases.isEmpty()
                                 ? std::string()
                                 : " (also as '" + config.aliases.join(QStringLiteral("', '")).toStdString() + "')"),
                        "model", "model_not_found"};
    }
    return request;
}

std::string errorType(Endpoint endpoint, int status)
{
    const bool anthropic = endpoint == Endpoint::Messages;
    switch (status) {
    case 404:
        return anthropic ? "not_found_error" : "invalid_request_error";
    case 413:
        return anthropic ? "request_too_large" : "invalid_request_error";
    case 429:
        return anthropic ? "rate_limit_error" : "rate_limit_exceeded";
    case 503:
        return anthropic ? "overloaded_error" : "server_error";
    default:
        if (status >= 500)
            return anthropic ? "api_error" : "server_error";
        return "invalid_request_error";
    }
}

/// llama.cpp reports the three counts only: what its cache saved is in `timings`.
json openAiUsage(const ResponseMeta &meta, const Usage &usage)
{
    json plain = {
        {"prompt_tokens", usage.promptTokens},
        {"completion_tokens", usage.completionTokens},
        {"total_tokens", usage.promptTokens + usage.completionTokens},
    };
    if (meta.usageDialect == Dialect::Vllm) {
        plain["prompt_tokens_details"] = {{"cached_tokens", usage.cachedTokens}};
        plain["completion_tokens_details"] = {{"reasoning_tokens", usage.reasoningTokens}};
    }
    return plain;
}

/// Anthropic counts cache reads apart from input_tokens: input + cache_read = the prompt.
json anthropicUsage(const Usage &usage)
{
    return {
        {"input_tokens", usage.promptTokens - usage.cachedTokens},
        {"cache_creation_input_tokens", 0},
        {"cache_read_input_tokens", usage.cachedTokens},
        {"output_tokens", usage.completionTokens},
    };
}

// Anthropic thinking blocks end with a signature; the simulator's is a fixed placeholder.
constexpr const char *kSignature = "c2ltdWxhdGVkLXRoaW5raW5nLXNpZ25hdHVyZQ==";
constexpr const char *kFingerprint = "fp_tokenbench_sim";

std::string finishReason(const ResponseMeta &meta, bool stoppedByLength)
{
    if (meta.endpoint == Endpoint::Messages)
        return stoppedByLength ? "max_tokens" : "end_turn";
    return stoppedByLength ? "length" : "stop";
}

void appendEvent(std::string &out, const char *name, const json &data)
{
    out += "event: ";
    out += name;
    out += "\ndata: ";
    out += data.dump();
    out += "\n\n";
}

} // namespace

json Timings::toJson() const
{
    // As llama.cpp computes them: a rate of nothing is infinite or NaN, which JSON writes as null.
    const double n = double(promptN);
    const double p = double(predictedN);
    return {
        {"prompt_n", promptN},
        {"prompt_ms", promptMs},
        {"prompt_per_token_ms", promptMs / n},
        {"prompt_per_second", 1e3 / promptMs * n},
        {"predicted_n", predictedN},
        {"predicted_ms", predictedMs},
        {"predicted_per_token_ms", predictedMs / p},
        {"predicted_per_second", 1e3 / predictedMs * p},
    };
}

const char *endpointName(Endpoint endpoint)
{
    switch (endpoint) {
    case Endpoint::Chat:
        return "chat";
    case Endpoint::Completions:
        return "completions";
    case Endpoint::Messages:
        return "messages";
    case Endpoint::Responses:
        return "responses";
    }
    return "";
}

std::variant<GenerationRequest, ApiError> parseGenerationRequest(Endpoint endpoint, std::string_view body,
                                                                 const SimConfig &config)
{
    json parsed;
    try {
        parsed = json::parse(body);
    } catch (const json::exception &e) {
        // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 2: …". A number
        // beyond double (1e400) is an out_of_range: it used to escape, and the client got no answer.
        std::string what = e.what();
        if (const auto at = what.find("] "); at != std::string::npos)
            what.erase(0, at + 2);
        return invalid({}, "We could not parse the JSON body of your request: " + what);
    }
    return parse(endpoint, parsed, config);
}

std::string errorBody(Endpoint endpoint, const ApiError &error)
{
    const json param = error.param.empty() ? json() : json(error.param);
    const json code = error.code.empty() ? json() : json(error.code);
    const json body = endpoint == Endpoint::Messages
                          ? json{{"type", "error"},
                                 {"error", {{"type", errorType(endpoint, error.status)}, {"message", error.message}}}}
                          : json{{"error",
                                  {{"message", error.message},
                                   {"type", errorType(endpoint, error.status)},
                                   {"param", param},
                                   {"code", code}}}};
    // Messages may quote what the client sent (a path, a model name), which need not be UTF-8.
    return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

SseFormatter::SseFormatter(const ResponseMeta &meta)
    : m_meta(meta)
{
    if (meta.endpoint == Endpoint::Responses) {
        m_responses = std::make_shared<ResponsesStream>(meta);
        return;
    }
    const std::string common = "{\"id\":" + jsonString(meta.id) + ",\"object\":\"" +
                               (meta.endpoint == Endpoint::Chat ? "chat.completion.chunk" : "text_completion") +
                               "\",\"created\":" + std::to_string(meta.created) +
                               ",\"model\":" + jsonString(meta.model);
    m_head = "data: " + common;
    if (meta.endpoint == Endpoint::Chat)
        m_head += ",\"system_fingerprint\":\"" + std::string(kFingerprint) + "\"";
    m_head += ",\"choices\":[{\"index\":0,";
    // OpenAI puts "usage": null in every chunk but the last when usage was asked for.
    m_tail = meta.includeUsage && meta.usageDialect == Dialect::Vllm ? ",\"usage\":null}\n\n" : "}\n\n";
}

void SseFormatter::start(std::string &out, const Usage &prompt)
{
    switch (m_meta.endpoint) {
    case Endpoint::Chat:
        out += m_head;
        out += R"("delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}])";
        out += m_tail;
        break;
    case Endpoint::Completions:
        break;
    case Endpoint::Responses:
        m_responses->start(out);
        break;
    case Endpoint::Messages: {
        json usage = anthropicUsage(prompt);
        usage["output_tokens"] = 1; // as the real API reports before generating
        appendEvent(out, "message_start",
                    {{"type", "message_start"},
                     {"message",
                      {{"id", m_meta.id},
                       {"type", "message"},
                       {"role", "assistant"},
                       {"model", m_meta.model},
                       {"content", json::array()},
                       {"stop_reason", nullptr},
                       {"stop_sequence", nullptr},
                       {"usage", usage}}}});
        appendEvent(out, "ping", {{"type", "ping"}});
        break;
    }
    }
}

void SseFormatter::delta(std::string &out, bool reasoning, std::string_view text)
{
    switch (m_meta.endpoint) {
    case Endpoint::Chat:
        out += m_head;
        out += reasoning ? R"("delta":{"reasoning_content":")" : R"("delta":{"content":")";
        out += text;
        out += R"("},"logprobs":null,"finish_reason":null}])";
        out += m_tail;
        break;
    case Endpoint::Completions:
        out += m_head;
        out += R"("text":")";
        out += text;
        out += R"(","logprobs":null,"finish_reason":null}])";
        out += m_tail;
        break;
    case Endpoint::Responses:
        m_responses->delta(out, reasoning, text);
        break;
    case Endpoint::Messages: {
        const Block wanted = reasoning ? Block::Thinking : Block::Text;
        if (m_block != wanted) {
            closeBlock(out);
            m_block = wanted;
            ++m_blockIndex;
            out += "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":" +
                   std::to_string(m_blockIndex) +
                   (reasoning ? R"(,"content_block":{"type":"thinking","thinking":""}})"
                              : R"(,"content_block":{"type":"text","text":""}})") +
                   "\n\n";
        }
        out += "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":";
        out += std::to_string(m_blockIndex);
        out += reasoning ? R"(,"delta":{"type":"thinking_delta","thinking":")"
                         : R"(,"delta":{"type":"text_delta","text":")";
        out += text;
        out += "\"}}\n\n";
        break;
    }
    }
}

void SseFormatter::closeBlock(std::string &out)
{
    if (m_block == Block::None)
        return;
    if (m_block == Block::Thinking) {
        appendEvent(out, "content_block_delta",
                    {{"type", "content_block_delta"},
                     {"index", m_blockIndex},
                     {"delta", {{"type", "signature_delta"}, {"signature", kSignature}}}});
    }
    appendEvent(out, "content_block_stop", {{"type", "content_block_stop"}, {"index", m_blockIndex}});
    m_block = Block::None;
}

void SseFormatter::finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings)
{
    const std::string reason = finishReason(m_meta, stoppedByLength);
    switch (m_meta.endpoint) {
    case Endpoint::Chat:
    case Endpoint::Completions: {
        const bool llamacpp = m_meta.usageDialect == Dialect::Llamacpp;
        out += m_head;
        out += m_meta.endpoint == Endpoint::Chat ? R"("delta":{},"logprobs":null,"finish_reason":")"
                                                 : R"("text":"","logprobs":null,"finish_reason":")";
        out += reason;
        out += "\"}]";
        if (llamacpp) {
            out += ",\"usage\":";
            out += openAiUsage(m_meta, usage).dump();
        }
        if (timings) {
            out += ",\"timings\":";
            out += timings->toJson().dump();
        }
        out += m_tail;
        if (m_meta.includeUsage && !llamacpp) {
            // The usage chunk has no choices (its "choices" is empty).
            out += m_head.substr(0, m_head.size() - std::string_view("{\"index\":0,").size());
            out += "],\"usage\":";
            out += openAiUsage(m_meta, usage).dump();
            out += "}\n\n";
        }
        out += "data: [DONE]\n\n";
        break;
    }
    case Endpoint::Messages:
        closeBlock(out);
        appendEvent(out, "message_delta",
                    {{"type", "message_delta"},
                     {"delta", {{"stop_reason", reason}, {"stop_sequence", nullptr}}},
                     {"usage", {{"output_tokens", usage.completionTokens}}}});
        appendEvent(out, "message_stop", {{"type", "message_stop"}});
        break;
    case Endpoint::Responses:
        m_responses->finish(out, stoppedByLength, usage);
        break;
    }
}

std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                         bool stoppedByLength, const Usage &usage, const Timings *timings)
{
    const std::string reason = finishReason(meta, stoppedByLength);
    const auto withTimings = [timings](json body) {
        if (timings)
            body["timings"] = timings->toJson();
        return body.dump();
    };
    switch (meta.endpoint) {
    case Endpoint::Chat: {
        json message = {{"role", "assistant"}, {"content", std::string(content)}};
        if (!reasoning.empty())
            message["reasoning_content"] = std::string(reasoning);
        return withTimings(
            {{"id", meta.id},
             {"object", "chat.completion"},
             {"created", meta.created},
             {"model", meta.model},
             {"system_fingerprint", kFingerprint},
             {"choices",
              json::array({{{"index", 0}, {"message", message}, {"logprobs", nullptr}, {"finish_reason", reason}}})},
             {"usage", openAiUsage(meta, usage)}});
    }
    case Endpoint::Completions:
        return withTimings(
            {{"id", meta.id},
             {"object", "text_completion"},
             {"created", meta.created},
             {"model", meta.model},
             {"choices",
              json::array(
                  {{{"index", 0}, {"text", std::string(content)}, {"logprobs", nullptr}, {"finish_reason", reason}}})},
             {"usage", openAiUsage(meta, usage)}});
    case Endpoint::Messages: {
        json blocks = json::array();
        if (!reasoning.empty())
            blocks.push_back({{"type", "thinking"}, {"thinking", std::string(reasoning)}, {"signature", kSignature}});
        blocks.push_back({{"type", "text"}, {"text", std::string(content)}});
        return json{
            {"id", meta.id},     {"type", "message"},     {"role", "assistant"},      {"model", meta.model},
            {"content", blocks}, {"stop_reason", reason}, {"stop_sequence", nullptr}, {"usage", anthropicUsage(usage)}}
            .dump();
    }
    case Endpoint::Responses:
        return responsesObject(meta, reasoning, content, stoppedByLength, usage).dump();
    }
    return {};
}

} // namespace tb::sim
