#include "api/apidialect.h"

#include <QCoreApplication>

namespace tb {

namespace {

/// vLLM's score API (POST /score): text_1 one text, text_2 the texts to score against it, a score
/// per pair out in "data", never streamed. text_1 is the prompt's system text, text_2 the batch's
/// inputs, as rerank's query and documents.
class Score final : public ApiDialect
{
public:
    Score()
        : ApiDialect(ApiKind::Score, QT_TRANSLATE_NOOP("tb::ApiDialect", "Score (vLLM) — /score"), "/score")
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

void Score::writeBody(nlohmann::json &body, const Prompt &prompt, bool) const
{
    body["text_1"] = rerankQuery(prompt);
    body["text_2"] = rerankDocuments(prompt);
}

bool Score::read(DocumentReader &reader) const
{
    return readBatchAnswer(reader, "data");
}

QString Score::answerProblem(const DocumentFields &f, const RequestRecord &r) const
{
    return batchAnswerProblem(f, r, "score", "data", "scores", "texts");
}

const ApiDialect &scoreDialect()
{
    static const Score dialect;
    return dialect;
}

} // namespace tb
