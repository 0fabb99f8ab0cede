#include "sim/simapi.h"
#include "sim/simjson.h"

#include <algorithm>
#include <vector>

namespace tb::sim {

using json = nlohmann::json;

namespace {

/// The rerank API (POST /v1/rerank) as vLLM and llama.cpp serve it in Jina's format: "query" a
/// string, "documents" a non-empty array of strings (llama.cpp also takes TEI's "texts"), never
/// streamed. Every document is scored against the query as a cross-encoder reads the pair, so
/// the prompt the request costs is the query and the document, once per document (llama.cpp's
/// format_rerank; it adds separator tokens, which the simulator leaves out). The results come
/// sorted by score, highest first, with usage's prompt_tokens and total_tokens.
class SimRerank final : public SimApi
{
public:
    SimRerank()
        : SimApi(Endpoint::Rerank, "rerank", "/v1/rerank", "rerank-")
    {}
    bool chat() const override { return false; }
    bool generates() const override { return false; }
    std::optional<ApiError> readPrompt(const nlohmann::json &body, GenerationRequest &request) const override;
    std::optional<ApiError> readMaxTokens(const nlohmann::json &, GenerationRequest &, const SimConfig &) const override
    {
        return std::nullopt;
    }
    std::optional<ApiError> readResponseFormat(const nlohmann::json &, GenerationRequest &) const override
    {
        return std::nullopt;
    }
    std::unique_ptr<SimStream> stream(const ResponseMeta &) const override { return nullptr; }
    std::string completeBody(const ResponseMeta &meta, std::string_view reasoning, std::string_view content,
                             bool stoppedByLength, const Usage &usage, const Timings *timings) const override;
};

/// Document `index`'s score: from the request's seed, in [0, 1).
double relevance(quint64 seed, qint64 index)
{
    // splitmix64 of the pair: every score its own well-mixed draw.
    quint64 z = seed + (quint64(index) + 1) * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return double(z >> 11) / double(1ULL << 53);
}

} // namespace

std::optional<ApiError> SimRerank::readPrompt(const json &body, GenerationRequest &request) const
{
    const json *query = member(body, "query");
    if (!query || !query->is_string() || query->get_ref<const std::string &>().empty())
        return invalid("query", "'query' is a required property (a non-empty string)");
    const json *documents = member(body, "documents");
    if (!documents)
        documents = member(body, "texts");
    if (!documents || !documents->is_array() || documents->empty() ||
        !std::all_of(documents->begin(), documents->end(), [](const json &s) { return s.is_string(); }))
        return invalid("documents", "'documents' must be a non-empty array of strings");
    if (const json *stream = member(body, "stream"); stream && *stream != false)
        return invalid("stream", "rerank is not streamed: 'stream' must be false or absent");
    for (const json &document : *documents) {
        appendPrompt(request.prompt, query->get_ref<const std::string &>());
        appendPrompt(request.prompt, document.get_ref<const std::string &>());
    }
    request.inputs = qint64(documents->size());
    return std::nullopt;
}

std::string SimRerank::completeBody(const ResponseMeta &meta, std::string_view, std::string_view, bool,
                                    const Usage &usage, const Timings *) const
{
    std::vector<std::pair<double, qint64>> scores;
    scores.reserve(std::size_t(std::max<qint64>(meta.inputs, 0)));
    for (qint64 i = 0; i < meta.inputs; ++i)
        scores.emplace_back(relevance(meta.seed, i), i);
    std::sort(scores.begin(), scores.end(), std::greater<>());
    json results = json::array();
    for (const auto &[score, index] : scores)
        results.push_back({{"index", index}, {"relevance_score", score}});
    const json body = {{"id", meta.id},
                       {"object", "list"},
                       {"model", meta.model},
                       {"results", std::move(results)},
                       {"usage", {{"prompt_tokens", usage.promptTokens}, {"total_tokens", usage.promptTokens}}}};
    return body.dump();
}

const SimApi &rerankApi()
{
    static const SimRerank api;
    return api;
}

} // namespace tb::sim
