#include "sim/simapi.h"
#include "sim/simjson.h"

#include <QByteArray>
#include <QtEndian>

#include <array>

namespace tb::sim {

using json = nlohmann::json;

namespace {

/// Floats in every simulated embedding: small, as the vectors are not what is measured.
constexpr int kEmbeddingDimensions = 8;

/// The OpenAI embeddings API (POST /v1/embeddings) as the simulator serves it: "input" a string
/// or an array of strings, "encoding_format" float (the API's default) or base64 (what the openai
/// SDKs ask for), never streamed; one deterministic vector of kEmbeddingDimensions per input, and
/// usage with prompt_tokens and total_tokens (the same: nothing is generated).
class SimOpenAiEmbeddings final : public SimApi
{
public:
    SimOpenAiEmbeddings()
        : SimApi(Endpoint::Embeddings, "embeddings", "/v1/embeddings", "embd-")
    {}
    bool chat() const override { return false; }
    bool generates() const override { return false; }
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::optional<ApiError> readMaxTokens(const nlohmann::json &, GenerationRequest &, const SimConfig &) const override
    {
        return std::nullopt;
    }
    std::unique_ptr<SimStream> stream(const ResponseMeta &) const override { return nullptr; }
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
};

/// Input `index`'s vector: from the request's seed, in [-1, 1).
std::array<float, kEmbeddingDimensions> embeddingVector(quint64 seed, qint64 index)
{
    std::array<float, kEmbeddingDimensions> v{};
    quint64 state = seed ^ (quint64(index) * 0x9E3779B97F4A7C15ULL);
    for (float &x : v) {
        // splitmix64: every float its own well-mixed draw.
        state += 0x9E3779B97F4A7C15ULL;
        quint64 z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        x = float(double(z >> 40) / double(1ULL << 23) - 1.0);
    }
    return v;
}

} // namespace

std::optional<ApiError> SimOpenAiEmbeddings::readPrompt(const json &body, GenerationRequest &request) const
{
    const json *input = member(body, "input");
    if (!input)
        return invalid("input", "'input' is a required property");
    if (input->is_string()) {
        request.prompt = input->get<std::string>();
        request.inputs = 1;
    } else if (input->is_array() && !input->empty() &&
               std::all_of(input->begin(), input->end(), [](const json &s) { return s.is_string(); })) {
        for (const json &s : *input)
            appendPrompt(request.prompt, s.get<std::string>());
        request.inputs = qint64(input->size());
    } else {
        return invalid("input", "'input' must be a string or a non-empty array of strings");
    }
    if (const json *format = member(body, "encoding_format")) {
        if (!format->is_string() || (*format != "float" && *format != "base64"))
            return invalid("encoding_format", "'encoding_format' must be 'float' or 'base64'");
        request.base64 = *format == "base64";
    }
    if (const json *stream = member(body, "stream"); stream && *stream != false)
        return invalid("stream", "embeddings are not streamed: 'stream' must be false or absent");
    return std::nullopt;
}

std::string SimOpenAiEmbeddings::completeBody(const ResponseMeta &meta, std::string_view, std::string_view, bool,
                                              const Usage &usage, const Timings *) const
{
    json data = json::array();
    for (qint64 i = 0; i < meta.inputs; ++i) {
        const auto v = embeddingVector(meta.seed, i);
        json item = {{"object", "embedding"}, {"index", i}};
        if (meta.base64) {
            QByteArray bytes(qsizetype(v.size() * sizeof(float)), Qt::Uninitialized);
            for (std::size_t k = 0; k < v.size(); ++k)
                qToLittleEndian(v[k], bytes.data() + k * sizeof(float));
            item["embedding"] = bytes.toBase64().toStdString();
        } else {
            item["embedding"] = v;
        }
        data.push_back(std::move(item));
    }
    const json body = {{"object", "list"},
                       {"data", std::move(data)},
                       {"model", meta.model},
                       {"usage", {{"prompt_tokens", usage.promptTokens}, {"total_tokens", usage.promptTokens}}}};
    return body.dump();
}

const SimApi &openAiEmbeddingsApi()
{
    static const SimOpenAiEmbeddings api;
    return api;
}

} // namespace tb::sim
