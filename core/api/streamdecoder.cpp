#include "api/streamdecoder.h"

#include "net/jsoncursor.h"

#include <optional>

namespace tb {

namespace {

constexpr qsizetype kMaxErrorMessage = 300;
using limits::kMaxTokenCount;

const nlohmann::json *member(const nlohmann::json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

QString shorten(QString text)
{
    text = text.simplified();
    if (text.size() > kMaxErrorMessage)
        text = text.left(kMaxErrorMessage - 1) + QChar(0x2026);
    return text;
}

QString text(std::string_view raw)
{
    return QString::fromUtf8(raw.data(), qsizetype(raw.size()));
}

/// "overloaded_error: Overloaded" from an OpenAI or Anthropic error object.
QString describeError(const nlohmann::json &error)
{
    if (error.is_string())
        return shorten(fromStd(error.get<std::string>()));
    const auto field = [&error](const char *key) {
        const nlohmann::json *v = member(error, key);
        return v && v->is_string() ? fromStd(v->get<std::string>()) : QString();
    };
    const QString message = field("message");
    const QString type = field("type").isEmpty() ? field("code") : field("type"); // the Responses API has a code
    if (message.isEmpty() && type.isEmpty())
        return shorten(fromStd(error.dump()));
    return shorten(type.isEmpty() ? message : type + QStringLiteral(": ") + message);
}

/// Usage numbers as both APIs name them; -1 = not in this document.
struct Usage {
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

} // namespace

/// What one JSON document of either API says, as views into it.
struct StreamDecoder::Fields {
    std::string_view id;
    std::string_view status;           ///< Responses API: the response's status
    std::string_view delta;            ///< Responses API: a text delta, classed by the event type
    std::string_view incompleteReason; ///< Responses API: incomplete_details.reason
    std::string_view finish;           ///< finish_reason / stop_reason
    std::string_view type;             ///< Anthropic's event type
    std::size_t contentBytes = 0;
    std::size_t reasoningBytes = 0;
    bool hasError = false;
    bool outOfRange = false; ///< a token count beyond kMaxTokenCount or int64
    bool notWhole = false;   ///< a token count with a fraction (7.9, 5e-1)

    /// Why a document was refused for a token count in it; empty when it is not JSON.
    QString refusedCount() const
    {
        return outOfRange ? QStringLiteral("token count out of range")
               : notWhole ? QStringLiteral("token count not a whole number")
                          : QString();
    }
    Usage usage;
    std::int64_t promptEvaluated = -1; ///< llama.cpp's timings.prompt_n; -1: not in this document
};

StreamDecoder::StreamDecoder(ApiKind api, const Tokenizer *tokenizer, bool keepReply)
    : m_api(api)
    , m_tokenizer(tokenizer)
    , m_keepReply(keepReply)
{}

void StreamDecoder::begin(RequestRecord *record)
{
    m_record = record;
    m_done = m_finished = m_failed = m_sawUsage = m_sawReasoningText = m_serverError = m_usageCached = false;
    m_promptEvaluated = -1;
    m_text.clear();
    m_reply.clear();
}

void StreamDecoder::keepReplyText(std::string_view raw)
{
    if (!m_keepReply || m_reply.size() >= kMaxReplyBytes)
        return;
    JsonCursor::decode(raw, m_reply);
    if (m_reply.size() > kMaxReplyBytes) {
        // Cut at a character boundary: the reply goes back to the server as JSON text.
        std::size_t end = kMaxReplyBytes;
        while (end > 0 && (static_cast<unsigned char>(m_reply[end]) & 0xC0) == 0x80)
            --end;
        m_reply.resize(end);
    }
}

void StreamDecoder::fail(const QString &message)
{
    if (!m_failed) {
        m_failed = true;
        m_record->errorMessage = shorten(message);
    }
}

void StreamDecoder::chunk(std::int64_t stampNs, std::size_t textBytes, bool reasoning)
{
    RequestRecord &r = *m_record;
    if (r.firstTokenNs < 0)
        r.firstTokenNs = stampNs;
    if (!reasoning && r.firstContentNs < 0)
        r.firstContentNs = stampNs;
    r.lastTokenNs = stampNs;
    ++r.chunks;
    r.tokenChunks.push_back({stampNs, std::int32_t(textBytes)});
}

bool StreamDecoder::read(std::string_view json, Fields &f)
{
    JsonCursor c(json);
    // Generated text: counts its bytes, and keeps it when tokens may have to be counted locally.
    const auto keep = [this](std::string_view raw, std::size_t &bytes, bool reply) {
        bytes += JsonCursor::decodedSize(raw);
        if (m_tokenizer || !m_sawUsage)
            JsonCursor::decode(raw, m_text);
        if (reply)
            keepReplyText(raw);
    };
    // reply: the text is what the model said (content), not reasoning or a tool call.
    const auto generated = [&c, &keep](std::size_t &bytes, bool reply = false) {
        std::string_view raw;
        if (c.null())
            return true;
        if (!c.string(&raw))
            return false;
        keep(raw, bytes, reply);
        return true;
    };
    const auto optionalString = [&c](std::string_view &out) { return c.null() || c.string(&out); };
    const auto count = [&c, &f](std::int64_t *out) {
        if (!c.integer(out))
            return false;
        f.outOfRange = *out > kMaxTokenCount;
        return !f.outOfRange;
    };
    const auto usage = [this, &c, &f, &count] {
        // The Responses API's response.created carries "usage": null long before the real one.
        if (m_api == ApiKind::OpenAIResponses && c.null())
            return true;
        f.usage.seen = true;
        return c.null() || c.object([&](std::string_view key) {
            if (key == "prompt_tokens")
                return count(&f.usage.promptTokens);
            if (key == "completion_tokens")
                return count(&f.usage.completionTokens);
            if (key == "input_tokens")
                return count(&f.usage.inputTokens);
            if (key == "output_tokens")
                return count(&f.usage.outputTokens);
            if (key == "cache_read_input_tokens")
                return c.null() || count(&f.usage.cacheReadTokens);
            if (key == "cache_creation_input_tokens")
                return c.null() || count(&f.usage.cacheCreationTokens);
            if (key == "prompt_tokens_details" || key == "completion_tokens_details" || key == "input_tokens_details" ||
                key == "output_tokens_details") {
                return c.null() || c.object([&](std::string_view detail) {
                    if (detail == "cached_tokens")
                        return c.null() || count(&f.usage.cachedTokens);
                    if (detail == "reasoning_tokens")
                        return c.null() || count(&f.usage.reasoningTokens);
                    return c.skip();
                });
            }
            return c.skip();
        });
    };
    // A message delta, a whole message, an Anthropic delta or content block: whatever text it has.
    const auto delta = [&] {
        return c.null() || c.object([&](std::string_view key) {
            if (key == "content" || key == "text")
                return generated(f.contentBytes, true);
            if (key == "partial_json")
                return generated(f.contentBytes);
            if (key == "reasoning_content" || key == "reasoning" || key == "thinking")
                return generated(f.reasoningBytes);
            if (key == "stop_reason")
                return optionalString(f.finish);
            if (key == "tool_calls") {
                return c.null() || c.array([&] {
                    return c.object([&](std::string_view call) {
                        if (call != "function")
                            return c.skip();
                        return c.null() || c.object([&](std::string_view fn) {
                            if (fn == "name" || fn == "arguments")
                                return generated(f.contentBytes);
                            return c.skip();
                        });
                    });
                });
            }
            return c.skip();
        });
    };
    // Responses API: the response object (a body, or inside response.* events); its output items
    // are read only in a body, since response.completed repeats the streamed text there.
    const auto textPart = [&](std::string_view &raw, std::string_view &type) {
        return c.object([&](std::string_view k) {
            if (k == "type")
                return optionalString(type);
            if (k == "text" || k == "arguments")
                return optionalString(raw);
            return c.skip();
        });
    };
    // Each part's text is classed by its type, which may come after the text.
    const auto outputParts = [&](bool reasoning) {
        return c.null() || c.array([&] {
            std::string_view raw, type;
            if (!textPart(raw, type))
                return false;
            const bool isReasoning = reasoning || type == "reasoning_text";
            keep(raw, isReasoning ? f.reasoningBytes : f.contentBytes, !isReasoning && type != "refusal");
            return true;
        });
    };
    const auto outputItems = [&] {
        return c.null() || c.array([&] {
            return c.object([&](std::string_view k) {
                if (k == "content")
                    return outputParts(false);
                if (k == "summary")
                    return outputParts(true);
                if (k == "arguments")
                    return generated(f.contentBytes);
                return c.skip();
            });
        });
    };
    const auto incomplete = [&] {
        return c.null() || c.object([&](std::string_view k) {
            if (k == "reason")
                return optionalString(f.incompleteReason);
            return c.skip();
        });
    };
    const auto error = [&] {
        if (c.null())
            return true;
        f.hasError = true;
        return c.skip();
    };
    // What every API's documents carry alike; nullopt for any other key.
    const auto common = [&](std::string_view key) -> std::optional<bool> {
        if (key == "id")
            return optionalString(f.id);
        if (key == "usage")
            return usage();
        if (key == "error")
            return error();
        return std::nullopt;
    };
    const auto response = [&](bool body, std::string_view key) {
        if (const auto known = common(key))
            return *known;
        if (key == "status")
            return optionalString(f.status);
        if (key == "incomplete_details")
            return incomplete();
        if (key == "output" && body)
            return outputItems();
        return c.skip();
    };
    if (m_api == ApiKind::OpenAIResponses) {
        const bool ok = c.object([&](std::string_view key) {
            if (key == "type")
                return optionalString(f.type);
            if (key == "delta")
                return c.null() || c.string(&f.delta);
            if (key == "response")
                return c.null() || c.object([&](std::string_view k) { return response(false, k); });
            if (key == "code" || key == "message")
                return c.skip(); // the error event's; read again for its message
            return response(true, key);
        });
        f.outOfRange = f.outOfRange || c.outOfRange();
        f.notWhole = c.notWhole();
        if (!f.delta.empty()) {
            if (f.type == "response.output_text.delta" || f.type == "response.refusal.delta")
                keep(f.delta, f.contentBytes, f.type == "response.output_text.delta");
            else if (f.type == "response.function_call_arguments.delta")
                keep(f.delta, f.contentBytes, false);
            else if (f.type.starts_with("response.reasoning"))
                keep(f.delta, f.reasoningBytes, false);
        }
        return ok && c.atEnd();
    }
    const bool ok = c.object([&](std::string_view key) {
        if (const auto known = common(key))
            return *known;
        if (key == "type")
            return optionalString(f.type);
        if (key == "choices") { // OpenAI
            return c.null() || c.array([&] {
                return c.object([&](std::string_view k) {
                    if (k == "delta" || k == "message")
                        return delta();
                    if (k == "text")
                        return generated(f.contentBytes, true);
                    if (k == "finish_reason")
                        return optionalString(f.finish);
                    return c.skip();
                });
            });
        }
        if (key == "timings") { // llama.cpp: the final chunk's, or a body's
            return c.null() || c.object([&](std::string_view k) {
                if (k == "prompt_n")
                    return c.null() || count(&f.promptEvaluated);
                return c.skip();
            });
        }
        if (key == "delta" || key == "content_block") // Anthropic stream
            return delta();
        if (key == "stop_reason") // Anthropic body
            return optionalString(f.finish);
        if (key == "content") { // Anthropic body: an array of blocks
            return c.null() || c.array([&] { return delta(); });
        }
        if (key == "message") { // Anthropic message_start
            return c.null() || c.object([&](std::string_view k) {
                if (k == "id")
                    return optionalString(f.id);
                if (k == "usage")
                    return usage();
                return c.skip();
            });
        }
        return c.skip();
    });
    f.outOfRange = f.outOfRange || c.outOfRange();
    f.notWhole = c.notWhole();
    return ok && c.atEnd();
}

void StreamDecoder::onEvent(std::string_view event, std::string_view data, std::int64_t stampNs)
{
    if (m_api != ApiKind::AnthropicMessages && data == "[DONE]") {
        m_done = true;
        return;
    }
    Fields f;
    f.type = event; // unless the JSON names its type itself
    const bool parsed = read(data, f);
    if (m_api != ApiKind::OpenAIResponses &&
        (event.starts_with("response.") || std::string_view(f.type).starts_with("response.") ||
         (!parsed && data.find("\"type\":\"response.") != std::string_view::npos))) {
        fail(QStringLiteral(
                 "the server sent an OpenAI Responses API event (%1) to the %2 API: use --api openai-responses")
                 .arg(text((event.starts_with("response.") ? event : f.type).substr(0, 60)), apiKindName(m_api)));
        return;
    }
    if (!parsed) {
        const QString refused = f.refusedCount();
        fail(QStringLiteral("%1 in stream event: %2")
                 .arg(refused.isEmpty() ? QStringLiteral("malformed JSON") : refused, text(data.substr(0, 80))));
        return;
    }
    apply(f, data, stampNs, true);
}

void StreamDecoder::onBody(std::string_view body, std::int64_t stampNs)
{
    Fields f;
    if (!read(body, f)) {
        const QString refused = f.refusedCount();
        fail(QStringLiteral("%1: %2").arg(refused.isEmpty() ? QStringLiteral("response is not JSON")
                                                            : refused + QStringLiteral(" in response"),
                                          text(body.substr(0, 80))));
        return;
    }
    apply(f, body, stampNs, false);
    if (!m_failed && !m_finished)
        m_finished = true; // a complete JSON body is a complete response, even without finish_reason
}

void StreamDecoder::apply(const Fields &f, std::string_view json, std::int64_t stampNs, bool streaming)
{
    RequestRecord &r = *m_record;
    if (f.hasError || f.type == "error" || (m_api == ApiKind::OpenAIResponses && f.type == "response.failed")) {
        // Rare: worth a full parse for a good message.
        const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
        const nlohmann::json *error = parsed.is_discarded() ? nullptr : member(parsed, "error");
        nlohmann::json errorEvent;
        if (m_api == ApiKind::OpenAIResponses && parsed.is_object()) {
            // The error event is the error itself (its type is "error"); response.failed has it in
            // its response.
            if (f.type == "error") {
                errorEvent = {{"code", parsed.value("code", nlohmann::json())},
                              {"message", parsed.value("message", nlohmann::json())}};
                error = &errorEvent;
            } else if (const nlohmann::json *response = member(parsed, "response")) {
                error = member(*response, "error");
            }
        }
        QString description = error ? describeError(*error) : QStringLiteral("unknown");
        // TGI: {"error": "…", "error_type": "overloaded"}
        if (const nlohmann::json *type = member(parsed, "error_type");
            type && type->is_string() && error && error->is_string())
            description = shorten(fromStd(type->get<std::string>()) + QStringLiteral(": ") + description);
        m_serverError = true;
        fail(QStringLiteral("server error: ") + description);
        return;
    }
    if (r.responseId.isEmpty() && !f.id.empty())
        r.responseId = text(f.id);
    if (!f.finish.empty()) {
        m_finished = true;
        r.finishReason = text(f.finish);
    }
    if (m_api == ApiKind::OpenAIResponses && (f.status == "completed" || f.status == "incomplete")) {
        m_finished = true;
        r.finishReason = text(f.incompleteReason.empty() ? f.status : f.incompleteReason);
    }
    m_sawReasoningText = m_sawReasoningText || f.reasoningBytes > 0;
    if (streaming && f.contentBytes + f.reasoningBytes > 0)
        chunk(stampNs, f.contentBytes + f.reasoningBytes, f.contentBytes == 0);
    if (m_api == ApiKind::AnthropicMessages && f.type == "message_stop")
        m_done = true;
    if (f.promptEvaluated >= 0)
        m_promptEvaluated = f.promptEvaluated;

    const Usage &u = f.usage;
    if (!u.seen)
        return;
    m_sawUsage = true;
    m_usageCached = m_usageCached || u.cachedTokens >= 0 || u.cacheReadTokens >= 0;
    // A count the server did not send (-1) leaves what the record has.
    const auto take = [](std::int64_t &field, std::int64_t count) {
        if (count >= 0)
            field = count;
    };
    if (m_api == ApiKind::OpenAIResponses) {
        // input_tokens include the cached ones, as OpenAI's prompt_tokens do.
        take(r.promptTokens, u.inputTokens);
        take(r.completionTokens, u.outputTokens);
        take(r.cachedTokens, u.cachedTokens);
        take(r.reasoningTokens, u.reasoningTokens);
        return;
    }
    if (m_api == ApiKind::AnthropicMessages) {
        // Anthropic's input_tokens exclude cache reads and writes; prompt_tokens counts all of
        // them, as OpenAI's prompt_tokens does, so ratios mean the same for both APIs.
        if (u.inputTokens >= 0) {
            // Each count fits in 64 bits; a hostile server can still make their sum overflow.
            std::int64_t prompt = 0;
            if (__builtin_add_overflow(u.inputTokens, std::max<std::int64_t>(0, u.cacheReadTokens), &prompt) ||
                __builtin_add_overflow(prompt, std::max<std::int64_t>(0, u.cacheCreationTokens), &prompt)) {
                fail(QStringLiteral("usage token counts out of range"));
                return;
            }
            r.cachedTokens = std::max<std::int64_t>(0, u.cacheReadTokens);
            r.promptTokens = prompt;
        }
        take(r.completionTokens, u.outputTokens);
        return;
    }
    take(r.promptTokens, u.promptTokens);
    take(r.completionTokens, u.completionTokens);
    take(r.cachedTokens, u.cachedTokens);
    take(r.reasoningTokens, u.reasoningTokens);
}

QString StreamDecoder::errorMessageFromBody(std::string_view body)
{
    // nlohmann's dump() recurses per nesting level: a deeply nested error body from a hostile
    // server would overflow the stack. The cursor checks the body with a depth limit first.
    JsonCursor check(body);
    const bool shallow = check.skip() && check.atEnd();
    const nlohmann::json json =
        shallow ? nlohmann::json::parse(body, nullptr, false) : nlohmann::json(nlohmann::json::value_t::discarded);
    if (!json.is_discarded()) {
        if (const nlohmann::json *error = member(json, "error"))
            return describeError(*error);
        if (const nlohmann::json *detail = member(json, "detail"))
            return describeError(*detail);
        if (const nlohmann::json *message = member(json, "message"))
            return describeError(*message);
    }
    return shorten(QString::fromUtf8(body.data(), qsizetype(std::min<std::size_t>(body.size(), 1000))));
}

void StreamDecoder::finish(std::int64_t promptTokens, TokenSource promptSource)
{
    RequestRecord &r = *m_record;
    if (m_keepReply && r.ok())
        r.reply = std::move(m_reply);
    r.hiddenReasoningTokens =
        m_sawReasoningText ? 0 : std::clamp<std::int64_t>(r.reasoningTokens, 0, r.completionTokens);
    if (m_usageCached)
        r.cachedSource = CacheSource::Usage;
    if (m_sawUsage && (r.completionTokens > 0 || r.promptTokens > 0)) {
        r.tokenSource = TokenSource::Usage;
        r.promptTokenSource = TokenSource::Usage;
        // llama.cpp says nothing of its cache in usage, but evaluated only prompt_n of the prompt
        // tokens: the others came from its cache.
        if (!m_usageCached && m_promptEvaluated >= 0) {
            r.cachedTokens = std::clamp<std::int64_t>(r.promptTokens - m_promptEvaluated, 0, r.promptTokens);
            r.cachedSource = CacheSource::Timings;
        }
        return;
    }
    r.promptTokens = promptTokens;
    r.promptTokenSource = promptSource;
    // A non-streaming body has no chunks to count: its text is all there is.
    if (m_tokenizer || r.chunks == 0) {
        r.completionTokens =
            m_tokenizer ? m_tokenizer->count(m_text) : ApproxTokenizer::countUtf8(m_text.data(), m_text.size());
        r.tokenSource = m_tokenizer ? TokenSource::Tokenizer : TokenSource::Estimate;
    } else {
        r.completionTokens = r.chunks;
        r.tokenSource = TokenSource::Chunks;
    }
}

} // namespace tb
