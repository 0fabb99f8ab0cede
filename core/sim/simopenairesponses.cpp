#include "sim/simapi.h"

#include "net/jsoncursor.h"
#include "sim/simimage.h"
#include "sim/simjson.h"

#include <algorithm>

namespace tb::sim {

namespace {

using json = nlohmann::json;

/// A message's content: a string, or parts of which the text ones count as prompt tokens.
std::optional<ApiError> readContent(const json &content, const std::string &where, GenerationRequest &request)
{
    if (content.is_string()) {
        appendPrompt(request.prompt, content.get<std::string>());
        return std::nullopt;
    }
    if (!content.is_array())
        return invalid(where, "'" + where + "' must be a string or an array of content parts");
    for (std::size_t i = 0; i < content.size(); ++i) {
        const json &part = content[i];
        const std::string at = where + "[" + std::to_string(i) + "]";
        const json *type = part.is_object() ? member(part, "type") : nullptr;
        if (!type || !type->is_string())
            return invalid(at, "'" + at + "' must be an object with a 'type'");
        const std::string kind = type->get<std::string>();
        if (kind != "input_text" && kind != "output_text") {
            if (SimImage::isImagePart(kind)) {
                if (auto error = SimImage::read(part, at, request))
                    return error;
            }
            continue; // files, audio: not tokens here
        }
        const json *text = member(part, "text");
        if (!text || !text->is_string())
            return invalid(at + ".text", "'" + at + ".text' must be a string");
        appendPrompt(request.prompt, text->get<std::string>());
    }
    return std::nullopt;
}

/// A string member, or the refusal naming it.
std::optional<ApiError> stringAt(const json &item, const char *key, const std::string &where, std::string &out)
{
    const json *v = member(item, key);
    if (!v || !v->is_string())
        return invalid(where + "." + key, "'" + where + "." + key + "' must be a string");
    out = v->get<std::string>();
    return std::nullopt;
}

/// An agent loop's items: a function_call (its name and arguments count as prompt; its call_id is
/// remembered) or a function_call_output (its output counts; its call_id must answer a call of the
/// input, as OpenAI checks).
std::optional<ApiError> readFunctionItem(const json &item, const std::string &where, GenerationRequest &request)
{
    std::string callId;
    if (auto error = stringAt(item, "call_id", where, callId))
        return error;
    if (item["type"] == "function_call") {
        std::string name, arguments;
        if (auto error = stringAt(item, "name", where, name))
            return error;
        if (auto error = stringAt(item, "arguments", where, arguments))
            return error;
        request.toolCallIds.insert(callId);
        appendPrompt(request.prompt, name);
        appendPrompt(request.prompt, arguments);
        return std::nullopt;
    }
    if (!request.toolCallIds.contains(callId))
        return invalid(where + ".call_id",
                       "No tool call found for function call output with call_id " +
                           json(callId.substr(0, 80)).dump(-1, ' ', false, json::error_handler_t::replace) + ".");
    const json *output = member(item, "output");
    if (!output)
        return invalid(where + ".output", "'" + where + ".output' is a required property");
    if (auto error = readContent(*output, where + ".output", request))
        return error;
    request.afterToolResult = true;
    return std::nullopt;
}

json usageJson(const Usage &usage)
{
    return {{"input_tokens", usage.promptTokens},
            {"input_tokens_details", {{"cached_tokens", usage.cachedTokens}}},
            {"output_tokens", usage.completionTokens},
            {"output_tokens_details", {{"reasoning_tokens", usage.reasoningTokens}}},
            {"total_tokens", usage.promptTokens + usage.completionTokens}};
}

/// The OpenAI Responses API (POST /v1/responses) as the simulator serves it: `instructions` and
/// `input` (a string, or messages whose content is a string or input_text/output_text parts) and
/// max_output_tokens in; its typed stream events and its response object out, so that the
/// official client library works unchanged.
class SimOpenAiResponses final : public SimApi
{
public:
    SimOpenAiResponses()
        : SimApi(Endpoint::Responses, "responses", "/v1/responses", "resp_")
    {}
    bool hidesReasoning() const override { return true; }
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::optional<ApiError> readResponseFormat(const nlohmann::json &body, GenerationRequest &request) const override
    {
        const nlohmann::json *text = member(body, "text");
        return readFormat(text && text->is_object() ? member(*text, "format") : nullptr, "text.format", true, request);
    }
    std::optional<ApiError> readTools(const nlohmann::json &body, GenerationRequest &request) const override
    {
        return readToolsAs(body, ToolShape::Flat, request);
    }
    std::optional<ApiError> readMaxTokens(const nlohmann::json &body, GenerationRequest &request,
                                          const SimConfig &config) const override;
    std::unique_ptr<SimStream> stream(const ResponseMeta &meta) const override;
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
};

} // namespace

std::optional<ApiError> SimOpenAiResponses::readPrompt(const json &body, GenerationRequest &request) const
{
    if (const json *instructions = member(body, "instructions")) {
        if (!instructions->is_string())
            return invalid("instructions", "'instructions' must be a string");
        appendPrompt(request.prompt, instructions->get<std::string>());
    }
    const json *input = member(body, "input");
    if (!input)
        return invalid("input", "'input' is a required property");
    if (input->is_string()) {
        appendPrompt(request.prompt, input->get<std::string>());
    } else if (input->is_array() && !input->empty()) {
        static const std::vector<std::string> roles{"system", "developer", "user", "assistant"};
        for (std::size_t i = 0; i < input->size(); ++i) {
            const json &item = (*input)[i];
            const std::string where = "input[" + std::to_string(i) + "]";
            const json *type = item.is_object() ? member(item, "type") : nullptr;
            request.afterToolResult = false;
            if (type && (*type == "function_call" || *type == "function_call_output")) {
                if (auto error = readFunctionItem(item, where, request))
                    return error;
                continue;
            }
            if (!item.is_object() || (type && (!type->is_string() || *type != "message")))
                return invalid(where, "'" + where +
                                          "' must be a message ({\"role\", \"content\"}), a function_call or a "
                                          "function_call_output");
            const json *role = member(item, "role");
            if (!role || !role->is_string() ||
                std::find(roles.begin(), roles.end(), role->get<std::string>()) == roles.end())
                return invalid(where + ".role",
                               "'" + where + ".role' must be one of: system, developer, user, assistant");
            const json *content = member(item, "content");
            if (!content)
                return invalid(where + ".content", "'" + where + ".content' is a required property");
            if (auto error = readContent(*content, where + ".content", request))
                return error;
        }
    } else {
        return invalid("input", "'input' must be a string or a non-empty array of messages");
    }
    if (const json *max = member(body, "max_output_tokens")) {
        if (!max->is_number_integer() || max->get<double>() < 1)
            return invalid("max_output_tokens", "'max_output_tokens' must be an integer >= 1");
        request.maxTokens = max->get<qint64>();
    }
    return std::nullopt;
}

namespace {

/// A tool call's output item, its arguments so far.
json functionCallItem(const ResponseMeta &meta, std::string_view arguments, const char *status)
{
    return {{"id", "fc_" + meta.toolCallId},
            {"type", "function_call"},
            {"status", status},
            {"arguments", std::string(arguments)},
            {"call_id", "call_" + meta.toolCallId},
            {"name", meta.toolName}};
}

/// The response object: a non-streaming body, and what response.completed carries.
json responsesObject(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                     bool stoppedByLength, const Usage &usage)
{
    json output = json::array();
    const std::string suffix = meta.id.substr(std::string_view("resp_").size());
    if (!reasoning.empty() || usage.reasoningTokens > 0) {
        // With hidden reasoning the item is there and its summary is empty, as OpenAI's o-series answer.
        json summary = json::array();
        if (!reasoning.empty())
            summary.push_back({{"type", "summary_text"}, {"text", std::string(reasoning)}});
        output.push_back({{"id", "rs_" + suffix}, {"type", "reasoning"}, {"summary", summary}});
    }
    if (!meta.toolName.empty())
        output.push_back(functionCallItem(meta, content, "completed"));
    else
        output.push_back({{"id", "msg_" + suffix},
                          {"type", "message"},
                          {"status", stoppedByLength ? "incomplete" : "completed"},
                          {"role", "assistant"},
                          {"content", json::array({{{"type", "output_text"},
                                                    {"text", std::string(content)},
                                                    {"annotations", json::array()}}})}});
    return {{"id", meta.id},
            {"object", "response"},
            {"created_at", meta.created},
            {"status", stoppedByLength ? "incomplete" : "completed"},
            {"error", nullptr},
            {"incomplete_details", stoppedByLength ? json{{"reason", "max_output_tokens"}} : json()},
            {"instructions", nullptr},
            {"metadata", json::object()},
            {"model", meta.model},
            {"output", output},
            {"parallel_tool_calls", true},
            {"temperature", 1.0},
            {"tool_choice", "auto"},
            {"tools", json::array()},
            {"top_p", 1.0},
            {"usage", usageJson(usage)}};
}

/// One streaming response's events: response.created and .in_progress, an output item per kind
/// of text (a reasoning item with a summary, then the message) with its added/delta/done events,
/// and response.completed (or .incomplete at max_output_tokens) with the whole response and usage.
class ResponsesStream final : public SimStream
{
public:
    explicit ResponsesStream(const ResponseMeta &meta);

    void start(std::string &out, const Usage &prompt) override;
    void delta(std::string &out, bool reasoning, std::string_view text) override;
    void finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings) override;

private:
    enum class Item { None, Reasoning, Message, FunctionCall };
    void event(std::string &out, const char *type, nlohmann::json data);
    void closeItem(std::string &out);
    std::string itemId(Item item) const;

    ResponseMeta m_meta;
    qint64 m_sequence = 0;
    int m_outputIndex = -1;
    Item m_item = Item::None;
    std::string m_reasoning; ///< the texts so far: the done events and response.completed repeat them
    std::string m_content;
    std::string m_deltaHead; ///< the open item's delta event up to its text
};

ResponsesStream::ResponsesStream(const ResponseMeta &meta)
    : m_meta(meta)
{}

void ResponsesStream::event(std::string &out, const char *type, json data)
{
    data["type"] = type;
    data["sequence_number"] = m_sequence++;
    out += "event: ";
    out += type;
    out += "\ndata: ";
    out += data.dump();
    out += "\n\n";
}

std::string ResponsesStream::itemId(Item item) const
{
    if (item == Item::FunctionCall)
        return "fc_" + m_meta.toolCallId;
    return (item == Item::Reasoning ? "rs_" : "msg_") + m_meta.id.substr(std::string_view("resp_").size());
}

void ResponsesStream::start(std::string &out, const Usage &)
{
    json response = responsesObject(m_meta, {}, {}, false, {});
    response["status"] = "in_progress";
    response["output"] = json::array();
    response["usage"] = nullptr;
    event(out, "response.created", {{"response", response}});
    event(out, "response.in_progress", {{"response", response}});
}

void ResponsesStream::delta(std::string &out, bool reasoning, std::string_view text)
{
    const Item wanted = reasoning ? Item::Reasoning : !m_meta.toolName.empty() ? Item::FunctionCall : Item::Message;
    if (m_item != wanted) {
        closeItem(out);
        m_item = wanted;
        ++m_outputIndex;
        const std::string id = itemId(wanted);
        if (wanted == Item::FunctionCall) {
            event(out, "response.output_item.added",
                  {{"output_index", m_outputIndex}, {"item", functionCallItem(m_meta, {}, "in_progress")}});
        } else if (reasoning) {
            event(out, "response.output_item.added",
                  {{"output_index", m_outputIndex},
                   {"item", {{"id", id}, {"type", "reasoning"}, {"summary", json::array()}}}});
            event(out, "response.reasoning_summary_part.added",
                  {{"item_id", id},
                   {"output_index", m_outputIndex},
                   {"summary_index", 0},
                   {"part", {{"type", "summary_text"}, {"text", ""}}}});
        } else {
            event(out, "response.output_item.added",
                  {{"output_index", m_outputIndex},
                   {"item",
                    {{"id", id},
                     {"type", "message"},
                     {"status", "in_progress"},
                     {"role", "assistant"},
                     {"content", json::array()}}}});
            event(out, "response.content_part.added",
                  {{"item_id", id},
                   {"output_index", m_outputIndex},
                   {"content_index", 0},
                   {"part", {{"type", "output_text"}, {"text", ""}, {"annotations", json::array()}}}});
        }
        const char *type = wanted == Item::FunctionCall ? "response.function_call_arguments.delta"
                           : reasoning                  ? "response.reasoning_summary_text.delta"
                                                        : "response.output_text.delta";
        m_deltaHead = std::string("event: ") + type + "\ndata: {\"type\":\"" + type + "\",\"item_id\":\"" + id +
                      "\",\"output_index\":" + std::to_string(m_outputIndex) +
                      (wanted == Item::FunctionCall ? ""
                       : reasoning                  ? ",\"summary_index\":0"
                                                    : ",\"content_index\":0,\"logprobs\":[]");
    }
    // The done events and response.completed repeat the text as JSON values: kept unescaped
    // (a structured reply's or a tool call's pieces come escaped).
    JsonCursor::decode(text, reasoning ? m_reasoning : m_content);
    out += m_deltaHead;
    out += ",\"sequence_number\":";
    out += std::to_string(m_sequence++);
    out += ",\"delta\":\"";
    out += text;
    out += "\"}\n\n";
}

void ResponsesStream::closeItem(std::string &out)
{
    const std::string id = itemId(m_item);
    switch (m_item) {
    case Item::None:
        return;
    case Item::Reasoning: {
        const json part = {{"type", "summary_text"}, {"text", m_reasoning}};
        event(out, "response.reasoning_summary_text.done",
              {{"item_id", id}, {"output_index", m_outputIndex}, {"summary_index", 0}, {"text", m_reasoning}});
        event(out, "response.reasoning_summary_part.done",
              {{"item_id", id}, {"output_index", m_outputIndex}, {"summary_index", 0}, {"part", part}});
        event(out, "response.output_item.done",
              {{"output_index", m_outputIndex},
               {"item", {{"id", id}, {"type", "reasoning"}, {"summary", json::array({part})}}}});
        break;
    }
    case Item::FunctionCall:
        event(out, "response.function_call_arguments.done",
              {{"item_id", id}, {"output_index", m_outputIndex}, {"arguments", m_content}});
        event(out, "response.output_item.done",
              {{"output_index", m_outputIndex}, {"item", functionCallItem(m_meta, m_content, "completed")}});
        break;
    case Item::Message: {
        const json part = {{"type", "output_text"}, {"text", m_content}, {"annotations", json::array()}};
        event(out, "response.output_text.done",
              {{"item_id", id},
               {"output_index", m_outputIndex},
               {"content_index", 0},
               {"text", m_content},
               {"logprobs", json::array()}});
        event(out, "response.content_part.done",
              {{"item_id", id}, {"output_index", m_outputIndex}, {"content_index", 0}, {"part", part}});
        event(out, "response.output_item.done",
              {{"output_index", m_outputIndex},
               {"item",
                {{"id", id},
                 {"type", "message"},
                 {"status", "completed"},
                 {"role", "assistant"},
                 {"content", json::array({part})}}}});
        break;
    }
    }
    m_item = Item::None;
}

void ResponsesStream::finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *)
{
    closeItem(out);
    event(out, stoppedByLength ? "response.incomplete" : "response.completed",
          {{"response", responsesObject(m_meta, m_reasoning, m_content, stoppedByLength, usage)}});
}

} // namespace

std::optional<ApiError> SimOpenAiResponses::readMaxTokens(const json &, GenerationRequest &, const SimConfig &) const
{
    return std::nullopt; // max_output_tokens, read with its input
}

std::unique_ptr<SimStream> SimOpenAiResponses::stream(const ResponseMeta &meta) const
{
    return std::make_unique<ResponsesStream>(meta);
}

std::string SimOpenAiResponses::completeBody(const ResponseMeta &meta, std::string_view reasoning,
                                             std::string_view content, bool stoppedByLength, const Usage &usage,
                                             const Timings *) const
{
    return responsesObject(meta, reasoning, content, stoppedByLength, usage).dump();
}

const SimApi &openAiResponsesApi()
{
    static const SimOpenAiResponses api;
    return api;
}

} // namespace tb::sim
