#include "api/apidialect.h"

#include <QCoreApplication>

namespace tb {

namespace {

/// The OpenAI embeddings API (POST /embeddings): a batch of inputs in, one vector per input out.
/// Nothing is generated or streamed; the vectors are skipped as the body is read, never kept.
class OpenAiEmbeddings final : public ApiDialect
{
public:
    OpenAiEmbeddings()
        : ApiDialect(ApiKind::OpenAIEmbeddings, QT_TRANSLATE_NOOP("tb::ApiDialect", "OpenAI embeddings — /embeddings"),
                     "/embeddings")
    {}
    void writeBody(nlohmann::json &body, const Prompt &prompt, bool stream) const override;
    bool promptIsText() const override { return true; }
    bool listsContextLengths() const override { return false; }
    bool generates() const override { return false; }
    bool read(DocumentReader &reader) const override;
    QString answerProblem(const DocumentFields &f, const RequestRecord &r) const override;
};

} // namespace

void OpenAiEmbeddings::writeBody(nlohmann::json &body, const Prompt &prompt, bool) const
{
    // One input goes as a string, a batch as an array of strings: both are the API's forms, and a
    // server that takes only one of them (older llama.cpp took a string) still serves batch 1.
    if (prompt.inputs.empty())
        body["input"] = promptText(prompt);
    else
        body["input"] = prompt.inputs;
    // The API's documented default, which every compatible server accepts. The openai SDKs ask
    // for "base64" (float32 bytes, a third shorter) and decode it themselves; llama.cpp serves
    // both, and the vectors are skipped unread here, so the format changes only the bytes sent.
    body["encoding_format"] = "float";
}

bool OpenAiEmbeddings::read(DocumentReader &reader) const
{
    return readBatchAnswer(reader, "data");
}

QString OpenAiEmbeddings::answerProblem(const DocumentFields &f, const RequestRecord &r) const
{
    return batchAnswerProblem(f, r, "embeddings", "data", "vectors", "inputs");
}

const ApiDialect &openAiEmbeddingsDialect()
{
    static const OpenAiEmbeddings dialect;
    return dialect;
}

} // namespace tb
