#include "api/apidialect.h"
#include "api/requestbuilder.h"
#include "api/streamdecoder.h"
#include "sim/simapi.h"
#include "sim/simconfig.h"

#include <QTest>

using namespace tb;

namespace {

/// Each ApiKind with the simulator's Endpoint for the same API: the rows of every test here.
void addDialectRows()
{
    QTest::addColumn<int>("api");
    QTest::addColumn<int>("endpoint");
    QTest::newRow("openai-chat") << int(ApiKind::OpenAIChat) << int(sim::Endpoint::Chat);
    QTest::newRow("openai-completions") << int(ApiKind::OpenAICompletions) << int(sim::Endpoint::Completions);
    QTest::newRow("anthropic-messages") << int(ApiKind::AnthropicMessages) << int(sim::Endpoint::Messages);
    QTest::newRow("openai-responses") << int(ApiKind::OpenAIResponses) << int(sim::Endpoint::Responses);
}

/// addDialectRows() and the APIs that generate nothing (embeddings, rerank): every ApiKind.
void addEveryKindRows()
{
    addDialectRows();
    QTest::newRow("openai-embeddings") << int(ApiKind::OpenAIEmbeddings) << int(sim::Endpoint::Embeddings);
    QTest::newRow("rerank") << int(ApiKind::Rerank) << int(sim::Endpoint::Rerank);
    QTest::newRow("score") << int(ApiKind::Score) << int(sim::Endpoint::Score);
}

/// A builder for the embeddings (or rerank) API with the request settings a chat run would send.
std::optional<RequestBuilder> embeddingsBuilder(ApiKind api = ApiKind::OpenAIEmbeddings)
{
    TargetConfig target;
    target.api = api;
    target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    target.model = QStringLiteral("default");
    RequestConfig request;
    request.maxTokens = 17;
    request.temperature = 0.5;
    request.stream = true; // the default, which embeddings cannot do
    return RequestBuilder::create(target, request, nullptr);
}

struct Sse {
    std::string event;
    std::string data;
};

/// The simulator's SSE text cut into events (its writers put one "event:" and one "data:" line in each).
std::vector<Sse> events(const std::string &text)
{
    std::vector<Sse> out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find("\n\n", at);
        if (end == std::string::npos)
            end = text.size();
        Sse e;
        std::size_t line = at;
        while (line < end) {
            std::size_t stop = std::min(text.find('\n', line), end);
            const std::string_view l(text.data() + line, stop - line);
            if (l.starts_with("event: "))
                e.event = l.substr(7);
            else if (l.starts_with("data: "))
                e.data = l.substr(6);
            line = stop + 1;
        }
        out.push_back(e);
        at = end + 2;
    }
    return out;
}

sim::ResponseMeta meta(sim::Endpoint endpoint)
{
    sim::ResponseMeta m;
    m.endpoint = endpoint;
    m.id = std::string(sim::simApiFor(endpoint).idPrefix()) + "tst00001";
    m.model = "default";
    m.created = 1'700'000'000;
    m.includeUsage = true;
    return m;
}

sim::Usage usage()
{
    sim::Usage u;
    u.promptTokens = 12;
    u.completionTokens = 3;
    u.cachedTokens = 4;
    return u;
}

} // namespace

class TestApiDialect : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyKindHasItsDialect_data() { addEveryKindRows(); }
    void everyKindHasItsDialect()
    {
        QFETCH(int, api);
        QFETCH(int, endpoint);
        const ApiDialect &dialect = dialectFor(ApiKind(api));
        QCOMPARE(int(dialect.kind()), api);
        QCOMPARE(apiKindFromName(dialect.name()), std::optional<ApiKind>(ApiKind(api)));
        QCOMPARE(apiDialects().at(std::size_t(api)), &dialect); // listed in ApiKind's order
        const sim::SimApi &simApi = sim::simApiFor(sim::Endpoint(endpoint));
        QCOMPARE(int(simApi.endpoint()), endpoint);
        // The client posts where the simulator serves the same API.
        QCOMPARE(QByteArray("/v1") + dialect.path(), QByteArray(simApi.path()));
        QCOMPARE(apiDialects().size(), sim::simApis().size());
    }

    // What a cut-off stream is reported as names the end marker the dialect waits for.
    void truncatedMessageNamesTheEndMarker_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QString>("message");
        QTest::newRow("openai-chat") << int(ApiKind::OpenAIChat)
                                     << QStringLiteral("stream ended without [DONE] or a finish reason");
        QTest::newRow("openai-completions")
            << int(ApiKind::OpenAICompletions) << QStringLiteral("stream ended without [DONE] or a finish reason");
        QTest::newRow("anthropic-messages")
            << int(ApiKind::AnthropicMessages) << QStringLiteral("stream ended without message_stop");
        QTest::newRow("openai-responses")
            << int(ApiKind::OpenAIResponses) << QStringLiteral("stream ended without response.completed");
    }
    void truncatedMessageNamesTheEndMarker()
    {
        QFETCH(int, api);
        QFETCH(QString, message);
        QCOMPARE(dialectFor(ApiKind(api)).truncatedMessage(), message);
    }

    void requestBodyReadBySimulator_data() { addDialectRows(); }
    void requestBodyReadBySimulator()
    {
        QFETCH(int, api);
        QFETCH(int, endpoint);
        for (const bool stream : {true, false}) {
            TargetConfig target;
            target.api = ApiKind(api);
            target.url = QStringLiteral("http://127.0.0.1:8000/v1");
            target.model = QStringLiteral("default");
            RequestConfig request;
            request.maxTokens = 17;
            request.stream = stream;
            QString error;
            const auto builder = RequestBuilder::create(target, request, &error);
            QVERIFY2(builder, qPrintable(error));
            Prompt prompt;
            prompt.system = "Be brief.";
            prompt.user = "Hello there";

            const auto parsed =
                sim::parseGenerationRequest(sim::Endpoint(endpoint), builder->bodyText(prompt), sim::SimConfig());
            const auto *refused = std::get_if<sim::ApiError>(&parsed);
            QVERIFY2(!refused, refused ? refused->message.c_str() : "");
            const sim::GenerationRequest &read = std::get<sim::GenerationRequest>(parsed);
            QCOMPARE(read.model, std::string("default"));
            QCOMPARE(read.stream, stream);
            QCOMPARE(read.maxTokens, std::optional<qint64>(17));
            // The simulator joins the texts with '\n'; legacy completions' one text has "\n\n" between.
            const std::string expected =
                ApiKind(api) == ApiKind::OpenAICompletions ? "Be brief.\n\nHello there" : "Be brief.\nHello there";
            QCOMPARE(read.prompt, expected);
            QCOMPARE(builder->path(), QByteArray(sim::simApiFor(sim::Endpoint(endpoint)).path()));
        }
    }

    void simulatorStreamDecoded_data() { addDialectRows(); }
    void simulatorStreamDecoded()
    {
        QFETCH(int, api);
        QFETCH(int, endpoint);
        sim::SseFormatter sse(meta(sim::Endpoint(endpoint)));
        std::string text;
        sse.start(text, usage());
        for (const char *word : {"Hello", " simulated", " world"})
            sse.delta(text, false, word);
        sse.finish(text, false, usage());

        RequestRecord r;
        StreamDecoder decoder(ApiKind(api), nullptr, true);
        decoder.begin(&r);
        std::int64_t stamp = 0;
        for (const Sse &e : events(text))
            decoder.onEvent(e.event, e.data, ++stamp);
        decoder.finish(99, TokenSource::Estimate);
        QVERIFY2(!decoder.failed(), qPrintable(r.errorMessage));
        QVERIFY(decoder.complete());
        QVERIFY(decoder.streamEnded());
        QCOMPARE(r.reply, std::string("Hello simulated world"));
        QCOMPARE(r.chunks, 3);
        QCOMPARE(r.responseId, QString::fromStdString(meta(sim::Endpoint(endpoint)).id));
        QCOMPARE(r.tokenSource, TokenSource::Usage);
        QCOMPARE(r.promptTokens, std::int64_t(12));
        QCOMPARE(r.completionTokens, std::int64_t(3));
        QCOMPARE(r.cachedTokens, std::int64_t(4));
        QVERIFY(!r.finishReason.isEmpty());
    }

    void simulatorBodyDecoded_data() { addDialectRows(); }
    void simulatorBodyDecoded()
    {
        QFETCH(int, api);
        QFETCH(int, endpoint);
        const std::string body =
            sim::completeBody(meta(sim::Endpoint(endpoint)), {}, "Hello simulated world", true, usage());
        RequestRecord r;
        StreamDecoder decoder(ApiKind(api), nullptr, true);
        decoder.begin(&r);
        decoder.onBody(body, 1);
        decoder.finish(99, TokenSource::Estimate);
        QVERIFY2(!decoder.failed(), qPrintable(r.errorMessage));
        QVERIFY(decoder.complete());
        QCOMPARE(r.reply, std::string("Hello simulated world"));
        QCOMPARE(r.promptTokens, std::int64_t(12));
        QCOMPARE(r.completionTokens, std::int64_t(3));
        QCOMPARE(r.cachedTokens, std::int64_t(4));
        // Stopped by the output cap: each API's own word for it.
        QVERIFY2(r.finishReason.contains(QLatin1String("length")) || r.finishReason.contains(QLatin1String("max_")),
                 qPrintable(r.finishReason));
    }

    void simulatorErrorIsTheServers_data() { addEveryKindRows(); }
    void simulatorErrorIsTheServers()
    {
        QFETCH(int, api);
        QFETCH(int, endpoint);
        const std::string body = sim::errorBody(sim::Endpoint(endpoint), {503, "The server is busy", {}, "overloaded"});
        // A non-2xx answer's message, and the same body where a response was expected.
        QVERIFY(StreamDecoder::errorMessageFromBody(body).contains(QLatin1String("The server is busy")));
        RequestRecord r;
        StreamDecoder decoder{ApiKind(api)};
        decoder.begin(&r);
        decoder.onBody(body, 1);
        QVERIFY(decoder.failed());
        QCOMPARE(decoder.failure(), RequestStatus::ServerError);
        QVERIFY2(r.errorMessage.contains(QLatin1String("The server is busy")), qPrintable(r.errorMessage));
    }

    void embeddingsBodyReadBySimulator_data()
    {
        QTest::addColumn<int>("inputs");
        QTest::newRow("one input: a string") << 1;
        QTest::newRow("a batch: an array of strings") << 3;
    }
    // The body has the model, the input(s) and encoding_format "float", and nothing of a
    // generation (no output cap, stream or sampling): the simulator reads it as a real server would.
    void embeddingsBodyReadBySimulator()
    {
        QFETCH(int, inputs);
        const auto builder = embeddingsBuilder();
        QVERIFY(builder);
        QVERIFY(!builder->streaming());
        QCOMPARE(builder->path(), QByteArray("/v1/embeddings"));
        Prompt prompt;
        prompt.system = "Be brief.";
        prompt.user = "Hello there";
        for (int i = 1; inputs > 1 && i <= inputs; ++i)
            prompt.inputs.push_back("input " + std::to_string(i));
        const nlohmann::json body = builder->body(prompt);
        QCOMPARE(body.size(), std::size_t(3));
        QVERIFY(body.at("model") == "default");
        QVERIFY(body.at("encoding_format") == "float");
        QCOMPARE(body.at("input").is_string(), inputs == 1);
        if (inputs == 1)
            QVERIFY(body.at("input") == "Be brief.\n\nHello there");
        else
            QCOMPARE(body.at("input").size(), std::size_t(inputs));

        const auto parsed =
            sim::parseGenerationRequest(sim::Endpoint::Embeddings, builder->bodyText(prompt), sim::SimConfig());
        const auto *refused = std::get_if<sim::ApiError>(&parsed);
        QVERIFY2(!refused, refused ? refused->message.c_str() : "");
        const sim::GenerationRequest &read = std::get<sim::GenerationRequest>(parsed);
        QCOMPARE(read.inputs, qint64(inputs));
        QVERIFY(!read.stream);
        QVERIFY(!read.base64);
    }

    // What an embeddings response is decoded to, from the simulator's own bodies (float and
    // base64) and hostile ones: the vectors are counted against the inputs, never kept.
    void embeddingsResponseDecoded_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("inputs");
        QTest::addColumn<QString>("failure"); ///< empty: decoded
        QTest::addColumn<qint64>("promptTokens");
        QTest::addColumn<int>("tokenSource");
        const auto simBody = [](qint64 vectors, bool base64) {
            sim::ResponseMeta m = meta(sim::Endpoint::Embeddings);
            m.inputs = vectors;
            m.base64 = base64;
            m.seed = 42;
            return QByteArray::fromStdString(sim::completeBody(m, {}, {}, false, usage()));
        };
        const int usageSource = int(TokenSource::Usage);
        QTest::newRow("simulator, float") << simBody(3, false) << 3 << QString() << qint64(12) << usageSource;
        QTest::newRow("simulator, base64") << simBody(3, true) << 3 << QString() << qint64(12) << usageSource;
        QTest::newRow("one input, one vector") << simBody(1, false) << 1 << QString() << qint64(12) << usageSource;
        QTest::newRow("fewer vectors than inputs")
            << simBody(2, false) << 3 << QStringLiteral("embeddings response with 2 vectors for 3 inputs") << qint64(12)
            << usageSource;
        QTest::newRow("more vectors than inputs")
            << simBody(4, false) << 3 << QStringLiteral("embeddings response with 4 vectors for 3 inputs") << qint64(12)
            << usageSource;
        QTest::newRow("no data array") << QByteArray(
                                              R"({"object":"list","usage":{"prompt_tokens":5,"total_tokens":5}})")
                                       << 1 << QStringLiteral("embeddings response without a \"data\" array")
                                       << qint64(5) << usageSource;
        QTest::newRow("data null") << QByteArray(R"({"object":"list","data":null})") << 1
                                   << QStringLiteral("embeddings response with 0 vectors for 1 inputs") << qint64(99)
                                   << int(TokenSource::Estimate);
        // Without usage the client's own count of what it sent stands.
        QTest::newRow("no usage") << QByteArray(R"({"object":"list","data":[{"index":0,"embedding":[0.5,-1]}]})") << 1
                                  << QString() << qint64(99) << int(TokenSource::Estimate);
        QTest::newRow("huge numbers in a vector are skipped")
            << QByteArray(R"({"data":[{"embedding":[1e308,-1e308,123456789012345678901234567890]}],)"
                          R"("usage":{"prompt_tokens":7,"total_tokens":7}})")
            << 1 << QString() << qint64(7) << usageSource;
        QTest::newRow("a token count beyond any server's")
            << QByteArray(R"({"data":[{"embedding":[0]}],"usage":{"prompt_tokens":10000000000000}})") << 1
            << QStringLiteral("token count out of range in response") << qint64(99) << int(TokenSource::Estimate);
        QTest::newRow("not json") << QByteArray(R"({"data":[{"embedding":[0)") << 1
                                  << QStringLiteral("response is not JSON") << qint64(99) << int(TokenSource::Estimate);
    }
    void embeddingsResponseDecoded()
    {
        QFETCH(QByteArray, body);
        QFETCH(int, inputs);
        QFETCH(QString, failure);
        QFETCH(qint64, promptTokens);
        QFETCH(int, tokenSource);
        RequestRecord r;
        r.inputs = inputs;
        StreamDecoder decoder(ApiKind::OpenAIEmbeddings);
        decoder.begin(&r);
        decoder.onBody(body.toStdString(), 1);
        decoder.finish(99, TokenSource::Estimate);
        QCOMPARE(decoder.failed(), !failure.isEmpty());
        if (!failure.isEmpty()) {
            QCOMPARE(decoder.failure(), RequestStatus::Protocol);
            QVERIFY2(r.errorMessage.startsWith(failure), qPrintable(r.errorMessage));
            return;
        }
        QVERIFY(decoder.complete());
        QCOMPARE(r.promptTokens, std::int64_t(promptTokens));
        QCOMPARE(int(r.promptTokenSource), tokenSource);
        QCOMPARE(r.completionTokens, std::int64_t(0));
        QCOMPARE(r.chunks, 0);
        QVERIFY(r.tokenChunks.empty());
    }

    void rerankBodyReadBySimulator_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<int>("documents");
        QTest::addColumn<std::string>("system");
        for (const auto &[name, api] : {std::pair{"rerank", ApiKind::Rerank}, std::pair{"score", ApiKind::Score}}) {
            QTest::addRow("%s: one document, the system prompt as the query", name)
                << int(api) << 1 << std::string("Be brief.");
            QTest::addRow("%s: a batch, the default query", name) << int(api) << 3 << std::string();
        }
    }
    // The body has the model, the query and the documents, and nothing of a generation; the
    // simulator costs every document paired with the query, as a cross-encoder reads it.
    void rerankBodyReadBySimulator()
    {
        QFETCH(int, api);
        QFETCH(int, documents);
        QFETCH(std::string, system);
        const bool score = ApiKind(api) == ApiKind::Score;
        const char *queryKey = score ? "text_1" : "query";
        const char *documentsKey = score ? "text_2" : "documents";
        const auto builder = embeddingsBuilder(ApiKind(api));
        QVERIFY(builder);
        QVERIFY(!builder->streaming());
        QCOMPARE(builder->path(), score ? QByteArray("/v1/score") : QByteArray("/v1/rerank"));
        Prompt prompt;
        prompt.system = system;
        prompt.user = "Hello there";
        for (int i = 1; documents > 1 && i <= documents; ++i)
            prompt.inputs.push_back("document " + std::to_string(i));
        const nlohmann::json body = builder->body(prompt);
        QCOMPARE(body.size(), std::size_t(3));
        QVERIFY(body.at("model") == "default");
        QCOMPARE(body.at(documentsKey).size(), std::size_t(documents));
        if (documents == 1)
            QVERIFY(body.at(documentsKey).at(0) == "Hello there"); // the query is not in it
        const std::string query = body.at(queryKey).get<std::string>();
        QVERIFY(system.empty() ? !query.empty() : query == system);

        const auto parsed = sim::parseGenerationRequest(score ? sim::Endpoint::Score : sim::Endpoint::Rerank,
                                                        builder->bodyText(prompt), sim::SimConfig());
        const auto *refused = std::get_if<sim::ApiError>(&parsed);
        QVERIFY2(!refused, refused ? refused->message.c_str() : "");
        const sim::GenerationRequest &read = std::get<sim::GenerationRequest>(parsed);
        QCOMPARE(read.inputs, qint64(documents));
        QVERIFY(!read.stream);
        // Every document with the query before it.
        std::size_t queries = 0;
        for (std::size_t at = read.prompt.find(query); at != std::string::npos; at = read.prompt.find(query, at + 1))
            ++queries;
        QCOMPARE(queries, std::size_t(documents));
    }

    // What a rerank response is decoded to: the scores are counted against the documents.
    void rerankResponseDecoded_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("documents");
        QTest::addColumn<QString>("failure"); ///< empty: decoded
        const auto simBody = [](sim::Endpoint endpoint, qint64 scores) {
            sim::ResponseMeta m = meta(endpoint);
            m.inputs = scores;
            m.seed = 42;
            return QByteArray::fromStdString(sim::completeBody(m, {}, {}, false, usage()));
        };
        const int rerank = int(ApiKind::Rerank);
        const int score = int(ApiKind::Score);
        QTest::newRow("rerank: simulator") << rerank << simBody(sim::Endpoint::Rerank, 3) << 3 << QString();
        QTest::newRow("rerank: fewer scores than documents")
            << rerank << simBody(sim::Endpoint::Rerank, 2) << 3
            << QStringLiteral("rerank response with 2 scores for 3 documents");
        // llama.cpp's answer (examples/server/server.cpp, format_response_rerank, Jina's format).
        QTest::newRow("rerank: llama.cpp")
            << rerank
            << QByteArray(R"({"model":"m","object":"list","usage":{"prompt_tokens":12,"total_tokens":12},)"
                          R"("results":[{"index":1,"relevance_score":0.9},{"index":0,"relevance_score":-2.5}]})")
            << 2 << QString();
        QTest::newRow("rerank: no results array")
            << rerank << QByteArray(R"({"object":"list","usage":{"prompt_tokens":5}})") << 1
            << QStringLiteral("rerank response without a \"results\" array");
        QTest::newRow("score: simulator") << score << simBody(sim::Endpoint::Score, 3) << 3 << QString();
        QTest::newRow("score: more scores than texts") << score << simBody(sim::Endpoint::Score, 4) << 3
                                                       << QStringLiteral("score response with 4 scores for 3 texts");
        QTest::newRow("score: a rerank answer") << score << simBody(sim::Endpoint::Rerank, 3) << 3
                                                << QStringLiteral("score response without a \"data\" array");
    }
    void rerankResponseDecoded()
    {
        QFETCH(int, api);
        QFETCH(QByteArray, body);
        QFETCH(int, documents);
        QFETCH(QString, failure);
        RequestRecord r;
        r.inputs = documents;
        StreamDecoder decoder{ApiKind(api)};
        decoder.begin(&r);
        decoder.onBody(body.toStdString(), 1);
        decoder.finish(99, TokenSource::Estimate);
        QCOMPARE(decoder.failed(), !failure.isEmpty());
        if (!failure.isEmpty()) {
            QCOMPARE(decoder.failure(), RequestStatus::Protocol);
            QVERIFY2(r.errorMessage.startsWith(failure), qPrintable(r.errorMessage));
            return;
        }
        QVERIFY(decoder.complete());
        QCOMPARE(r.promptTokens, std::int64_t(12));
        QCOMPARE(r.completionTokens, std::int64_t(0));
    }

    /// Each API's own error event in a stream (the simulator fails before its stream starts).
    void errorEventIsTheServers_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QByteArray>("event");
        QTest::addColumn<QByteArray>("data");
        const QByteArray openAi = R"({"error":{"message":"The server is busy","type":"server_error"}})";
        QTest::newRow("openai-chat") << int(ApiKind::OpenAIChat) << QByteArray() << openAi;
        QTest::newRow("openai-completions") << int(ApiKind::OpenAICompletions) << QByteArray() << openAi;
        QTest::newRow("anthropic-messages")
            << int(ApiKind::AnthropicMessages) << QByteArray("error")
            << QByteArray(R"({"type":"error","error":{"type":"overloaded_error","message":"The server is busy"}})");
        QTest::newRow("openai-responses")
            << int(ApiKind::OpenAIResponses) << QByteArray("error")
            << QByteArray(R"({"type":"error","code":"server_error","message":"The server is busy","param":null})");
    }
    void errorEventIsTheServers()
    {
        QFETCH(int, api);
        QFETCH(QByteArray, event);
        QFETCH(QByteArray, data);
        RequestRecord r;
        StreamDecoder decoder{ApiKind(api)};
        decoder.begin(&r);
        decoder.onEvent(event.toStdString(), data.toStdString(), 1);
        QVERIFY(decoder.failed());
        QCOMPARE(decoder.failure(), RequestStatus::ServerError);
        QVERIFY2(r.errorMessage.contains(QLatin1String("The server is busy")), qPrintable(r.errorMessage));
    }
};

QTEST_GUILESS_MAIN(TestApiDialect)
#include "tst_apidialect.moc"
