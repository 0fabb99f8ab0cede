#include "sim/simapi.h"
#include "sim/simjson.h"

#include <algorithm>
#include <vector>

namespace tb::sim {

using json = nlohmann::json;

namespace {

/// The scoring APIs, one text against many, never streamed: rerank (POST /v1/rerank) as vLLM
/// and llama.cpp serve it in Jina's format — "query" a string, "documents" a non-empty array of
/// strings (llama.cpp also takes TEI's "texts"), "results" [{index, relevance_score}] sorted by
/// score, highest first — and vLLM's score (POST /v1/score) — "text_1" a string, "text_2" an
/// array, "data" [{index, object: "score", score}] in the texts' order. Every text is scored
/// against the one as a cross-encoder reads the pair, so the prompt the request costs is the
/// pair, once per text (llama.cpp's format_rerank; it adds separator tokens, which the simulator
/// leaves out). Usage has prompt_tokens and total_tokens.
class SimRerank final : public SimApi
{
public:
    /// `score`: vLLM's score API, else rerank.
    explicit SimRerank(bool score)
        : SimApi(score ? Endpoint::Score : Endpoint::Rerank, score ? "score" : "rerank",
                 score ? "/v1/score" : "/v1/rerank", score ? "score-" : "rerank-")
        , m_score(score)
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

private:
    bool m_score;
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
    const char *queryKey = m_score ? "text_1" : "query";
    const char *documentsKey = m_score ? "text_2" : "documents";
    const json *query = member(body, queryKey);
    if (!query || !query->is_string() || query->get_ref<const std::string &>().empty())
        return invalid(queryKey, std::string("'") + queryKey + "' is a required property (a non-empty string)");
    const json *documents = member(body, documentsKey);
    if (!documents && !m_score)
        documents = member(body, "texts");
    if (!documents || !documents->is_array() || documents->empty() ||
        !std::all_of(documents->begin(), documents->end(), [](const json &s) { return s.is_string(); }))
        return invalid(documentsKey, std::string("'") + documentsKey + "' must be a non-empty array of strings");
    if (const json *stream = member(body, "stream"); stream && *stream != false)
        return invalid("stream", std::string(name()) + " is not streamed: 'stream' must be false or absent");
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
    json items = json::array();
    if (m_score) {
        for (const auto &[score, index] : scores)
            items.push_back({{"index", index}, {"object", "score"}, {"score", score}});
    } else {
        std::sort(scores.begin(), scores.end(), std::greater<>());
        for (const auto &[score, index] : scores)
            items.push_back({{"index", index}, {"relevance_score", score}});
    }
    const json body = {{"id", meta.id},
                       {"object", "list"},
                       {"model", meta.model},
                       {m_score ? "data" : "results", std::move(items)},
                       {"usage", {{"prompt_tokens", usage.promptTokens}, {"total_tokens", usage.promptTokens}}}};
    return body.dump();
}

const SimApi &rerankApi()
{
    static const SimRerank api(false);
    return api;
}

const SimApi &scoreApi()
{
    static const SimRerank api(true);
    return api;
}

} // namespace tb::sim
