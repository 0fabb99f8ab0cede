#pragma once

#include "net/jsoncursor.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

/// Usage numbers as the dialects name them; -1 = not in this document.
struct DocumentUsage {
    std::int64_t promptTokens = -1;
    std::int64_t completionTokens = -1;
    std::int64_t cachedTokens = -1;
    std::int64_t reasoningTokens = -1;
    std::int64_t inputTokens = -1;
    std::int64_t cacheReadTokens = -1;
    std::int64_t cacheCreationTokens = -1;
    std::int64_t outputTokens = -1;
    bool seen = false;
};

/// One tool call of a response, its name and arguments decoded as their fragments arrive.
struct ToolCallText {
    std::int64_t index = 0; ///< as the API numbers it: chat's index, the Responses output index, Anthropic's block
    std::string id;         ///< chat's id, the Responses call_id, Anthropic's tool_use id; empty: none kept
    std::string name;
    std::string arguments;
};

/// A response's tool calls (--tools), bounded: at most kMaxCalls calls and kMaxBytes of names and
/// arguments are kept; `cut` says more came (the calls then cannot be checked).
struct ToolCallTexts {
    static constexpr std::size_t kMaxCalls = 128;
    static constexpr std::size_t kMaxBytes = 256 * 1024;
    /// A call id is kept when it is 1 to kMaxIdBytes of printable ASCII (OpenAI's and Anthropic's
    /// are about 30): a conversation sends it back verbatim. Another is not kept, and the next turn
    /// goes with an id of the client's own, which a server may refuse (a visible failure).
    static constexpr std::size_t kMaxIdBytes = 128;
    std::vector<ToolCallText> calls;
    std::size_t bytes = 0;
    bool cut = false;

    /// The call numbered `index`, added when new; nullptr past kMaxCalls.
    ToolCallText *at(std::int64_t index);
    void clear()
    {
        calls.clear();
        bytes = 0;
        cut = false;
    }
};

/// What one JSON document (a stream event or a body) of any dialect says, as views into it.
struct DocumentFields {
    std::string_view id;
    std::string_view status;           ///< Responses API: the response's status
    std::string_view delta;            ///< Responses API: a text delta, classed by the event type
    std::string_view incompleteReason; ///< Responses API: incomplete_details.reason
    std::string_view finish;           ///< finish_reason / stop_reason
    std::string_view type;             ///< the event's type (Anthropic's, the Responses API's)
    std::size_t contentBytes = 0;
    std::size_t reasoningBytes = 0;
    std::size_t toolCallBytes = 0; ///< a tool call's name and arguments: neither content nor reasoning
    /// Anthropic's event index, the Responses API's output_index: which call an event's fragment is of.
    std::int64_t index = -1;
    /// Anthropic: a tool_use block's start (its name) or input_json_delta (partial_json) in an
    /// event, kept until the event's index is known.
    bool blockIsToolUse = false;
    std::string_view blockName;
    std::string_view blockId;
    std::string_view partialJson;
    bool hasError = false;
    bool outOfRange = false; ///< a token count beyond kMaxTokenCount or int64
    bool notWhole = false;   ///< a token count with a fraction (7.9, 5e-1)
    bool replyCut = false;   ///< content past the reply's cap was not kept (DocumentReader's maxReplyBytes)
    DocumentUsage usage;
    std::int64_t promptEvaluated = -1; ///< llama.cpp's timings.prompt_n; -1: not in this document
    std::int64_t items = -1;           ///< embeddings: the entries of "data"; -1: no such array

    /// Why a document was refused for a token count in it; empty when it is not JSON.
    QString refusedCount() const;
};

/// Reads one JSON document in one pass with a JsonCursor, into DocumentFields: the pieces every
/// dialect's reader (ApiDialect::read) is made of. Generated text is counted, and kept where the
/// decoder asks for it: for the local tokenizer (`text`) and as the reply (`reply`).
class DocumentReader
{
public:
    /// text, reply: where generated text (all of it; content only) is appended, or nullptr.
    DocumentReader(std::string_view json, DocumentFields &fields, std::string *text, std::string *reply,
                   std::size_t maxReplyBytes);

    JsonCursor &cursor() { return m_cursor; }
    DocumentFields &fields() { return m_fields; }

    /// The Responses API's response.created carries "usage": null long before the real one: with
    /// this set, a null usage is no usage.
    bool nullUsageIsAbsent = false;

    /// Generated text (raw JSON string contents): counts its bytes and keeps it. reply: the text is
    /// what the model said (content), not reasoning or a tool call.
    void keep(std::string_view raw, std::size_t &bytes, bool reply);
    /// Where the response's tool calls are kept (StreamDecoder's); nullptr: only counted.
    void keepToolCalls(ToolCallTexts *calls) { m_toolCalls = calls; }
    /// A fragment of tool call `index`: raw JSON string contents of its name and arguments, or,
    /// with argumentsAreJson, its arguments as JSON text (Anthropic's input object). Counted as
    /// tool-call text (generated, not content), and kept.
    /// rawId: the call's id (raw JSON string contents) when this fragment carries it.
    void toolCall(std::int64_t index, std::string_view rawName, std::string_view rawArguments,
                  bool argumentsAreJson = false, std::string_view rawId = {});
    /// The call `index` has arguments already (the Responses API's .done event repeats them).
    bool hasToolArguments(std::int64_t index) const;
    /// A string or null of generated text at the cursor.
    bool generated(std::size_t &bytes, bool reply = false);
    bool optionalString(std::string_view &out);
    /// A token count: refused beyond kMaxTokenCount.
    bool count(std::int64_t *out);
    bool usage();
    /// An error member: noted, its content read again by the decoder when it reports it.
    bool error();
    /// A message delta, a whole message, an Anthropic delta or content block: whatever text it has.
    /// position: the block's place in an Anthropic body's content, -1 in a stream event (its tool
    /// call is then taken at the event's end, when its index is known).
    bool delta(std::int64_t position = -1);
    /// What every dialect's documents carry alike (id, usage, error); nullopt for any other key.
    std::optional<bool> common(std::string_view key);
    /// The shapes of the OpenAI chat and completions APIs and Anthropic's messages, read alike for
    /// all three: compatible servers mix them (a reasoning delta, llama.cpp's timings), and a
    /// document of the other shape still counts its text rather than being dropped.
    bool readCompatible();
    /// After the top-level object: the cursor's refusals noted, and the document ended.
    bool end(bool ok);

private:
    void keepReplyText(std::string_view raw);

    JsonCursor m_cursor;
    DocumentFields &m_fields;
    std::string *m_text;
    std::string *m_reply;
    std::size_t m_maxReplyBytes;
    ToolCallTexts *m_toolCalls = nullptr;
};

} // namespace tb
