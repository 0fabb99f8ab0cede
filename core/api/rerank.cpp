#include "api/apidialect.h"

#include <QCoreApplication>

namespace tb {

namespace {

/// The field names one scoring API gives the same measurement.
struct ScoringShape {
    const char *api;       ///< "rerank": in messages
    const char *query;     ///< the one text the others are scored against
    const char *documents; ///< the texts scored
    const char *answer;    ///< the answer's array, one score per text
    const char *inputs;    ///< what messages call the texts
};

/// The scoring APIs: one text against many, a score per text out, never streamed. The one text is
/// the prompt's system text (--system-tokens sizes it; without one, a fixed question, as every
/// server needs a non-empty one), the others the batch's inputs. Rerank as vLLM, llama.cpp
/// (--reranking), Jina and Cohere serve it (POST /rerank: query, documents, results), and vLLM's
/// score API (POST /score: text_1, text_2, data). Without top_n every server scores every text:
/// the answer's count checks the batch.
class Scoring final : public ApiDialect
{
public:
    Scoring(ApiKind kind, const char *label, const char *path, ScoringShape shape)
        : ApiDialect(kind, label, path)
        , m_shape(shape)
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool) const override
    {
        body[m_shape.query] =
            prompt.system.empty() ? std::string("Which of these passages answers the question best?") : prompt.system;
        if (!prompt.inputs.empty()) {
            body[m_shape.documents] = prompt.inputs;
        } else {
            Prompt document = prompt;
            document.system.clear();
            body[m_shape.documents] = nlohmann::json::array({promptText(document)});
        }
    }
    bool promptIsText() const override { return true; }
    bool listsContextLengths() const override { return false; }
    bool generates() const override { return false; }
    bool systemApart() const override { return true; }
    bool read(DocumentReader &reader) const override { return readBatchAnswer(reader, m_shape.answer); }
    QString answerProblem(const DocumentFields &f, const RequestRecord &r) const override
    {
        return batchAnswerProblem(f, r, m_shape.api, m_shape.answer, "scores", m_shape.inputs);
    }

private:
    ScoringShape m_shape;
};

} // namespace

const ApiDialect &rerankDialect()
{
    static const Scoring dialect(ApiKind::Rerank, QT_TRANSLATE_NOOP("tb::ApiDialect", "Rerank — /rerank"), "/rerank",
                                 {"rerank", "query", "documents", "results", "documents"});
    return dialect;
}

const ApiDialect &scoreDialect()
{
    static const Scoring dialect(ApiKind::Score, QT_TRANSLATE_NOOP("tb::ApiDialect", "Score (vLLM) — /score"), "/score",
                                 {"score", "text_1", "text_2", "data", "texts"});
    return dialect;
}

} // namespace tb
