#include "api/streamdecoder.h"

#include "metrics/outputredundancy.h"
#include "net/jsoncursor.h"

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

} // namespace

StreamDecoder::StreamDecoder(ApiKind api, const Tokenizer *tokenizer, bool keepReply, bool saveOutput)
    : m_dialect(dialectFor(api))
    , m_tokenizer(tokenizer)
    , m_keepReply(keepReply)
    , m_saveOutput(saveOutput)
{}

void StreamDecoder::begin(RequestRecord *record)
{
    m_record = record;
    m_done = m_finished = m_failed = m_sawUsage = m_sawReasoningText = m_serverError = m_usageCached = false;
    m_promptEvaluated = -1;
    m_replyCut = false;
    m_toolCalls.clear();
    m_text.clear();
    m_reply.clear();
}

void StreamDecoder::fail(const QString &message)
{
    if (!m_failed) {
        m_failed = true;
        m_record->errorMessage = shorten(message);
    }
}

void StreamDecoder::chunk(std::int64_t stampNs, const DocumentFields &f)
{
    RequestRecord &r = *m_record;
    // A tool call's text is generated (it is in the chunks, for ITL and token counts) but is not
    // the first token TTFT waits for: its own stamp is firstToolCallNs.
    if (f.contentBytes + f.reasoningBytes > 0 && r.firstTokenNs < 0)
        r.firstTokenNs = stampNs;
    if (f.contentBytes > 0 && r.firstContentNs < 0)
        r.firstContentNs = stampNs;
    if (f.toolCallBytes > 0 && r.firstToolCallNs < 0)
        r.firstToolCallNs = stampNs;
    r.lastTokenNs = stampNs;
    ++r.chunks;
    const std::size_t bytes = f.contentBytes + f.reasoningBytes + f.toolCallBytes;
    r.tokenChunks.push_back({stampNs, std::int32_t(std::min<std::size_t>(bytes, INT32_MAX))});
}

bool StreamDecoder::read(std::string_view json, DocumentFields &f)
{
    // Text is kept to be counted when tokens may have to be counted locally.
    // The content is read for its redundancy; a conversation keeps more of it for its next turn.
    DocumentReader reader(json, f, m_tokenizer || !m_sawUsage ? &m_text : nullptr, &m_reply,
                          m_keepReply || m_checkOutput ? kMaxReplyBytes : OutputRedundancy::kMaxExaminedBytes);
    reader.keepToolCalls(&m_toolCalls);
    const bool ok = m_dialect.read(reader);
    m_replyCut = m_replyCut || f.replyCut;
    return ok;
}

void StreamDecoder::onEvent(std::string_view event, std::string_view data, std::int64_t stampNs)
{
    if (m_dialect.endsWithDone() && data == "[DONE]") {
        m_done = true;
        return;
    }
    DocumentFields f;
    f.type = event; // unless the JSON names its type itself
    const bool parsed = read(data, f);
    if (const QString foreign = m_dialect.foreignEvent(event, f.type, parsed, data); !foreign.isEmpty()) {
        fail(foreign);
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
    DocumentFields f;
    if (!read(body, f)) {
        const QString refused = f.refusedCount();
        fail(QStringLiteral("%1: %2").arg(refused.isEmpty() ? QStringLiteral("response is not JSON")
                                                            : refused + QStringLiteral(" in response"),
                                          text(body.substr(0, 80))));
        return;
    }
    apply(f, body, stampNs, false);
    if (const QString problem = m_failed ? QString() : m_dialect.answerProblem(f, *m_record); !problem.isEmpty())
        fail(problem);
    if (!m_failed && !m_finished)
        m_finished = true; // a complete JSON body is a complete response, even without finish_reason
}

void StreamDecoder::apply(const DocumentFields &f, std::string_view json, std::int64_t stampNs, bool streaming)
{
    RequestRecord &r = *m_record;
    if (m_dialect.isError(f)) {
        // Rare: worth a full parse for a good message.
        const nlohmann::json parsed = nlohmann::json::parse(json, nullptr, false);
        const nlohmann::json error = m_dialect.errorObject(parsed, f);
        QString description = error.is_null() ? QStringLiteral("unknown") : describeError(error);
        // TGI: {"error": "…", "error_type": "overloaded"}
        if (const nlohmann::json *type = member(parsed, "error_type"); type && type->is_string() && error.is_string())
            description = shorten(fromStd(type->get<std::string>()) + QStringLiteral(": ") + description);
        m_serverError = true;
        fail(QStringLiteral("server error: ") + description);
        return;
    }
    if (r.responseId.isEmpty() && !f.id.empty())
        r.responseId = text(f.id);
    if (const std::string_view finish = m_dialect.finishReason(f); !finish.empty()) {
        m_finished = true;
        r.finishReason = text(finish);
    }
    m_sawReasoningText = m_sawReasoningText || f.reasoningBytes > 0;
    if (streaming && f.contentBytes + f.reasoningBytes + f.toolCallBytes > 0)
        chunk(stampNs, f);
    if (m_dialect.endsStream(f))
        m_done = true;
    if (f.promptEvaluated >= 0)
        m_promptEvaluated = f.promptEvaluated;

    if (!f.usage.seen)
        return;
    m_sawUsage = true;
    m_usageCached = m_usageCached || f.usage.cachedTokens >= 0 || f.usage.cacheReadTokens >= 0;
    if (!m_dialect.takeUsage(f.usage, r))
        fail(QStringLiteral("usage token counts out of range"));
}

OutputCheck StreamDecoder::checkedOutput() const
{
    if (m_replyCut)
        return OutputCheck::NotChecked;
    // A key given twice counts as not JSON: which of its values a consumer takes is undefined.
    const auto json = parseJsonBounded(QByteArray::fromRawData(m_reply.data(), qsizetype(m_reply.size())), nullptr);
    if (!json)
        return OutputCheck::NotJson;
    return m_schema && !m_schema->violation(*json).isEmpty() ? OutputCheck::SchemaInvalid : OutputCheck::Valid;
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
    if (r.ok()) {
        // On the transport thread, after the response's last stamp: the examined text is bounded
        // (OutputRedundancy::kMaxExaminedBytes), so this costs the same at any output length.
        r.redundancy = OutputRedundancy::measure(m_reply, m_tokenizer).value_or(-1);
        if (m_saveOutput)
            r.output = OutputRedundancy::examined(m_reply);
        // A reply of tool calls alone has no content to check (--response-format with --tools).
        if (m_checkOutput && !(m_reply.empty() && !m_toolCalls.calls.empty()))
            r.outputCheck = checkedOutput();
        if (m_tools)
            r.toolCallCheck = m_tools->check(m_toolCalls);
    }
    r.toolCalls = int(m_toolCalls.calls.size());
    if (r.ok() && m_keepReply) {
        r.reply = std::move(m_reply);
        r.replyCallsCut = m_toolCalls.cut;
        r.replyCalls.reserve(m_toolCalls.calls.size());
        for (ToolCallText &call : m_toolCalls.calls)
            r.replyCalls.push_back({std::move(call.id), std::move(call.name), std::move(call.arguments)});
    }
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
