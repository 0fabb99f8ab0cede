#pragma once

#include "api/documentreader.h"
#include "api/prompt.h"
#include "api/toolset.h"
#include "config/runconfig.h"
#include "metrics/requestrecord.h"

#include <QByteArray>
#include <QString>

#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

namespace tb {

/// Everything that differs between the APIs the client speaks (ApiKind): where a request goes,
/// what its body and credentials are, and how a response's documents read — its text, usage,
/// finish and the server's own errors. One const instance per dialect (dialectFor()); a new API
/// is a new subclass in its own file with an accessor declared below, listed in apiDialects(),
/// plus its simulator side (SimApi).
/// RequestBuilder and StreamDecoder keep what all dialects share and ask the dialect the rest.
class ApiDialect
{
public:
    virtual ~ApiDialect() = default;

    ApiKind kind() const { return m_kind; }
    /// "openai-chat": the name in configuration files and --api (apiKindName: config, which
    /// parses them, ranks below api/).
    QString name() const { return apiKindName(kind()); }
    /// "OpenAI chat — /chat/completions": the GUI's choice (context "tb::ApiDialect" for translation).
    const char *label() const { return m_label; }
    /// What requests are posted to, after the target URL's path: "/chat/completions".
    const char *path() const { return m_path; }

    /// The body field that carries the output cap (RequestBuilder::maxTokensKey).
    virtual const char *maxTokensKey(const TargetConfig &target, MaxTokensField field) const;
    using AddHeader = std::function<void(const char *name, const QByteArray &value)>;
    /// The credential headers an API key makes; basicAuth: the URL's userinfo already took
    /// Authorization. Default: Bearer.
    virtual void addCredentials(const QByteArray &key, bool basicAuth, const AddHeader &add) const;
    /// Adds the dialect's part of a request body (the prompt, stream options) to the common one
    /// (model, output cap, stream, sampling).
    virtual void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const = 0;
    /// Asks for structured output (--response-format): any JSON object (schema null) or JSON valid
    /// for `schema`, named `name`. Default: the chat API's response_format, which vLLM and
    /// llama.cpp also read on their completions endpoints.
    virtual void writeResponseFormat(nlohmann::json &body, const nlohmann::json &schema, const std::string &name) const;
    /// A text content part of a user message. Default: the chat API's {"type": "text"}.
    virtual nlohmann::json textPart(const std::string &text) const;
    /// An image content part (Prompt::images). Default: the chat API's
    /// {"type": "image_url", "image_url": {"url": "data:…"}}.
    virtual nlohmann::json imagePart(const PromptImage &image) const;
    /// A user message's content: `text` alone, or with prompt.images its text part, then an image
    /// part each.
    nlohmann::json userContent(const std::string &text, const Prompt &prompt) const;
    /// Puts prompt.images after the text of the last user message of `messages` (a prompt file's
    /// or dataset row's), whose content becomes parts.
    void attachImages(nlohmann::json &messages, const Prompt &prompt) const;
    /// Offers tools (--tools) and, unless it is the server's default, the choice among them.
    /// Default: the chat API's tools ([{"type": "function", "function": {…}}]) and tool_choice.
    virtual void writeTools(nlohmann::json &body, const ToolSet &tools) const;
    /// A conversation's turn whose reply called tools (--tools with --turns): appends to a history
    /// of messages the assistant's reply — its text, if any, and `calls` (each with an id) — and
    /// `results` (one a call, in order), as the next turn sends them. Default: the chat API's
    /// assistant message with "tool_calls" [{id, "type": "function", function: {name, arguments}}],
    /// then a {"role": "tool", tool_call_id, content} message a result.
    virtual void appendToolTurn(nlohmann::json &messages, const std::string &text,
                                const std::vector<ReplyToolCall> &calls, const std::vector<std::string> &results) const;
    /// The prompt goes as one text (legacy completions), not as messages: the server's /tokenize
    /// is asked the same way when calibrating.
    virtual bool promptIsText() const { return false; }
    /// A prompt as one text (the APIs whose promptIsText()): system prompt, then the user text or
    /// the messages' string contents, blank lines between.
    static std::string promptText(const Prompt &prompt);
    /// The server's /models listing reports context lengths (checked before a run).
    virtual bool listsContextLengths() const { return true; }
    /// The API generates text: its body carries the output cap, stream and sampling, and it may
    /// stream. Embeddings and rerank do not: their body is the model and the inputs, never streamed.
    virtual bool generates() const { return true; }
    /// A batch's system prompt goes once, apart from its inputs (a rerank's query), not at the
    /// head of every input (embeddings).
    virtual bool systemApart() const { return false; }
    /// Why a whole response that read well does not answer the request `r` (embeddings: fewer
    /// vectors than inputs), or empty: a protocol failure.
    virtual QString answerProblem(const DocumentFields &, const RequestRecord &) const { return {}; }

    /// Reads one JSON document, a stream event's data or a whole body, into the reader's fields.
    virtual bool read(DocumentReader &reader) const;
    /// "data: [DONE]" ends the stream.
    virtual bool endsWithDone() const { return true; }
    /// An event of another API that says the target's --api is wrong: a message naming the API
    /// to use, else empty. Default: the Responses API's events.
    virtual QString foreignEvent(std::string_view event, std::string_view type, bool parsed,
                                 std::string_view data) const;
    /// The document is the server's error: an "error" member or an event of type "error".
    virtual bool isError(const DocumentFields &f) const { return f.hasError || f.type == "error"; }
    /// The error object of an error document (parsed: the document, or discarded JSON); null when
    /// there is none. Default: its "error" member.
    virtual nlohmann::json errorObject(const nlohmann::json &parsed, const DocumentFields &f) const;
    /// The finish reason a document gives, or empty.
    virtual std::string_view finishReason(const DocumentFields &f) const { return f.finish; }
    /// A finish reason is the stream's last event (the Responses API's response.completed); else
    /// usage and an end marker follow it.
    virtual bool finishEndsStream() const { return false; }
    /// The document is the stream's end marker without being [DONE] (Anthropic's message_stop).
    virtual bool endsStream(const DocumentFields &) const { return false; }
    /// Writes a document's usage into the record; a count it lacks leaves the record's. False when
    /// the counts cannot be combined (out of range).
    virtual bool takeUsage(const DocumentUsage &u, RequestRecord &r) const;
    /// What a stream that ended before its end marker is reported as: "stream ended without …".
    QString truncatedMessage() const;

protected:
    /// `streamEnd` names what ends the dialect's streams, for truncatedMessage().
    ApiDialect(ApiKind kind, const char *label, const char *path, const char *streamEnd = "[DONE] or a finish reason")
        : m_kind(kind)
        , m_label(label)
        , m_path(path)
        , m_streamEnd(streamEnd)
    {}
    /// Reads a whole body of the APIs that answer a batch (embeddings, rerank, score): an object
    /// whose `array` member holds one item per input, counted into DocumentFields::items, never kept.
    static bool readBatchAnswer(DocumentReader &reader, std::string_view array);
    /// answerProblem() for those: "<api> response without a "<array>" array", or with another
    /// number of `items` than the request had `inputs`.
    static QString batchAnswerProblem(const DocumentFields &f, const RequestRecord &r, const char *api,
                                      const char *array, const char *items, const char *inputs);
    /// The OpenAI chat and completions APIs send usage in a stream only when asked for it
    /// (stream_options.include_usage): their writeBody asks for it here.
    static void askStreamUsage(nlohmann::json &body, bool stream);

private:
    ApiKind m_kind;
    const char *m_label;
    const char *m_path;
    const char *m_streamEnd;
};

// The dialects, each defined in its own file: only apiDialects() lists them.
const ApiDialect &openAiChatDialect();
const ApiDialect &openAiCompletionsDialect();
const ApiDialect &anthropicMessagesDialect();
const ApiDialect &openAiResponsesDialect();
const ApiDialect &openAiEmbeddingsDialect();
const ApiDialect &rerankDialect(); ///< and scoreDialect(): api/rerank.cpp
const ApiDialect &scoreDialect();

const ApiDialect &dialectFor(ApiKind api);
/// Every dialect, in ApiKind's order: for the GUI's choice and the CLI's help.
const std::vector<const ApiDialect *> &apiDialects();

/// The one of `all` (apiDialects(), the simulator's simApis()) whose `key` is `value`; the first
/// when none is, which cannot happen: tst_apidialect checks that every value has its entry.
template<typename Api, typename Key>
const Api &apiFor(const std::vector<const Api *> &all, Key (Api::*key)() const, Key value)
{
    for (const Api *api : all) {
        if ((api->*key)() == value)
            return *api;
    }
    return *all.front();
}

} // namespace tb
