#pragma once

#include "net/jsoncursor.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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
    /// A string or null of generated text at the cursor.
    bool generated(std::size_t &bytes, bool reply = false);
    bool optionalString(std::string_view &out);
    /// A token count: refused beyond kMaxTokenCount.
    bool count(std::int64_t *out);
    bool usage();
    /// An error member: noted, its content read again by the decoder when it reports it.
    bool error();
    /// A message delta, a whole message, an Anthropic delta or content block: whatever text it has.
    bool delta();
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
};

} // namespace tb
