#pragma once

// The simulator's OpenAI Responses API (POST /v1/responses): reading a request's input and
// instructions, and writing responses in that API's format — its typed stream events and its
// response object — so that the official client library works unchanged.

#include "sim/simprotocol.h"

#include <nlohmann/json.hpp>

namespace tb::sim {

/// Reads `instructions` and `input` (a string, or a list of messages whose content is a string or
/// input_text/output_text parts) into request.prompt, and max_output_tokens.
std::optional<ApiError> readResponsesRequest(const nlohmann::json &body, GenerationRequest &request);

/// One streaming response's events: response.created and .in_progress, an output item per kind
/// of text (a reasoning item with a summary, then the message) with its added/delta/done events,
/// and response.completed (or .incomplete at max_output_tokens) with the whole response and usage.
class ResponsesStream
{
public:
    explicit ResponsesStream(const ResponseMeta &meta);

    void start(std::string &out);
    /// `text` must need no JSON escaping (TextSource's words).
    void delta(std::string &out, bool reasoning, std::string_view text);
    void finish(std::string &out, bool stoppedByLength, const Usage &usage);

private:
    enum class Item { None, Reasoning, Message };
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

/// The response object: a non-streaming body, and what response.completed carries.
nlohmann::json responsesObject(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                               bool stoppedByLength, const Usage &usage);

} // namespace tb::sim
