#include "api/documentreader.h"

#include "config/runconfig.h"

#include <algorithm>

namespace tb {

QString DocumentFields::refusedCount() const
{
    return outOfRange ? QStringLiteral("token count out of range")
           : notWhole ? QStringLiteral("token count not a whole number")
                      : QString();
}

ToolCallText *ToolCallTexts::at(std::int64_t index)
{
    for (ToolCallText &call : calls) {
        if (call.index == index)
            return &call;
    }
    if (calls.size() >= kMaxCalls) {
        cut = true;
        return nullptr;
    }
    calls.push_back({index, {}, {}, {}});
    return &calls.back();
}

DocumentReader::DocumentReader(std::string_view json, DocumentFields &fields, std::string *text, std::string *reply,
                               std::size_t maxReplyBytes)
    : m_cursor(json)
    , m_fields(fields)
    , m_text(text)
    , m_reply(reply)
    , m_maxReplyBytes(maxReplyBytes)
{}

void DocumentReader::keepReplyText(std::string_view raw)
{
    if (!m_reply)
        return;
    if (m_reply->size() >= m_maxReplyBytes) {
        m_fields.replyCut = m_fields.replyCut || !raw.empty();
        return;
    }
    JsonCursor::decode(raw, *m_reply);
    if (m_reply->size() > m_maxReplyBytes) {
        m_fields.replyCut = true;
        // Cut at a character boundary: the reply goes back to the server as JSON text.
        std::size_t end = m_maxReplyBytes;
        while (end > 0 && (static_cast<unsigned char>((*m_reply)[end]) & 0xC0) == 0x80)
            --end;
        m_reply->resize(end);
    }
}

void DocumentReader::keep(std::string_view raw, std::size_t &bytes, bool reply)
{
    bytes += JsonCursor::decodedSize(raw);
    if (m_text)
        JsonCursor::decode(raw, *m_text);
    if (reply)
        keepReplyText(raw);
}

namespace {

/// A call id as it goes back to the server, or empty: 1 to kMaxIdBytes of printable ASCII.
std::string keptCallId(std::string_view raw)
{
    if (raw.empty() || raw.size() > 6 * ToolCallTexts::kMaxIdBytes) // \uXXXX: 6 raw bytes a byte at most
        return {};
    std::string id;
    JsonCursor::decode(raw, id);
    const bool printable =
        std::all_of(id.begin(), id.end(), [](char c) { return static_cast<unsigned char>(c) > 0x20 && c < 0x7f; });
    return printable && id.size() <= ToolCallTexts::kMaxIdBytes ? id : std::string();
}

} // namespace

void DocumentReader::toolCall(std::int64_t index, std::string_view rawName, std::string_view rawArguments,
                              bool argumentsAreJson, std::string_view rawId)
{
    const std::size_t argumentBytes = argumentsAreJson ? rawArguments.size() : JsonCursor::decodedSize(rawArguments);
    const std::size_t bytes = JsonCursor::decodedSize(rawName) + argumentBytes;
    m_fields.toolCallBytes += bytes;
    // Tool-call text is generated text: counted with the rest when tokens are counted locally.
    if (m_text) {
        JsonCursor::decode(rawName, *m_text);
        if (argumentsAreJson)
            m_text->append(rawArguments);
        else
            JsonCursor::decode(rawArguments, *m_text);
    }
    if (!m_toolCalls)
        return;
    ToolCallTexts &t = *m_toolCalls;
    if (t.cut || t.bytes + bytes > ToolCallTexts::kMaxBytes) {
        t.cut = true;
        return;
    }
    ToolCallText *call = t.at(index);
    if (!call)
        return;
    t.bytes += bytes;
    if (call->id.empty())
        call->id = keptCallId(rawId);
    JsonCursor::decode(rawName, call->name);
    if (argumentsAreJson)
        call->arguments.append(rawArguments);
    else
        JsonCursor::decode(rawArguments, call->arguments);
}

bool DocumentReader::hasToolArguments(std::int64_t index) const
{
    if (!m_toolCalls)
        return false;
    const auto &calls = m_toolCalls->calls;
    return std::any_of(calls.begin(), calls.end(),
                       [index](const ToolCallText &c) { return c.index == index && !c.arguments.empty(); });
}

bool DocumentReader::generated(std::size_t &bytes, bool reply)
{
    std::string_view raw;
    if (m_cursor.null())
        return true;
    if (!m_cursor.string(&raw))
        return false;
    keep(raw, bytes, reply);
    return true;
}

bool DocumentReader::optionalString(std::string_view &out)
{
    return m_cursor.null() || m_cursor.string(&out);
}

bool DocumentReader::count(std::int64_t *out)
{
    if (!m_cursor.integer(out))
        return false;
    m_fields.outOfRange = *out > limits::kMaxTokenCount;
    return !m_fields.outOfRange;
}

bool DocumentReader::usage()
{
    JsonCursor &c = m_cursor;
    if (nullUsageIsAbsent && c.null())
        return true;
    DocumentUsage &u = m_fields.usage;
    u.seen = true;
    return c.null() || c.object([&](std::string_view key) {
        if (key == "prompt_tokens")
            return count(&u.promptTokens);
        if (key == "completion_tokens")
            return count(&u.completionTokens);
        if (key == "input_tokens")
            return count(&u.inputTokens);
        if (key == "output_tokens")
            return count(&u.outputTokens);
        if (key == "cache_read_input_tokens")
            return c.null() || count(&u.cacheReadTokens);
        if (key == "cache_creation_input_tokens")
            return c.null() || count(&u.cacheCreationTokens);
        if (key == "prompt_tokens_details" || key == "completion_tokens_details" || key == "input_tokens_details" ||
            key == "output_tokens_details") {
            return c.null() || c.object([&](std::string_view detail) {
                if (detail == "cached_tokens")
                    return c.null() || count(&u.cachedTokens);
                if (detail == "reasoning_tokens")
                    return c.null() || count(&u.reasoningTokens);
                return c.skip();
            });
        }
        return c.skip();
    });
}

bool DocumentReader::error()
{
    if (m_cursor.null())
        return true;
    m_fields.hasError = true;
    return m_cursor.skip();
}

bool DocumentReader::delta(std::int64_t position)
{
    JsonCursor &c = m_cursor;
    DocumentFields &f = m_fields;
    std::string_view type, name, input, partial, id;
    const bool ok = c.null() || c.object([&](std::string_view key) {
        if (key == "content" || key == "text")
            return generated(f.contentBytes, true);
        if (key == "reasoning_content" || key == "reasoning" || key == "thinking")
            return generated(f.reasoningBytes);
        if (key == "stop_reason")
            return optionalString(f.finish);
        // Anthropic: a tool_use block's name and input (a body's), an input_json_delta's partial JSON.
        if (key == "type")
            return optionalString(type);
        if (key == "name")
            return optionalString(name);
        if (key == "id")
            return optionalString(id);
        if (key == "input")
            return c.skip(&input);
        if (key == "partial_json")
            return optionalString(partial);
        if (key == "tool_calls") { // OpenAI chat: a delta's fragments by index, a message's calls in order
            std::int64_t element = 0;
            return c.null() || c.array([&] {
                std::int64_t index = element++;
                std::string_view callName, arguments, callId;
                const bool read = c.object([&](std::string_view call) {
                    if (call == "index")
                        return c.integer(&index);
                    if (call == "id")
                        return optionalString(callId);
                    if (call != "function")
                        return c.skip();
                    return c.null() || c.object([&](std::string_view fn) {
                        if (fn == "name")
                            return optionalString(callName);
                        if (fn == "arguments")
                            return optionalString(arguments);
                        return c.skip();
                    });
                });
                if (read)
                    toolCall(index, callName, arguments, false, callId);
                return read;
            });
        }
        return c.skip();
    });
    if (!ok)
        return false;
    if (type == "tool_use" && position >= 0) {
        toolCall(position, name, input, true, id);
    } else if (type == "tool_use" || !partial.empty()) {
        f.blockIsToolUse = true;
        f.blockName = type == "tool_use" ? name : std::string_view();
        f.blockId = type == "tool_use" ? id : std::string_view();
        f.partialJson = partial;
    }
    return true;
}

std::optional<bool> DocumentReader::common(std::string_view key)
{
    if (key == "id")
        return optionalString(m_fields.id);
    if (key == "usage")
        return usage();
    if (key == "error")
        return error();
    return std::nullopt;
}

bool DocumentReader::readCompatible()
{
    JsonCursor &c = m_cursor;
    DocumentFields &f = m_fields;
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
        if (key == "index") // Anthropic stream: the content block an event is of
            return c.null() || c.integer(&f.index);
        if (key == "content") { // Anthropic body: an array of blocks
            std::int64_t position = 0;
            return c.null() || c.array([&] { return delta(position++); });
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
    if (ok && f.blockIsToolUse)
        toolCall(std::max<std::int64_t>(f.index, 0), f.blockName, f.partialJson, false, f.blockId);
    return end(ok);
}

bool DocumentReader::end(bool ok)
{
    m_fields.outOfRange = m_fields.outOfRange || m_cursor.outOfRange();
    m_fields.notWhole = m_cursor.notWhole();
    return ok && m_cursor.atEnd();
}

} // namespace tb
