#include "api/apidialect.h"

#include <QCoreApplication>

namespace tb {

namespace {

/// The rerank API as vLLM, llama.cpp (--reranking), Jina and Cohere serve it (POST /rerank): a
/// query and documents in, a relevance score per document out, never streamed. The query is the
/// prompt's system text (--system-tokens sizes it), the documents the batch's inputs.
class Rerank final : public ApiDialect
{
public:
    Rerank()
        : ApiDialect(ApiKind::Rerank, QT_TRANSLATE_NOOP("tb::ApiDialect", "Rerank — /rerank"), "/rerank")
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    bool promptIsText() const override { return true; }
    bool listsContextLengths() const override { return false; }
    bool generates() const override { return false; }
    bool systemApart() const override { return true; }
    bool read(DocumentReader &reader) const override;
    QString answerProblem(const DocumentFields &f, const RequestRecord &r) const override;
};

} // namespace

void Rerank::writeBody(nlohmann::json &body, const Prompt &prompt, bool) const
{
    body["query"] = rerankQuery(prompt);
    body["documents"] = rerankDocuments(prompt);
    // Without top_n every server scores every document: the answer's count checks the batch.
}

bool Rerank::read(DocumentReader &reader) const
{
    return readBatchAnswer(reader, "results");
}

QString Rerank::answerProblem(const DocumentFields &f, const RequestRecord &r) const
{
    return batchAnswerProblem(f, r, "rerank", "results", "scores", "documents");
}

const ApiDialect &rerankDialect()
{
    static const Rerank dialect;
    return dialect;
}

} // namespace tb
