// Structured output (--response-format, docs/metrics.md "Structured output"): the request bodies
// of each API and the simulator reading them back, the simulator's replies valid for their schema
// and broken at an exact share, the decoder's check of a reply, and a run end to end.
#include "api/requestbuilder.h"
#include "api/streamdecoder.h"
#include "formats/jsonschema.h"
#include "results/rundirectory.h"
#include "sim/schemaoutput.h"
#include "sim/simconfig.h"
#include "sim/simprotocol.h"
#include "sim/simulatorhost.h"

#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

using namespace tb;

Q_DECLARE_METATYPE(tb::ApiKind)
Q_DECLARE_METATYPE(tb::OutputCheck)

namespace {

const char kPersonSchema[] =
    R"({"type": "object", "properties": {"name": {"type": "string", "minLength": 2, "maxLength": 5}, )"
    R"("age": {"type": "integer", "minimum": 18, "maximum": 20}, "tags": {"type": "array", "items": )"
    R"({"enum": ["a", "b"]}, "minItems": 2, "maxItems": 2}, "note": {"type": ["null", "string"]}, )"
    R"("ratio": {"type": "number", "minimum": 0.5, "maximum": 1.5}, "ok": {"type": "boolean"}, )"
    R"("kind": {"const": "person"}, "id": {"type": "integer"}}, "required": ["name", "age", "id"], )"
    R"("additionalProperties": false})";

nlohmann::json personSchema()
{
    return nlohmann::json::parse(kPersonSchema);
}

/// A chat stream whose content is `reply`, cut into pieces of `piece` bytes.
RequestRecord decodeChatReply(const std::string &reply, std::size_t piece, const JsonSchema *schema)
{
    RequestRecord r;
    StreamDecoder d(ApiKind::OpenAIChat);
    d.checkOutput(schema);
    d.begin(&r);
    for (std::size_t at = 0; at < reply.size(); at += piece) {
        const nlohmann::json event = {{"choices", {{{"delta", {{"content", reply.substr(at, piece)}}}}}}};
        d.onEvent({}, event.dump(), std::int64_t(at));
    }
    d.onEvent({}, R"({"choices": [{"delta": {}, "finish_reason": "stop"}]})", 1);
    d.onEvent({}, "[DONE]", 2);
    d.finish(1, TokenSource::Estimate);
    return r;
}

} // namespace

class TestStructuredOutput : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// Each API's body asks in its own shape, and the simulator reads the same schema back.
    void bodies_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<bool>("withSchema");
        QTest::addColumn<QString>("schemaPath"); // where the body holds it ("/" separated)
        QTest::addColumn<int>("endpoint");
        QTest::newRow("chat json_schema")
            << ApiKind::OpenAIChat << true << QStringLiteral("response_format/json_schema/schema")
            << int(sim::Endpoint::Chat);
        QTest::newRow("chat json_object")
            << ApiKind::OpenAIChat << false << QStringLiteral("response_format/type") << int(sim::Endpoint::Chat);
        QTest::newRow("completions json_schema")
            << ApiKind::OpenAICompletions << true << QStringLiteral("response_format/json_schema/schema")
            << int(sim::Endpoint::Completions);
        QTest::newRow("responses json_schema") << ApiKind::OpenAIResponses << true
                                               << QStringLiteral("text/format/schema") << int(sim::Endpoint::Responses);
        QTest::newRow("responses json_object")
            << ApiKind::OpenAIResponses << false << QStringLiteral("text/format/type") << int(sim::Endpoint::Responses);
        QTest::newRow("anthropic json_schema")
            << ApiKind::AnthropicMessages << true << QStringLiteral("output_config/format/schema")
            << int(sim::Endpoint::Messages);
    }
    void bodies()
    {
        QFETCH(ApiKind, api);
        QFETCH(bool, withSchema);
        QFETCH(QString, schemaPath);
        QFETCH(int, endpoint);
        QTemporaryDir dir;
        const QString file = test::writeFile(dir, QStringLiteral("my person.json"), kPersonSchema);
        TargetConfig target;
        target.api = api;
        target.url = QStringLiteral("http://127.0.0.1:8000/v1");
        target.model = QStringLiteral("default");
        RequestConfig request;
        request.responseFormat = withSchema ? QStringLiteral("json_schema:") + file : QStringLiteral("json_object");
        QString error;
        const auto builder = RequestBuilder::create(target, request, &error);
        QVERIFY2(builder, qPrintable(error));
        QVERIFY(builder->checksOutput());
        QCOMPARE(builder->outputSchema() != nullptr, withSchema);
        Prompt prompt;
        prompt.user = "Hello";
        const nlohmann::json body = builder->body(prompt);
        const nlohmann::json at = body.at(nlohmann::json::json_pointer("/" + schemaPath.toStdString()));
        QVERIFY2(at == (withSchema ? personSchema() : nlohmann::json("json_object")), at.dump().c_str());
        if (withSchema && api != ApiKind::AnthropicMessages) {
            const std::string name =
                api == ApiKind::OpenAIResponses ? "/text/format/name" : "/response_format/json_schema/name";
            QCOMPARE(body.at(nlohmann::json::json_pointer(name)).get<std::string>(), std::string("my_person"));
        }

        const auto parsed = sim::parseGenerationRequest(sim::Endpoint(endpoint), builder->bodyText(prompt), {});
        const auto *refused = std::get_if<sim::ApiError>(&parsed);
        QVERIFY2(!refused, refused ? refused->message.c_str() : "");
        const auto &read = std::get<sim::GenerationRequest>(parsed);
        QVERIFY(read.jsonOutput);
        QVERIFY2(read.outputSchema == (withSchema ? personSchema() : nlohmann::json()),
                 read.outputSchema.dump().c_str());
    }

    void refusedFormats_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QByteArray>("schema"); // written to schema.json
        QTest::addColumn<QString>("problem");
        QTest::newRow("unknown kind") << ApiKind::OpenAIChat << QStringLiteral("json") << QByteArray()
                                      << QStringLiteral("'json' is not json_object or json_schema:FILE");
        QTest::newRow("schema without file") << ApiKind::OpenAIChat << QStringLiteral("json_schema:") << QByteArray()
                                             << QStringLiteral("is not json_object or json_schema:FILE");
        QTest::newRow("anthropic without schema")
            << ApiKind::AnthropicMessages << QStringLiteral("json_object") << QByteArray()
            << QStringLiteral("Anthropic's messages API has no JSON mode without a schema");
        QTest::newRow("missing file") << ApiKind::OpenAIChat << QStringLiteral("json_schema:DIR/none.json")
                                      << QByteArray() << QStringLiteral("none.json: ");
        QTest::newRow("not JSON") << ApiKind::OpenAIChat << QStringLiteral("json_schema:DIR/schema.json")
                                  << QByteArray("{type: object}") << QStringLiteral("schema.json: ");
        QTest::newRow("malformed schema")
            << ApiKind::OpenAIChat << QStringLiteral("json_schema:DIR/schema.json") << QByteArray(R"({"type": "text"})")
            << QStringLiteral("schema.json: type: not a JSON type");
    }
    void refusedFormats()
    {
        QFETCH(ApiKind, api);
        QFETCH(QString, format);
        QFETCH(QByteArray, schema);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        if (!schema.isEmpty())
            test::writeFile(dir, QStringLiteral("schema.json"), schema);
        RunConfig c;
        c.target.api = api;
        c.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
        c.target.model = QStringLiteral("default");
        c.request.responseFormat = format.replace(QStringLiteral("DIR"), dir.path());
        // The syntax is the configuration's to refuse, the file the request builder's (the run's start).
        QString why = validate(c).join(QLatin1Char('\n'));
        if (why.isEmpty()) {
            QVERIFY(!RequestBuilder::create(c.target, c.request, &why));
        }
        QVERIFY2(why.contains(problem), qPrintable(why));
        QVERIFY2(why.startsWith(QStringLiteral("request.response_format (--response-format): ")), qPrintable(why));
    }

    /// Whatever the seed, the simulator's reply is valid for its schema; broken, it is not JSON.
    void simulatorRepliesAreValid_data()
    {
        QTest::addColumn<QByteArray>("schema"); // empty: json_object
        QTest::newRow("json_object") << QByteArray();
        QTest::newRow("person") << QByteArray(kPersonSchema);
        QTest::newRow("array root") << QByteArray(R"({"type": "array", "items": {"type": "integer"}, "minItems": 1})");
        QTest::newRow("nested") << QByteArray(
            R"({"properties": {"a": {"properties": {"b": {"type": "array", "items": {"type": "boolean"}}}}}})");
        QTest::newRow("string root") << QByteArray(R"({"type": "string", "minLength": 7})");
        QTest::newRow("number root") << QByteArray(R"({"type": "number", "minimum": -3, "maximum": -2})");
        QTest::newRow("null root") << QByteArray(R"({"type": "null"})");
    }
    void simulatorRepliesAreValid()
    {
        QFETCH(QByteArray, schema);
        const nlohmann::json json = schema.isEmpty() ? nlohmann::json() : nlohmann::json::parse(schema.toStdString());
        QString why;
        const auto compiled = JsonSchema::compile(json.is_null() ? nlohmann::json(true) : json, &why);
        QVERIFY2(compiled, qPrintable(why));
        for (quint64 seed = 1; seed <= 200; ++seed) {
            std::string text = sim::SchemaOutput::generate(json, seed);
            QCOMPARE(text, sim::SchemaOutput::generate(json, seed)); // the seed decides
            const auto parsed = parseJsonBounded(QByteArray::fromStdString(text), &why);
            QVERIFY2(parsed, qPrintable(why));
            const QString violation = compiled->violation(*parsed);
            QVERIFY2(violation.isEmpty(), qPrintable(violation + QStringLiteral(" in ") + fromStd(text)));
            sim::SchemaOutput::breakJson(text);
            QVERIFY2(!parseJsonBounded(QByteArray::fromStdString(text), nullptr), text.c_str());
        }
    }

    void brokenShareIsExact_data()
    {
        QTest::addColumn<double>("rate");
        QTest::addColumn<int>("requests");
        QTest::addColumn<int>("broken");
        QTest::newRow("none") << 0.0 << 50 << 0;
        QTest::newRow("a quarter") << 0.25 << 40 << 10;
        QTest::newRow("0.29 of 100 (28.999… in floating point)") << 0.29 << 100 << 29;
        QTest::newRow("too few for one") << 0.1 << 9 << 0;
        QTest::newRow("all") << 1.0 << 17 << 17;
    }
    void brokenShareIsExact()
    {
        QFETCH(double, rate);
        QFETCH(int, requests);
        QFETCH(int, broken);
        int got = 0;
        for (int k = 1; k <= requests; ++k)
            got += sim::SchemaOutput::brokenAt(quint64(k), rate) ? 1 : 0;
        QCOMPARE(got, broken);
    }

    /// The decoder's verdict on a reply, however its stream cuts it.
    void decoderCheck_data()
    {
        QTest::addColumn<QByteArray>("reply");
        QTest::addColumn<bool>("withSchema");
        QTest::addColumn<OutputCheck>("check");
        QTest::newRow("valid") << QByteArray(R"({"name": "Ada", "age": 19, "id": 1})") << true << OutputCheck::Valid;
        QTest::newRow("valid with white space")
            << QByteArray(" \n{\"name\": \"Ada\", \"age\": 19, \"id\": 1}\n") << true << OutputCheck::Valid;
        QTest::newRow("schema-invalid") << QByteArray(R"({"name": "Ada", "age": 30, "id": 1})") << true
                                        << OutputCheck::SchemaInvalid;
        QTest::newRow("cut short") << QByteArray(R"({"name": "Ada", "age": 19)") << true << OutputCheck::NotJson;
        QTest::newRow("prose") << QByteArray("Sure! Here is the JSON: {}") << false << OutputCheck::NotJson;
        QTest::newRow("key twice") << QByteArray(R"({"a": 1, "a": 2})") << false << OutputCheck::NotJson;
        QTest::newRow("json_object takes any JSON") << QByteArray("[1, 2]") << false << OutputCheck::Valid;
        QTest::newRow("nested past 64") << QByteArray(100, '[') + QByteArray(100, ']') << false << OutputCheck::NotJson;
        QTest::newRow("longer than kept")
            << QByteArray("\"" + QByteArray(qsizetype(StreamDecoder::kMaxReplyBytes), 'x') + "\"") << false
            << OutputCheck::NotChecked;
    }
    void decoderCheck()
    {
        QFETCH(QByteArray, reply);
        QFETCH(bool, withSchema);
        QFETCH(OutputCheck, check);
        const auto schema = JsonSchema::compile(personSchema(), nullptr);
        for (const std::size_t piece : {std::size_t(1) << 20, std::size_t(7), std::size_t(1)}) {
            if (piece == 1 && reply.size() > 1000)
                continue; // a byte a chunk: slow for the long one, and no different
            const RequestRecord r = decodeChatReply(reply.toStdString(), piece, withSchema ? &*schema : nullptr);
            QVERIFY(r.ok());
            QCOMPARE(int(r.outputCheck), int(check));
        }
    }

    /// The simulator breaks exactly ⌊n·rate⌋ of n replies; `run` counts them as a quality figure:
    /// every request is still ok, and the quality-qualified goodput counts the others.
    void endToEnd_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<bool>("stream");
        QTest::newRow("chat, streamed") << QStringLiteral("openai-chat") << true;
        QTest::newRow("chat, whole") << QStringLiteral("openai-chat") << false;
        QTest::newRow("responses, streamed") << QStringLiteral("openai-responses") << true;
        QTest::newRow("anthropic, streamed") << QStringLiteral("anthropic-messages") << true;
    }
    void endToEnd()
    {
        QFETCH(QString, api);
        QFETCH(bool, stream);
        sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
        config.outputTokens = 24;
        config.invalidJsonRate = 0.25;
        const auto host = test::startSimulator(config);
        QVERIFY(host);
        QTemporaryDir dir;
        const QString schema = test::writeFile(dir, QStringLiteral("person.json"), kPersonSchema);
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult cli = runCli(
            {QStringLiteral("run"), QStringLiteral("--api"), api, QStringLiteral("--url"), host->baseUrl().toString(),
             QStringLiteral("--model"), host->config().model, QStringLiteral("--quiet"), QStringLiteral("--requests"),
             QStringLiteral("24"), QStringLiteral("--concurrency"), QStringLiteral("4"),
             stream ? QStringLiteral("--stream") : QStringLiteral("--no-stream"), QStringLiteral("--response-format"),
             QStringLiteral("json_schema:") + schema, QStringLiteral("--out"), out});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QString error;
        const std::optional<RunData> run = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->summary.total.requests.ok, 24);
        const auto &s = run->summary.total.structuredOutput;
        QVERIFY(s);
        QCOMPARE(s->requests, 24);
        QCOMPARE(s->checked(), 24);
        QCOMPARE(s->validJson, 18);
        QCOMPARE(s->schemaValid, 18);
        QCOMPARE(s->qualifiedGood, 18);
        QCOMPARE(s->schemaValidShare(), 0.75);
        int valid = 0;
        for (const RequestRecord &r : run->records) {
            QVERIFY(r.outputCheck == OutputCheck::Valid || r.outputCheck == OutputCheck::NotJson);
            valid += r.outputCheck == OutputCheck::Valid ? 1 : 0;
        }
        QCOMPARE(valid, 18);
    }
};

QTEST_GUILESS_MAIN(TestStructuredOutput)
#include "tst_structuredoutput.moc"
