#include "sim/simopenaichunks.h"

#include "sim/simjson.h"

namespace tb::sim {

OpenAiChunkStream::OpenAiChunkStream(const ResponseMeta &meta, const OpenAiChunkFormat &format)
    : m_meta(meta)
    , m_format(format)
{
    const std::string common = "{\"id\":" + jsonString(meta.id) + ",\"object\":\"" + format.object +
                               "\",\"created\":" + std::to_string(meta.created) +
                               ",\"model\":" + jsonString(meta.model);
    m_head = "data: " + common;
    if (format.fingerprint)
        m_head += ",\"system_fingerprint\":\"" + std::string(kOpenAiFingerprint) + "\"";
    m_head += ",\"choices\":[{\"index\":0,";
    // OpenAI puts "usage": null in every chunk but the last when usage was asked for.
    m_tail = meta.includeUsage && meta.usageDialect == Dialect::Vllm ? ",\"usage\":null}\n\n" : "}\n\n";
}

void OpenAiChunkStream::start(std::string &out, const Usage &)
{
    if (!m_format.firstChoice)
        return;
    out += m_head;
    out += m_format.firstChoice;
    out += m_tail;
}

void OpenAiChunkStream::delta(std::string &out, bool reasoning, std::string_view text)
{
    out += m_head;
    if (!reasoning && !m_meta.toolName.empty()) {
        // The call's arguments in fragments, by index; the first also gives its id and name.
        if (!m_toolCallOpen) {
            out += R"("delta":{"tool_calls":[{"index":0,"id":"call_)" + m_meta.toolCallId +
                   R"(","type":"function","function":{"name":)" + jsonString(m_meta.toolName) + R"(,"arguments":")";
            m_toolCallOpen = true;
        } else {
            out += R"("delta":{"tool_calls":[{"index":0,"function":{"arguments":")";
        }
        out += text;
        out += R"("}}]},"logprobs":null,"finish_reason":null}])";
        out += m_tail;
        return;
    }
    out += reasoning ? m_format.reasoningOpen : m_format.contentOpen;
    out += text;
    out += m_format.deltaClose;
    out += m_tail;
}

void OpenAiChunkStream::finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings)
{
    const bool llamacpp = m_meta.usageDialect == Dialect::Llamacpp;
    out += m_head;
    out += m_format.finishOpen;
    out += openAiFinishReason(m_meta, stoppedByLength);
    out += "\"}]";
    if (llamacpp) {
        out += ",\"usage\":";
        out += openAiUsage(m_meta, usage).dump();
    }
    if (timings) {
        out += ",\"timings\":";
        out += timings->toJson().dump();
    }
    out += m_tail;
    if (m_meta.includeUsage && !llamacpp) {
        // The usage chunk has no choices (its "choices" is empty).
        out += m_head.substr(0, m_head.size() - std::string_view("{\"index\":0,").size());
        out += "],\"usage\":";
        out += openAiUsage(m_meta, usage).dump();
        out += "}\n\n";
    }
    out += "data: [DONE]\n\n";
}

nlohmann::json openAiUsage(const ResponseMeta &meta, const Usage &usage)
{
    nlohmann::json plain = {
        {"prompt_tokens", usage.promptTokens},
        {"completion_tokens", usage.completionTokens},
        {"total_tokens", usage.promptTokens + usage.completionTokens},
    };
    if (meta.usageDialect == Dialect::Vllm) {
        plain["prompt_tokens_details"] = {{"cached_tokens", usage.cachedTokens}};
        plain["completion_tokens_details"] = {{"reasoning_tokens", usage.reasoningTokens}};
    }
    return plain;
}

const char *openAiFinishReason(const ResponseMeta &meta, bool stoppedByLength)
{
    return stoppedByLength ? "length" : meta.toolName.empty() ? "stop" : "tool_calls";
}

std::string openAiCompleteBody(const ResponseMeta &meta, const char *object, bool fingerprint, nlohmann::json choice,
                               bool stoppedByLength, const Usage &usage, const Timings *timings)
{
    choice["index"] = 0;
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = openAiFinishReason(meta, stoppedByLength);
    nlohmann::json body = {{"id", meta.id},
                           {"object", object},
                           {"created", meta.created},
                           {"model", meta.model},
                           {"choices", nlohmann::json::array({choice})},
                           {"usage", openAiUsage(meta, usage)}};
    if (fingerprint)
        body["system_fingerprint"] = kOpenAiFingerprint;
    if (timings)
        body["timings"] = timings->toJson();
    return body.dump();
}

std::unique_ptr<SimStream> OpenAiChunkApi::stream(const ResponseMeta &meta) const
{
    return std::make_unique<OpenAiChunkStream>(meta, m_format);
}

} // namespace tb::sim
