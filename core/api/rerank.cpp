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

/// Without --system-tokens the query is a fixed question: every server needs a non-empty one.
constexpr char kDefaultQuery[] = "Which of these passages answers the question best?";

} // namespace

void Rerank::writeBody(nlohmann::json &body, const Prompt &prompt, bool) const
{
    body["query"] = prompt.system.empty() ? std::string(kDefaultQuery) : prompt.system;
    if (!prompt.inputs.empty()) {
        body["documents"] = prompt.inputs;
    } else {
        Prompt document = prompt;
        document.system.clear();
        body["documents"] = nlohmann::json::array({promptText(document)});
    }
    // Without top_n every server scores every document: the answer's count checks the batch.
}

bool Rerank::read(DocumentReader &reader) const
{
    JsonCursor &c = reader.cursor();
    DocumentFields &f = reader.fields();
    const bool ok = c.object([&](std::string_view key) {
        if (const auto known = reader.common(key))
            return *known;
        if (key == "results") {
            f.items = 0;
            return c.null() || c.array([&] {
                ++f.items;
                return c.skip();
            });
        }
        return c.skip();
    });
    return reader.end(ok);
}

QString Rerank::answerProblem(const DocumentFields &f, const RequestRecord &r) const
{
    const std::int64_t wanted = std::max(r.inputs, 1);
    if (f.items < 0)
        return QStringLiteral("rerank response without a \"results\" array");
    if (f.items != wanted)
        return QStringLiteral("rerank response with %1 scores for %2 documents").arg(f.items).arg(wanted);
    return {};
}

const ApiDialect &rerankDialect()
{
    static const Rerank dialect;
    return dialect;
}

} // namespace tb
