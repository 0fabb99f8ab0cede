#include "engine/streamdecoder.h"

#include "metrics/tokenizer.h"

namespace tb {

namespace {

constexpr qsizetype kMaxErrorMessage = 300;

const nlohmann::json *member(const nlohmann::json &object, const char *key)
{
    if (!object.is_object())
        return nullptr;
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string_view stringMember(const nlohmann::json &object, const char *key)
{
    const nlohmann::json *v = member(object, key);
    return v && v->is_string() ? std::string_view(v->get_ref<const std::string &>()) : std::string_view();
}

std::int64_t intMember(const nlohmann::json &object, const char *key, std::int64_t fallback = 0)
{
    const nlohmann::json *v = member(object, key);
    return v && v->is_number() ? v->get<std::int64_t>() : fallback;
}

QString shorten(QString text)
{
    text = text.simplified();
    if (text.size() > kMaxErrorMessage)
        text = text.left(kMaxErrorMessage - 1) + QChar(0x2026);
    return text;
}

/// "overloaded_error: Overloaded" from an OpenAI or Anthropic error object.
QString describeError(const nlohmann::json &error)
{
    if (error.is_string())
        return shorten(fromStd(error.get<std::string>()));
    const QString message = fromStd(std::string(stringMember(error, "message")));
    const QString type = fromStd(std::string(stringMember(error, "type")));
    if (message.isEmpty() && type.isEmpty())
        return shorten(fromStd(error.dump()));
    return shorten(type.isEmpty() ? message : type + QStringLiteral(": ") + message);
}

} // namespace

StreamDecoder::StreamDecoder(ApiKind api, bool countWithTokenizer)
    : m_api(api)
    , m_countWithTokenizer(countWithTokenizer)
{
}

void StreamDecoder::begin(RequestRecord *record)
{
    m_record = record;
    m_done = m_finished = m_failed = m_sawUsage = false;
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

void StreamDecoder::onEvent(std::string_view event, std::string_view data, std::int64_t stampNs)
{
    if (m_api != ApiKind::AnthropicMessages && data == "[DONE]") {
        m_done = true;
        return;
    }
    const nlohmann::json json = nlohmann::json::parse(data, nullptr, false);
    if (json.is_discarded()) {
        fail(QStringLiteral("malformed JSON in stream event: %1").arg(QString::fromUtf8(data.data(), qsizetype(std::min<std::size_t>(data.size(), 80)))));
        return;
    }
    if (m_api == ApiKind::AnthropicMessages) {
        if (!event.empty() && !json.contains("type")) {
            nlohmann::json typed = json;
            typed["type"] = std::string(event);
            decodeAnthropic(typed, stampNs, true);
        } else {
            decodeAnthropic(json, stampNs, true);
        }
    } else {
        decodeOpenAI(json, stampNs, true);
    }
}

void StreamDecoder::onBody(std::string_view body, std::int64_t stampNs)
{
    const nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
        fail(QStringLiteral("response is not JSON: %1").arg(QString::fromUtf8(body.data(), qsizetype(std::min<std::size_t>(body.size(), 80)))));
        return;
    }
    if (m_api == ApiKind::AnthropicMessages)
        decodeAnthropic(json, stampNs, false);
    else
        decodeOpenAI(json, stampNs, false);
    if (!m_failed && !m_finished)
        m_finished = true; // a complete JSON body is a complete response, even without finish_reason
}

QString StreamDecoder::errorMessageFromBody(std::string_view body)
{
    const nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
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

void StreamDecoder::readOpenAIUsage(const nlohmann::json &usage)
{
    RequestRecord &r = *m_record;
    m_sawUsage = true;
    r.promptTokens = intMember(usage, "prompt_tokens", r.promptTokens);
    r.completionTokens = intMember(usage, "completion_tokens", r.completionTokens);
    if (const nlohmann::json *details = member(usage, "prompt_tokens_details"))
        r.cachedTokens = intMember(*details, "cached_tokens", r.cachedTokens);
    if (const nlohmann::json *details = member(usage, "completion_tokens_details"))
        r.reasoningTokens = intMember(*details, "reasoning_tokens", r.reasoningTokens);
}

void StreamDecoder::readAnthropicUsage(const nlohmann::json &usage)
{
    RequestRecord &r = *m_record;
    m_sawUsage = true;
    // Anthropic's input_tokens exclude cache reads and writes; prompt_tokens counts all of them, as
    // OpenAI's prompt_tokens does, so ratios mean the same for both APIs.
    if (member(usage, "input_tokens")) {
        const std::int64_t cacheRead = intMember(usage, "cache_read_input_tokens");
        r.cachedTokens = cacheRead;
        r.promptTokens = intMember(usage, "input_tokens") + cacheRead + intMember(usage, "cache_creation_input_tokens");
    }
    if (member(usage, "output_tokens"))
        r.completionTokens = intMember(usage, "output_tokens");
}

void StreamDecoder::decodeOpenAI(const nlohmann::json &json, std::int64_t stampNs, bool streaming)
{
    RequestRecord &r = *m_record;
    if (const nlohmann::json *error = member(json, "error")) {
        fail(QStringLiteral("server error: ") + describeError(*error));
        return;
    }
    if (r.responseId.isEmpty()) {
        const std::string_view id = stringMember(json, "id");
        if (!id.empty())
            r.responseId = QString::fromUtf8(id.data(), qsizetype(id.size()));
    }
    if (const nlohmann::json *choices = member(json, "choices"); choices && choices->is_array()) {
        std::size_t contentBytes = 0;
        std::size_t reasoningBytes = 0;
        for (const nlohmann::json &choice : *choices) {
            const nlohmann::json *delta = member(choice, streaming ? "delta" : "message");
            const auto take = [this](std::string_view text, std::size_t &bytes) {
                bytes += text.size();
                if (m_countWithTokenizer || !m_sawUsage)
                    m_text.append(text);
            };
            take(stringMember(choice, "text"), contentBytes); // completions API
            if (delta) {
                take(stringMember(*delta, "content"), contentBytes);
                take(stringMember(*delta, "reasoning_content"), reasoningBytes);
                take(stringMember(*delta, "reasoning"), reasoningBytes);
                if (const nlohmann::json *calls = member(*delta, "tool_calls"); calls && calls->is_array()) {
                    for (const nlohmann::json &call : *calls) {
                        if (const nlohmann::json *function = member(call, "function")) {
                            take(stringMember(*function, "name"), contentBytes);
                            take(stringMember(*function, "arguments"), contentBytes);
                        }
                    }
                }
            }
            const std::string_view finish = stringMember(choice, "finish_reason");
            if (!finish.empty()) {
                m_finished = true;
                r.finishReason = QString::fromUtf8(finish.data(), qsizetype(finish.size()));
            }
        }
        if (contentBytes + reasoningBytes > 0 && streaming)
            chunk(stampNs, contentBytes + reasoningBytes, contentBytes == 0);
    }
    if (const nlohmann::json *usage = member(json, "usage"))
        readOpenAIUsage(*usage);
}

void StreamDecoder::decodeAnthropic(const nlohmann::json &json, std::int64_t stampNs, bool streaming)
{
    RequestRecord &r = *m_record;
    const std::string_view type = stringMember(json, "type");
    if (type == "error" || member(json, "error")) {
        const nlohmann::json *error = member(json, "error");
        fail(QStringLiteral("server error: ") + (error ? describeError(*error) : QStringLiteral("unknown")));
        return;
    }
    const auto setId = [&r](const nlohmann::json &object) {
        const std::string_view id = stringMember(object, "id");
        if (r.responseId.isEmpty() && !id.empty())
            r.responseId = QString::fromUtf8(id.data(), qsizetype(id.size()));
    };
    const auto setStop = [this, &r](const nlohmann::json &object) {
        const std::string_view stop = stringMember(object, "stop_reason");
        if (!stop.empty()) {
            m_finished = true;
            r.finishReason = QString::fromUtf8(stop.data(), qsizetype(stop.size()));
        }
    };
    const auto keep = [this](std::string_view text) {
        if (m_countWithTokenizer || !m_sawUsage)
            m_text.append(text);
    };

    if (!streaming) {
        setId(json);
        setStop(json);
        if (const nlohmann::json *content = member(json, "content"); content && content->is_array()) {
            for (const nlohmann::json &block : *content) {
                keep(stringMember(block, "text"));
                keep(stringMember(block, "thinking"));
            }
        }
        if (const nlohmann::json *usage = member(json, "usage"))
            readAnthropicUsage(*usage);
        return;
    }

    if (type == "message_start") {
        if (const nlohmann::json *message = member(json, "message")) {
            setId(*message);
            if (const nlohmann::json *usage = member(*message, "usage"))
                readAnthropicUsage(*usage);
        }
    } else if (type == "content_block_delta" || type == "content_block_start") {
        const nlohmann::json *delta = member(json, type == "content_block_delta" ? "delta" : "content_block");
        if (!delta)
            return;
        const std::string_view text = stringMember(*delta, "text");
        const std::string_view thinking = stringMember(*delta, "thinking");
        const std::string_view partialJson = stringMember(*delta, "partial_json");
        keep(text);
        keep(thinking);
        keep(partialJson);
        const std::size_t contentBytes = text.size() + partialJson.size();
        if (contentBytes + thinking.size() > 0)
            chunk(stampNs, contentBytes + thinking.size(), contentBytes == 0);
    } else if (type == "message_delta") {
        if (const nlohmann::json *delta = member(json, "delta"))
            setStop(*delta);
        if (const nlohmann::json *usage = member(json, "usage"))
            readAnthropicUsage(*usage);
    } else if (type == "message_stop") {
        m_done = true;
    }
}

void StreamDecoder::finish(std::int64_t promptTokensEstimate)
{
    RequestRecord &r = *m_record;
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
