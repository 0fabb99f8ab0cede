#pragma once

#include "api/apidialect.h"
#include "config/runconfig.h"
#include "formats/jsonschema.h"
#include "metrics/requestrecord.h"
#include "tokenize/tokenizer.h"

#include <string>
#include <string_view>

namespace tb {

/// Decodes one response of any API dialect (ApiDialect) into a RequestRecord: content,
/// reasoning and tool-call deltas (as token-bearing chunks stamped with their read's time), usage
/// (prompt, completion, cached and reasoning tokens), llama.cpp's timings (prompt tokens it
/// evaluated: the rest were cached), finish reason, response id, and error events.
/// One decoder serves one request at a time; begin() resets it.
class StreamDecoder
{
public:
    /// With a tokenizer, text is counted with it when the server reports no usage (once, at the
    /// end); without, one token per chunk. keepReply: keep the generated content (not reasoning or
    /// tool calls) as RequestRecord::reply, up to kMaxReplyBytes, and the tool calls as
    /// RequestRecord::replyCalls, for conversations whose next turn carries them. The content is
    /// always read, up to OutputRedundancy::kMaxExaminedBytes at least, for a successful request's
    /// RequestRecord::redundancy (over the tokenizer's tokens when there is one, else words);
    /// saveOutput: that much of it also goes to RequestRecord::output.
    explicit StreamDecoder(ApiKind api, const Tokenizer *tokenizer = nullptr, bool keepReply = false,
                           bool saveOutput = false);

    static constexpr std::size_t kMaxReplyBytes = 256 * 1024;

    /// --response-format: a successful request's reply is kept up to kMaxReplyBytes and checked,
    /// as JSON and, with a schema, against it (RequestRecord::outputCheck). The schema outlives
    /// the decoder (the run's RequestBuilder holds it).
    void checkOutput(const JsonSchema *schema)
    {
        m_checkOutput = true;
        m_schema = schema;
    }

    /// --tools: a successful request's tool calls are checked against the tools (RequestRecord::
    /// toolCallCheck). The tools outlive the decoder (the run's RequestBuilder holds them).
    void checkToolCalls(const ToolSet *tools) { m_tools = tools; }

    void begin(RequestRecord *record);

    /// One SSE event of a streaming response; stampNs is when its bytes were read.
    void onEvent(std::string_view event, std::string_view data, std::int64_t stampNs);
    /// The whole body of a non-streaming response (or a streaming request the server answered
    /// with plain JSON).
    void onBody(std::string_view body, std::int64_t stampNs);
    /// A non-2xx response's body: extracts the server's error message.
    static QString errorMessageFromBody(std::string_view body);

    /// The stream said it is complete ([DONE], a finish reason, or message_stop).
    bool complete() const { return m_done || m_finished; }
    /// The stream's last event came: [DONE], Anthropic's message_stop, the Responses API's
    /// response.completed or response.incomplete. Nothing follows it; a finish reason is not it
    /// (OpenAI sends usage, then [DONE], after the finish reason).
    bool streamEnded() const { return m_done || (m_dialect.finishEndsStream() && m_finished); }
    /// A protocol problem or an error event was seen; the message is in the record.
    bool failed() const { return m_failed; }
    /// How the failure is classed: the server's own error (an error event or error body) or a
    /// protocol problem. Only meaningful when failed().
    RequestStatus failure() const { return m_serverError ? RequestStatus::ServerError : RequestStatus::Protocol; }

    /// Settles token counts and their source once the response has ended (docs/SPEC.md §3: usage first,
    /// else the local tokenizer when configured, else one token per chunk). promptTokens is the
    /// client's count of the prompt, from promptSource, used when the server reports no usage.
    void finish(std::int64_t promptTokens, TokenSource promptSource);

    const ApiDialect &dialect() const { return m_dialect; }

private:
    void chunk(std::int64_t stampNs, const DocumentFields &f);
    void fail(const QString &message);
    /// What checkOutput() asked of the reply: parsed (depth-bounded as a configuration) and validated.
    OutputCheck checkedOutput() const;
    /// Reads one JSON document (an event or a body) into fields, in one pass.
    bool read(std::string_view json, DocumentFields &f);
    void apply(const DocumentFields &f, std::string_view json, std::int64_t stampNs, bool streaming);

    const ApiDialect &m_dialect;
    const Tokenizer *m_tokenizer;
    bool m_keepReply;
    bool m_saveOutput;
    bool m_checkOutput = false;
    const JsonSchema *m_schema = nullptr;
    const ToolSet *m_tools = nullptr;
    ToolCallTexts m_toolCalls; ///< the response's tool calls, always read (they are counted)
    bool m_replyCut = false;   ///< content beyond the kept reply arrived: the reply cannot be checked
    RequestRecord *m_record = nullptr;
    bool m_done = false;
    bool m_finished = false;
    bool m_failed = false;
    bool m_sawUsage = false;
    bool m_sawReasoningText = false; ///< reasoning arrived as text (else usage's reasoning is hidden)
    bool m_serverError = false;
    bool m_usageCached = false;          ///< the usage reported cached tokens (cached_tokens, cache reads)
    std::int64_t m_promptEvaluated = -1; ///< llama.cpp's timings.prompt_n, the last one; -1: none
    std::string m_text;                  ///< generated text, kept only when counting with the tokenizer
    std::string m_reply;                 ///< generated content (bounded, see the constructor)
};

} // namespace tb
