#include "sim/simprotocol.h"

#include "sim/simapi.h"
#include "sim/simjson.h"

#include <nlohmann/json.hpp>

namespace tb::sim {

namespace {

using json = nlohmann::json;

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

    const SimApi &api = simApiFor(endpoint);
    if (auto error = api.readPrompt(body, request))
        return *error;

    auto stream = optionalBool(body, "stream", false);
    if (auto *error = std::get_if<ApiError>(&stream))
        return *error;
    request.stream = std::get<bool>(stream);
    if (const json *options = member(body, "stream_options"); options && api.takesStreamOptions()) {
        if (!request.stream)
            return invalid("stream_options", "'stream_options' is only allowed when 'stream' is true");
        if (!options->is_object())
            return invalid("stream_options", "'stream_options' must be an object");
        auto usage = optionalBool(*options, "include_usage", false);
        if (auto *error = std::get_if<ApiError>(&usage))
            return *error;
        request.includeUsage = std::get<bool>(usage);
    }

    if (auto error = api.readMaxTokens(body, request, config))
        return *error;
    if (auto error = api.readResponseFormat(body, request))
        return *error;
    if (auto error = api.readTools(body, request))
        return *error;

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
        // With models served (LoRA adapters) the simulator stands in for vLLM, which answers an
        // unknown one as OpenAI does, word for word.
        if (!config.models.isEmpty())
            return ApiError{404, "The model `" + request.model + "` does not exist.", {}, "model_not_found"};
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
    return simApiFor(endpoint).name();
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
    return simApiFor(endpoint).errorBody(error);
}

SseFormatter::SseFormatter(const ResponseMeta &meta)
    : m_stream(simApiFor(meta.endpoint).stream(meta))
{}

SseFormatter::~SseFormatter() = default;
SseFormatter::SseFormatter(SseFormatter &&) noexcept = default;
SseFormatter &SseFormatter::operator=(SseFormatter &&) noexcept = default;

void SseFormatter::start(std::string &out, const Usage &prompt)
{
    m_stream->start(out, prompt);
}

void SseFormatter::delta(std::string &out, bool reasoning, std::string_view text)
{
    m_stream->delta(out, reasoning, text);
}

void SseFormatter::finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings)
{
    m_stream->finish(out, stoppedByLength, usage, timings);
}

std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                         bool stoppedByLength, const Usage &usage, const Timings *timings)
{
    return simApiFor(meta.endpoint).completeBody(meta, reasoning, content, stoppedByLength, usage, timings);
}

} // namespace tb::sim
