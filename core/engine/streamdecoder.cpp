#include "engine/streamdecoder.h"

#include "engine/jsoncursor.h"
#include "metrics/tokenizer.h"

namespace tb {

namespace {

constexpr qsizetype kMaxErrorMessage = 300;
/// Far beyond any model's context, and small enough that sums over millions of requests stay in
/// int64: a larger count is a broken server's, rejected like a number out of int64's range.
constexpr std::int64_t kMaxTokenCount = 1'000'000'000'000;

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
    const QString type = field("type");
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
    std::string_view finish; ///< finish_reason / stop_reason
    std::string_view type;   ///< Anthropic's event type
    std::size_t contentBytes = 0;
    std::size_t reasoningBytes = 0;
    bool hasError = false;
    bool outOfRange = false; ///< a token count beyond kMaxTokenCount or int64
    Usage usage;
};

StreamDecoder::StreamDecoder(ApiKind api, bool countWithTokenizer)
    : m_api(api)
    , m_countWithTokenizer(countWithTokenizer)
{}

void StreamDecoder::begin(RequestRecord *record)
{
    m_record = record;
    m_done = m_finished = m_failed = m_sawUsage = m_sawReasoningText = m_serverError = false;
    m_text.clear();
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
    const auto generated = [this, &c](std::size_t &bytes) {
        std::string_view raw;
        if (c.null())
            return true;
        if (!c.string(&raw))
            return false;
        bytes += JsonCursor::decodedSize(raw);
        if (m_countWithTokenizer || !m_sawUsage)
            JsonCursor::decode(raw, m_text);
        return true;
    };
    const auto optionalString = [&c](std::string_view &out) { return c.null() || c.string(&out); };
    const auto count = [&c, &f](std::int64_t *out) {
        if (!c.integer(out))
            return false;
        f.outOfRange = *out > kMaxTokenCount;
        return !f.outOfRange;
    };
    const auto usage = [&c, &f, &count] {
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
            if (key == "prompt_tokens_details" || key == "completion_tokens_details") {
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
            if (key == "content" || key == "text" || key == "partial_json")
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
    const bool ok = c.object([&](std::string_view key) {
        if (key == "id")
            return optionalString(f.id);
        if (key == "type")
            return optionalString(f.type);
        if (key == "error") {
            f.hasError = true;
            return c.skip();
        }
        if (key == "usage")
            return usage();
        if (key == "choices") { // OpenAI
            return c.null() || c.array([&] {
                return c.object([&](std::string_view k) {
                    if (k == "delta" || k == "message")
                        return delta();
                    if (k == "text")
                        return generated(f.contentBytes);
                    if (k == "finish_reason")
                        return optionalString(f.finish);
                    return c.skip();
                });
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
    return ok && c.atEnd();
}

void StreamDecoder::onEvent(std::string_view event, std::string_view data, std::int64_t stampNs)
{
    if (m_api != ApiKind::AnthropicMessages && data == "[DONE]") {
        m_done = true;
        return;
    }
    Fields f;
    if (!read(data, f)) {
        fail(QStringLiteral("%1 in stream event: %2")
                 .arg(f.outOfRange ? QStringLiteral("token count out of range") : QStringLiteral("malformed JSON"),
                      text(data.substr(0, 80))));
        return;
    }
    if (f.type.empty())
        f.type = event;
    apply(f, data, stampNs, true);
}

void StreamDecoder::onBody(std::string_view body, std::int64_t stampNs)
{
    Fields f;
    if (!read(body, f)) {
        fail(QStringLiteral("%1: %2").arg(f.outOfRange ? QStringLiteral("token count out of range in response")
                                                       : QStringLiteral("response is not JSON"),
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
    if (f.hasError || f.type == "error") {
        // Rare: worth a full parse for a good message.
        const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
        const nlohmann::json *error = parsed.is_discarded() ? nullptr : member(parsed, "error");
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
    m_sawReasoningText = m_sawReasoningText || f.reasoningBytes > 0;
    if (streaming && f.contentBytes + f.reasoningBytes > 0)
        chunk(stampNs, f.contentBytes + f.reasoningBytes, f.contentBytes == 0);
    if (m_api == ApiKind::AnthropicMessages && f.type == "message_stop")
        m_done = true;

    const Usage &u = f.usage;
    if (!u.seen)
        return;
    m_sawUsage = true;
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
        if (u.outputTokens >= 0)
            r.completionTokens = u.outputTokens;
        return;
    }
    if (u.promptTokens >= 0)
        r.promptTokens = u.promptTokens;
    if (u.completionTokens >= 0)
        r.completionTokens = u.completionTokens;
    if (u.cachedTokens >= 0)
        r.cachedTokens = u.cachedTokens;
    if (u.reasoningTokens >= 0)
        r.reasoningTokens = u.reasoningTokens;
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

void StreamDecoder::finish(std::int64_t promptTokensEstimate)
{
    RequestRecord &r = *m_record;
    r.hiddenReasoningTokens =
        m_sawReasoningText ? 0 : std::clamp<std::int64_t>(r.reasoningTokens, 0, r.completionTokens);
    if (m_sawUsage && (r.completionTokens > 0 || r.promptTokens > 0)) {
        r.tokenSource = TokenSource::Usage;
        return;
    }
    r.promptTokens = promptTokensEstimate;
    // A non-streaming body has no chunks to count: its text is all there is.
    if (m_countWithTokenizer || r.chunks == 0) {
        r.completionTokens = ApproxTokenizer::countUtf8(m_text.data(), m_text.size());
        r.tokenSource = TokenSource::Tokenizer;
    } else {
        r.completionTokens = r.chunks;
        r.tokenSource = TokenSource::Chunks;
    }
}

} // namespace tb
