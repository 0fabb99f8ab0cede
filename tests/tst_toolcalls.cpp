// Tool calling (--tools, --tool-choice; docs/metrics.md "Tool calls"): each API's tools and
// tool_choice in its request body and the simulator reading them back, the refusals, the decoding
// of tool calls streamed and whole in each API's shape (their text is not content: TTFT waits
// for content, the first tool-call token has its own stamp), and runs end to end against the
// simulator breaking an exact share of the calls' arguments; the agent loop (--turns with --tools):
// each API's history of calls and results, the simulator reading it back, exact prompt growth.
#include "api/apidialect.h"
#include "api/requestbuilder.h"
#include "api/streamdecoder.h"
#include "api/toolset.h"
#include "results/rundirectory.h"
#include "sim/simconfig.h"
#include "sim/simprotocol.h"
#include "sim/simulatorhost.h"
#include "tokenize/tokenizer.h"

#include <QTemporaryDir>
#include <QTest>

#include <map>

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

using namespace tb;

Q_DECLARE_METATYPE(tb::ApiKind)
Q_DECLARE_METATYPE(tb::ToolCallCheck)

namespace {

const char kTools[] =
    R"([{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city", )"
    R"("parameters": {"type": "object", "properties": {"city": {"type": "string", "minLength": 2}, )"
    R"("days": {"type": "integer", "minimum": 1, "maximum": 7}}, "required": ["city", "days"], )"
    R"("additionalProperties": false}}}, )"
    R"({"type": "function", "function": {"name": "add", "parameters": {"type": "object", "properties": )"
    R"({"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}}])";

/// One tool whose arguments the simulator always writes alike: {"city":"Paris"} (its const).
const char kCityTool[] = R"([{"type": "function", "function": {"name": "get_weather", "parameters": )"
                         R"({"type": "object", "properties": {"city": {"const": "Paris"}}, "required": ["city"]}}}])";

nlohmann::json weatherParameters()
{
    return nlohmann::json::parse(kTools)[0]["function"]["parameters"];
}

std::optional<RequestBuilder> builderFor(ApiKind api, const QString &tools, const QString &choice, QString *error)
{
    TargetConfig target;
    target.api = api;
    target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    target.model = QStringLiteral("default");
    RequestConfig request;
    request.tools = tools;
    request.toolChoice = choice;
    return RequestBuilder::create(target, request, error);
}

/// Decodes `events` (SSE data; streamed) or a whole body, each event read at 10 ms × its place;
/// keepReply: as a conversation's turn (the reply and its calls kept).
RequestRecord decode(ApiKind api, const QStringList &events, bool stream, const ToolSet *tools, bool keepReply = false)
{
    RequestRecord r;
    r.sentNs = 1'000'000;
    StreamDecoder d(api, nullptr, keepReply);
    d.checkToolCalls(tools);
    d.begin(&r);
    std::int64_t t = r.sentNs;
    for (const QString &e : events) {
        t += 10'000'000;
        const std::string data = e.toStdString();
        if (stream)
            d.onEvent({}, data, t);
        else
            d.onBody(data, t);
    }
    r.doneNs = t;
    if (d.failed())
        r.status = d.failure(); // as the transport would record it
    d.finish(1, TokenSource::Estimate);
    return r;
}

/// decoding()'s rows. The arguments' quotes are \u0022: moc (Qt 6.4) lexes a raw string's \" as an
/// escaped quote and then finds no test class in the file.
void addDecodingRows()
{
    QTest::addColumn<ApiKind>("api");
    QTest::addColumn<bool>("stream");
    QTest::addColumn<QStringList>("events");
    QTest::addColumn<int>("calls");
    QTest::addColumn<ToolCallCheck>("check");
    QTest::addColumn<double>("firstToolCallMs"); // -1: none
    QTest::addColumn<double>("ttftMs");          // -1: none
    const auto chatCall = [](const char *fragment) {
        return QStringLiteral(R"({"choices": [{"index": 0, "delta": {"tool_calls": [%1]}, "finish_reason": null}]})")
            .arg(QLatin1String(fragment));
    };
    const QString chatEnd =
        QStringLiteral(R"({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})");
    QTest::newRow("chat stream, valid")
        << ApiKind::OpenAIChat << true
        << QStringList{QStringLiteral(
                           R"({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}}]})"),
                       chatCall(
                           R"({"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}})"),
                       chatCall(R"({"index": 0, "function": {"arguments": "{\u0022city\u0022: \u0022Pa"}})"),
                       chatCall(R"({"index": 0, "function": {"arguments": "ris\u0022, \u0022days\u0022: 3}"}})"),
                       chatEnd,
                       QStringLiteral("[DONE]")}
        << 1 << ToolCallCheck::Valid << 20.0 << -1.0;
    QTest::newRow("chat stream, two calls, one not JSON")
        << ApiKind::OpenAIChat << true
        << QStringList{chatCall(
                           R"({"index": 0, "function": {"name": "add", "arguments": "{\u0022a\u0022: 1, \u0022b\u0022: 2}"}})"),
                       chatCall(R"({"index": 1, "function": {"name": "add", "arguments": "{\u0022a\u0022: 1,"}})"),
                       chatEnd, QStringLiteral("[DONE]")}
        << 2 << ToolCallCheck::InvalidJson << 10.0 << -1.0;
    QTest::newRow("chat stream, content then a call")
        << ApiKind::OpenAIChat << true
        << QStringList{QStringLiteral(R"({"choices": [{"index": 0, "delta": {"content": "Let me look."}}]})"),
                       chatCall(
                           R"({"index": 0, "function": {"name": "get_weather", "arguments": "{\u0022city\u0022: \u0022Paris\u0022, \u0022days\u0022: 9}"}})"),
                       chatEnd, QStringLiteral("[DONE]")}
        << 1 << ToolCallCheck::SchemaMismatch << 20.0 << 10.0;
    QTest::newRow("chat stream, an unknown tool")
        << ApiKind::OpenAIChat << true
        << QStringList{chatCall(R"({"index": 0, "function": {"name": "search", "arguments": "{}"}})"), chatEnd,
                       QStringLiteral("[DONE]")}
        << 1 << ToolCallCheck::SchemaMismatch << 10.0 << -1.0;
    QTest::newRow("chat stream, no call")
        << ApiKind::OpenAIChat << true
        << QStringList{QStringLiteral(R"({"choices": [{"index": 0, "delta": {"content": "Sunny."}}]})"),
                       QStringLiteral(R"({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})"),
                       QStringLiteral("[DONE]")}
        << 0 << ToolCallCheck::None << -1.0 << 10.0;
    QTest::newRow("chat whole")
        << ApiKind::OpenAIChat << false
        << QStringList{QStringLiteral(
               R"({"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": )"
               R"([{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\u0022city\u0022: \u0022Oslo\u0022, \u0022days\u0022: 1}"}}]}, )"
               R"("finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 5, "completion_tokens": 9}})")}
        << 1 << ToolCallCheck::Valid << -1.0 << -1.0;
    const auto event = [](const char *json) { return QString::fromUtf8(json); };
    QTest::newRow("responses stream")
        << ApiKind::OpenAIResponses << true
        << QStringList{event(
                           R"({"type": "response.output_item.added", "output_index": 0, "item": {"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1", "name": "get_weather"}})"),
                       event(
                           R"({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{\u0022city\u0022: \u0022Rome\u0022,"})"),
                       event(
                           R"({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": " \u0022days\u0022: 2}"})"),
                       event(
                           R"({"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": "{\u0022city\u0022: \u0022Rome\u0022, \u0022days\u0022: 2}"})"),
                       event(
                           R"({"type": "response.output_item.done", "output_index": 0, "item": {"id": "fc_1", "type": "function_call", "status": "completed", "arguments": "{\u0022city\u0022: \u0022Rome\u0022, \u0022days\u0022: 2}", "call_id": "call_1", "name": "get_weather"}})"),
                       event(
                           R"({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [], "usage": {"input_tokens": 5, "output_tokens": 9}}})")}
        << 1 << ToolCallCheck::Valid << 10.0 << -1.0;
    QTest::newRow("responses stream, arguments in done only")
        << ApiKind::OpenAIResponses << true
        << QStringList{event(
                           R"({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "arguments": "", "name": "add"}})"),
                       event(
                           R"({"type": "response.function_call_arguments.done", "output_index": 1, "arguments": "{\u0022a\u0022: 1}"})"),
                       event(R"({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}})")}
        << 1 << ToolCallCheck::SchemaMismatch << 10.0 << -1.0;
    QTest::newRow("responses whole")
        << ApiKind::OpenAIResponses << false
        << QStringList{event(
               R"({"id": "resp_1", "status": "completed", "output": [{"type": "function_call", "id": "fc_1", "call_id": "c", "name": "get_weather", "arguments": "{\u0022city\u0022: \u0022Rome\u0022"}], "usage": {"input_tokens": 5, "output_tokens": 9}})")}
        << 1 << ToolCallCheck::InvalidJson << -1.0 << -1.0;
    QTest::newRow("anthropic stream")
        << ApiKind::AnthropicMessages << true
        << QStringList{event(
                           R"({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}}})"),
                       event(
                           R"({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}})"),
                       event(
                           R"({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": ""}})"),
                       event(
                           R"({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\u0022city\u0022: \u0022Lima\u0022, "}})"),
                       event(
                           R"({"type": "content_block_delta", "delta": {"type": "input_json_delta", "partial_json": "\u0022days\u0022: 7}"}, "index": 0})"),
                       event(R"({"type": "content_block_stop", "index": 0})"),
                       event(
                           R"({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}})"),
                       event(R"({"type": "message_stop"})")}
        << 1 << ToolCallCheck::Valid << 20.0 << -1.0;
    QTest::newRow("anthropic whole")
        << ApiKind::AnthropicMessages << false
        << QStringList{event(
               R"({"id": "msg_1", "type": "message", "content": [{"type": "text", "text": "Checking."}, )"
               R"({"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Lima", "days": 0}}], )"
               R"("stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 9}})")}
        << 1 << ToolCallCheck::SchemaMismatch << -1.0 << -1.0;
}

} // namespace

class TestToolCalls : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    /// Each API's body offers the tools and the choice in its own shape, and the simulator reads
    /// which tool its reply is to call.
    void bodies_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<int>("endpoint");
        QTest::addColumn<QString>("choice");
        QTest::addColumn<QByteArray>("toolAt0");    // the first tool in the body
        QTest::addColumn<QByteArray>("sentChoice"); // tool_choice in the body; empty: none sent
        QTest::addColumn<QString>("called");        // the tool the simulator calls; empty: none
        const QByteArray chatTool = QByteArray(R"({"type": "function", "function": {"name": "get_weather", )") +
                                    R"("description": "Weather of a city", "parameters": )" +
                                    QByteArray::fromStdString(weatherParameters().dump()) + "}}";
        const QByteArray flatTool = QByteArray(R"({"type": "function", "name": "get_weather", )") +
                                    R"("description": "Weather of a city", "parameters": )" +
                                    QByteArray::fromStdString(weatherParameters().dump()) + "}";
        const QByteArray anthropicTool = QByteArray(R"({"name": "get_weather", "description": "Weather of a city", )") +
                                         R"("input_schema": )" + QByteArray::fromStdString(weatherParameters().dump()) +
                                         "}";
        const int chat = int(sim::Endpoint::Chat);
        const int responses = int(sim::Endpoint::Responses);
        const int messages = int(sim::Endpoint::Messages);
        QTest::newRow("chat, default") << ApiKind::OpenAIChat << chat << QString() << chatTool << QByteArray()
                                       << QStringLiteral("get_weather");
        QTest::newRow("chat, auto") << ApiKind::OpenAIChat << chat << QStringLiteral("auto") << chatTool
                                    << QByteArray(R"("auto")") << QStringLiteral("get_weather");
        QTest::newRow("chat, required") << ApiKind::OpenAIChat << chat << QStringLiteral("required") << chatTool
                                        << QByteArray(R"("required")") << QStringLiteral("get_weather");
        QTest::newRow("chat, none") << ApiKind::OpenAIChat << chat << QStringLiteral("none") << chatTool
                                    << QByteArray(R"("none")") << QString();
        QTest::newRow("chat, named") << ApiKind::OpenAIChat << chat << QStringLiteral("add") << chatTool
                                     << QByteArray(R"({"type": "function", "function": {"name": "add"}})")
                                     << QStringLiteral("add");
        QTest::newRow("responses, required")
            << ApiKind::OpenAIResponses << responses << QStringLiteral("required") << flatTool
            << QByteArray(R"("required")") << QStringLiteral("get_weather");
        QTest::newRow("responses, named")
            << ApiKind::OpenAIResponses << responses << QStringLiteral("add") << flatTool
            << QByteArray(R"({"type": "function", "name": "add"})") << QStringLiteral("add");
        QTest::newRow("responses, none") << ApiKind::OpenAIResponses << responses << QStringLiteral("none") << flatTool
                                         << QByteArray(R"("none")") << QString();
        QTest::newRow("anthropic, auto") << ApiKind::AnthropicMessages << messages << QStringLiteral("auto")
                                         << anthropicTool << QByteArray(R"({"type": "auto"})")
                                         << QStringLiteral("get_weather");
        QTest::newRow("anthropic, required")
            << ApiKind::AnthropicMessages << messages << QStringLiteral("required") << anthropicTool
            << QByteArray(R"({"type": "any"})") << QStringLiteral("get_weather");
        QTest::newRow("anthropic, none") << ApiKind::AnthropicMessages << messages << QStringLiteral("none")
                                         << anthropicTool << QByteArray(R"({"type": "none"})") << QString();
        QTest::newRow("anthropic, named")
            << ApiKind::AnthropicMessages << messages << QStringLiteral("add") << anthropicTool
            << QByteArray(R"({"type": "tool", "name": "add"})") << QStringLiteral("add");
    }
    void bodies()
    {
        QFETCH(ApiKind, api);
        QFETCH(int, endpoint);
        QFETCH(QString, choice);
        QFETCH(QByteArray, toolAt0);
        QFETCH(QByteArray, sentChoice);
        QFETCH(QString, called);
        QTemporaryDir dir;
        const QString file = test::writeFile(dir, QStringLiteral("tools.json"), kTools);
        QString error;
        const auto builder = builderFor(api, file, choice, &error);
        QVERIFY2(builder, qPrintable(error));
        QVERIFY(builder->toolSet());
        QCOMPARE(builder->toolSet()->tools().size(), std::size_t(2));
        Prompt prompt;
        prompt.user = "What is the weather in Paris?";
        const nlohmann::json body = builder->body(prompt);
        QCOMPARE(body.at("tools").size(), std::size_t(2));
        QVERIFY2(body.at("tools")[0] == nlohmann::json::parse(toolAt0.toStdString()),
                 body.at("tools")[0].dump().c_str());
        if (sentChoice.isEmpty())
            QVERIFY(!body.contains("tool_choice"));
        else
            QVERIFY2(body.at("tool_choice") == nlohmann::json::parse(sentChoice.toStdString()),
                     body.at("tool_choice").dump().c_str());

        const auto parsed = sim::parseGenerationRequest(sim::Endpoint(endpoint), builder->bodyText(prompt), {});
        const auto *refused = std::get_if<sim::ApiError>(&parsed);
        QVERIFY2(!refused, refused ? refused->message.c_str() : "");
        const auto &read = std::get<sim::GenerationRequest>(parsed);
        QCOMPARE(read.toolCall, !called.isEmpty());
        QCOMPARE(fromStd(read.toolName), called);
        if (called == QLatin1String("get_weather"))
            QVERIFY(read.toolParameters == weatherParameters());
    }

    /// Nonsense is refused before any request, with the flag named.
    void refused_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<QByteArray>("file"); // written to tools.json; empty: no --tools
        QTest::addColumn<QString>("choice");
        QTest::addColumn<QString>("problem");
        QTest::newRow("completions") << ApiKind::OpenAICompletions << QByteArray(kTools) << QString()
                                     << QStringLiteral(
                                            "request.tools (--tools): the openai-completions API has no tools");
        QTest::newRow("embeddings") << ApiKind::OpenAIEmbeddings << QByteArray(kTools) << QString()
                                    << QStringLiteral(
                                           "request.tools (--tools): the openai-embeddings API has no tools");
        QTest::newRow("choice without tools")
            << ApiKind::OpenAIChat << QByteArray() << QStringLiteral("auto")
            << QStringLiteral("request.tool_choice (--tool-choice): chooses among the tools of --tools");
        QTest::newRow("choice not a name")
            << ApiKind::OpenAIChat << QByteArray(kTools) << QStringLiteral("get weather")
            << QStringLiteral("request.tool_choice (--tool-choice): 'get weather' is not");
        QTest::newRow("choice not in the file")
            << ApiKind::OpenAIChat << QByteArray(kTools) << QStringLiteral("search")
            << QStringLiteral("request.tools (--tools): tool_choice 'search' is not a tool of");
        QTest::newRow("not an array") << ApiKind::OpenAIChat << QByteArray(R"({"type": "function"})") << QString()
                                      << QStringLiteral("tools.json: not a non-empty array of tools");
        QTest::newRow("empty") << ApiKind::OpenAIChat << QByteArray("[]") << QString()
                               << QStringLiteral("tools.json: not a non-empty array of tools");
        QTest::newRow("name twice") << ApiKind::OpenAIChat
                                    << QByteArray(R"([{"type": "function", "function": {"name": "a"}}, )"
                                                  R"({"type": "function", "function": {"name": "a"}}])")
                                    << QString() << QStringLiteral("tools.json: [1].function.name: 'a' is given twice");
        QTest::newRow("bad name") << ApiKind::OpenAIChat
                                  << QByteArray(R"([{"type": "function", "function": {"name": "a b"}}])") << QString()
                                  << QStringLiteral("[0].function.name: not 1 to 64 letters");
        QTest::newRow("not a function") << ApiKind::OpenAIChat
                                        << QByteArray(R"([{"type": "web_search", "function": {"name": "a"}}])")
                                        << QString() << QStringLiteral("[0]: not {\"type\": \"function\"");
        QTest::newRow("bad parameters")
            << ApiKind::OpenAIChat
            << QByteArray(R"([{"type": "function", "function": {"name": "a", "parameters": {"type": "text"}}}])")
            << QString() << QStringLiteral("[0].function.parameters: type: not a JSON type");
        QByteArray many = "[";
        for (int i = 0; i <= int(ToolSet::kMaxTools); ++i)
            many += (i ? "," : "") + QByteArray(R"({"type": "function", "function": {"name": "t)") +
                    QByteArray::number(i) + "\"}}";
        QTest::newRow("too many") << ApiKind::OpenAIChat << many + "]" << QString()
                                  << QStringLiteral("tools.json: 129 tools, more than 128");
        QTest::newRow("too large") << ApiKind::OpenAIChat
                                   << QByteArray(
                                          R"([{"type": "function", "function": {"name": "a", "description": ")") +
                                          QByteArray(qsizetype(ToolSet::kMaxFileBytes), 'x') + "\"}}]"
                                   << QString() << QStringLiteral("tools.json: ");
    }
    void refused()
    {
        QFETCH(ApiKind, api);
        QFETCH(QByteArray, file);
        QFETCH(QString, choice);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        RunConfig c;
        c.target.api = api;
        c.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
        c.target.model = QStringLiteral("default");
        if (!file.isEmpty())
            c.request.tools = test::writeFile(dir, QStringLiteral("tools.json"), file);
        c.request.toolChoice = choice;
        // The flags are the configuration's to refuse, the file the request builder's (the run's start).
        QString why = validate(c).join(QLatin1Char('\n'));
        if (why.isEmpty())
            QVERIFY(!RequestBuilder::create(c.target, c.request, &why));
        QVERIFY2(why.contains(problem), qPrintable(why));
    }

    /// Tool calls in each API's shape, streamed and whole: counted, checked, stamped apart from
    /// content. Streamed events come 10 ms apart from 1 ms (sent); the first is at 11 ms.
    void decoding_data() { addDecodingRows(); }
    void decoding()
    {
        QFETCH(ApiKind, api);
        QFETCH(bool, stream);
        QFETCH(QStringList, events);
        QFETCH(int, calls);
        QFETCH(ToolCallCheck, check);
        QFETCH(double, firstToolCallMs);
        QFETCH(double, ttftMs);
        QString why;
        const auto tools = ToolSet::fromJson(nlohmann::json::parse(kTools), &why);
        QVERIFY2(tools, qPrintable(why));
        const RequestRecord r = decode(api, events, stream, &*tools);
        QVERIFY2(r.ok(), qPrintable(r.errorMessage));
        QCOMPARE(r.toolCalls, calls);
        QCOMPARE(int(r.toolCallCheck), int(check));
        QCOMPARE(r.firstToolCallMs().value_or(-1), firstToolCallMs);
        QCOMPARE(r.ttftMs().value_or(-1), ttftMs);
        if (stream && calls > 0)
            QVERIFY(r.lastTokenNs >= r.firstToolCallNs); // the calls' text is generated: in the chunks
        // Without --tools nothing is checked, but the calls are still counted (and not content).
        const RequestRecord unchecked = decode(api, events, stream, nullptr);
        QCOMPARE(int(unchecked.toolCallCheck), int(ToolCallCheck::NotAsked));
        QCOMPARE(unchecked.toolCalls, calls);
    }

    /// Regression: llama.cpp (b0, --jinja, tool_choice required) sends a call that max_tokens cut as
    /// plain content with finish reason length; it counted as a request that made no call (`none`)
    /// and as tool-qualified goodput. A required call that never came is `missing`, and not good.
    void requiredCallCutIntoContentIsMissing_data()
    {
        QTest::addColumn<QString>("choice");
        QTest::addColumn<ToolCallCheck>("check");
        QTest::newRow("required") << QStringLiteral("required") << ToolCallCheck::Missing;
        QTest::newRow("a tool named") << QStringLiteral("get_weather") << ToolCallCheck::Missing;
        QTest::newRow("auto") << QStringLiteral("auto") << ToolCallCheck::None;
        QTest::newRow("not sent") << QString() << ToolCallCheck::None;
    }
    void requiredCallCutIntoContentIsMissing()
    {
        QFETCH(QString, choice);
        QFETCH(ToolCallCheck, check);
        QTemporaryDir dir;
        const QString file = test::writeFile(dir, QStringLiteral("tools.json"), kTools);
        QString why;
        const auto tools = ToolSet::load(file, *parseToolChoice(choice), &why);
        QVERIFY2(tools, qPrintable(why));
        // The body llama.cpp sent (abridged: its whitespace, timings and ids).
        const nlohmann::json reply = {
            {"choices",
             {{{"finish_reason", "length"},
               {"index", 0},
               {"message",
                {{"role", "assistant"},
                 {"content", "{\"tool_call\": {\"name\": \"get_weather\", \"arguments\": {\"city\": \"-Agent"}}}}}},
            {"object", "chat.completion"},
            {"usage", {{"completion_tokens", 48}, {"prompt_tokens", 231}}}};
        const QStringList body{QString::fromStdString(reply.dump())};
        const RequestRecord r = decode(ApiKind::OpenAIChat, body, false, &*tools);
        QVERIFY2(r.ok(), qPrintable(r.errorMessage));
        QCOMPARE(r.toolCalls, 0);
        QCOMPARE(int(r.toolCallCheck), int(check));
        QCOMPARE(QString::fromLatin1(toolCallCheckName(r.toolCallCheck)),
                 check == ToolCallCheck::Missing ? QStringLiteral("missing") : QStringLiteral("none"));
    }

    /// With --response-format too, a reply of tool calls alone has no content to check: its
    /// output_check is empty, not invalid_json; content beside the calls is checked.
    void toolCallsAloneAreNoStructuredReply()
    {
        const auto check = [](const QString &content) {
            RequestRecord r;
            StreamDecoder d(ApiKind::OpenAIChat);
            d.checkOutput(nullptr);
            d.begin(&r);
            if (!content.isEmpty())
                d.onEvent({}, nlohmann::json{{"choices", {{{"delta", {{"content", content.toStdString()}}}}}}}.dump(),
                          1);
            d.onEvent(
                {},
                R"({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "add", "arguments": "{}"}}]}}]})",
                2);
            d.onEvent({}, "[DONE]", 3);
            d.finish(1, TokenSource::Estimate);
            return r.outputCheck;
        };
        QCOMPARE(int(check({})), int(OutputCheck::None));
        QCOMPARE(int(check(QStringLiteral("[1, 2]"))), int(OutputCheck::Valid));
        QCOMPARE(int(check(QStringLiteral("Let me add."))), int(OutputCheck::NotJson));
    }

    /// The simulator calls a tool with arguments valid for its parameters, and breaks exactly
    /// ⌊n·rate⌋ of n; `run` counts them as a quality figure (every request still ok). Streamed,
    /// the first tool-call token is stamped and TTFT is empty (no content came).
    void endToEnd_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QString>("choice");
        QTest::addColumn<int>("withCalls");
        for (const char *api : {"openai-chat", "openai-responses", "anthropic-messages"}) {
            for (const bool stream : {true, false})
                QTest::addRow("%s, %s", api, stream ? "streamed" : "whole")
                    << QString::fromLatin1(api) << stream << QStringLiteral("required") << 24;
            QTest::addRow("%s, none", api) << QString::fromLatin1(api) << true << QStringLiteral("none") << 0;
        }
    }
    void endToEnd()
    {
        QFETCH(QString, api);
        QFETCH(bool, stream);
        QFETCH(QString, choice);
        QFETCH(int, withCalls);
        sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
        config.outputTokens = 24;
        config.invalidToolCallRate = 0.25;
        const auto host = test::startSimulator(config);
        QVERIFY(host);
        QTemporaryDir dir;
        const QString tools = test::writeFile(dir, QStringLiteral("tools.json"), kTools);
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult cli = runCli(
            {QStringLiteral("run"), QStringLiteral("--api"), api, QStringLiteral("--url"), host->baseUrl().toString(),
             QStringLiteral("--model"), host->config().model, QStringLiteral("--requests"), QStringLiteral("24"),
             QStringLiteral("--concurrency"), QStringLiteral("4"),
             stream ? QStringLiteral("--stream") : QStringLiteral("--no-stream"), QStringLiteral("--tools"), tools,
             QStringLiteral("--tool-choice"), choice, QStringLiteral("--out"), out});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QString error;
        const std::optional<RunData> run = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->summary.total.requests.ok, 24);
        const auto &t = run->summary.total.toolCalls;
        QVERIFY(t);
        QCOMPARE(t->requests, 24);
        QCOMPARE(t->withCalls, withCalls);
        QCOMPARE(t->calls, withCalls);
        const int valid = withCalls * 3 / 4;
        QCOMPARE(t->valid, valid);
        // Anthropic's whole body has an object for the input: arguments broken on purpose go as a
        // string, which is JSON not valid for the tool's parameters.
        const bool brokenAsString = api == QLatin1String("anthropic-messages") && !stream;
        QCOMPARE(t->invalidJson, brokenAsString ? 0 : withCalls - valid);
        QCOMPARE(t->schemaMismatch, brokenAsString ? withCalls - valid : 0);
        QCOMPARE(t->validShare(), withCalls > 0 ? 0.75 : 0.0);
        QCOMPARE(t->qualifiedGood, 24 - (withCalls - valid));
        QCOMPARE(t->firstToolCallMs.count, std::uint64_t(stream ? withCalls : 0));
        if (withCalls > 0)
            QCOMPARE(t->tokens, run->summary.total.tokens.output);
        QVERIFY2(cli.out.contains(QStringLiteral("tools      %1 of 24 requests made tool calls").arg(withCalls)),
                 qPrintable(cli.out));
        for (const RequestRecord &r : run->records) {
            QCOMPARE(r.toolCalls, withCalls > 0 ? 1 : 0);
            if (withCalls == 0) {
                QCOMPARE(int(r.toolCallCheck), int(ToolCallCheck::None));
                continue;
            }
            QVERIFY(r.toolCallCheck == ToolCallCheck::Valid || r.toolCallCheck == ToolCallCheck::InvalidJson ||
                    r.toolCallCheck == ToolCallCheck::SchemaMismatch);
            QCOMPARE(r.firstToolCallNs >= 0, stream);
            if (stream)
                QVERIFY(r.firstToolCallNs > r.sentNs);
            QVERIFY(!r.ttftMs()); // only a tool call came: no content, no TTFT
            QVERIFY(r.finishReason == QLatin1String("tool_calls") || r.finishReason == QLatin1String("tool_use") ||
                    r.finishReason == QLatin1String("completed"));
        }
    }

    /// A turn after tool calls carries them and one result each in the API's own shape — those of
    /// the official SDKs' types (openai 7.5.0 src/resources/chat/completions/completions.ts:
    /// ChatCompletionAssistantMessageParam, ChatCompletionMessageFunctionToolCall,
    /// ChatCompletionToolMessageParam; src/resources/responses/responses.ts: ResponseFunctionToolCall,
    /// ResponseInputItem.FunctionCallOutput; @anthropic-ai/sdk 0.120.0
    /// src/resources/messages/messages.ts: ToolUseBlockParam, ToolResultBlockParam). The simulator
    /// reads them back as prompt, answers in text under auto and calls again under required, and
    /// refuses a result that answers no call, as each API does.
    void toolTurns_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<int>("endpoint");
        QTest::addColumn<QByteArray>("history"); // after the user's message
        QTest::addColumn<QString>("resultId");   // JSON pointer to the result's call id
        QTest::addColumn<QString>("refusal");
        QTest::newRow("chat")
            << ApiKind::OpenAIChat << int(sim::Endpoint::Chat)
            << QByteArray(R"([{"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": )"
                          R"("function", "function": {"name": "get_weather", "arguments": )"
                          R"("{\u0022city\u0022:\u0022Paris\u0022}"}}]}, )"
                          R"({"role": "tool", "tool_call_id": "call_1", "content": "Sunny all week"}])")
            << QStringLiteral("/2/tool_call_id")
            << QStringLiteral("messages with role 'tool' must be a response to a preceeding message with 'tool_calls'");
        QTest::newRow("responses")
            << ApiKind::OpenAIResponses << int(sim::Endpoint::Responses)
            << QByteArray(R"([{"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": )"
                          R"("{\u0022city\u0022:\u0022Paris\u0022}"}, )"
                          R"({"type": "function_call_output", "call_id": "call_1", "output": "Sunny all week"}])")
            << QStringLiteral("/2/call_id")
            << QStringLiteral("No tool call found for function call output with call_id \"other\".");
        QTest::newRow("anthropic")
            << ApiKind::AnthropicMessages << int(sim::Endpoint::Messages)
            << QByteArray(R"([{"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": )"
                          R"("get_weather", "input": {"city": "Paris"}}]}, )"
                          R"({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", )"
                          R"("content": "Sunny all week"}]}])")
            << QStringLiteral("/2/content/0/tool_use_id")
            << QStringLiteral("unexpected `tool_use_id` found in `tool_result` blocks: \"other\"");
    }
    void toolTurns()
    {
        QFETCH(ApiKind, api);
        QFETCH(int, endpoint);
        QFETCH(QByteArray, history);
        QFETCH(QString, resultId);
        QFETCH(QString, refusal);
        nlohmann::json messages = nlohmann::json::array({{{"role", "user"}, {"content", "Weather in Paris?"}}});
        dialectFor(api).appendToolTurn(messages, {}, {{"call_1", "get_weather", R"({"city":"Paris"})"}},
                                       {"Sunny all week"});
        nlohmann::json expected = nlohmann::json::array({messages[0]});
        for (const auto &m : nlohmann::json::parse(history.toStdString()))
            expected.push_back(m);
        QVERIFY2(messages == expected, messages.dump().c_str());

        QTemporaryDir dir;
        const QString file = test::writeFile(dir, QStringLiteral("tools.json"), kCityTool);
        for (const QString &choice : {QString(), QStringLiteral("required")}) {
            QString error;
            const auto builder = builderFor(api, file, choice, &error);
            QVERIFY2(builder, qPrintable(error));
            Prompt prompt;
            prompt.messages = messages;
            const auto parsed = sim::parseGenerationRequest(sim::Endpoint(endpoint), builder->bodyText(prompt), {});
            const auto *refused = std::get_if<sim::ApiError>(&parsed);
            QVERIFY2(!refused, refused ? refused->message.c_str() : "");
            const auto &read = std::get<sim::GenerationRequest>(parsed);
            QVERIFY(read.afterToolResult);
            QCOMPARE(read.toolCall, !choice.isEmpty()); // auto: the model answers the results in text
            // What the model reads: the question, the call's name and arguments, the result.
            QCOMPARE(fromStd(read.prompt).split(QLatin1Char('\n'), Qt::SkipEmptyParts),
                     QStringList({QStringLiteral("Weather in Paris?"), QStringLiteral("get_weather"),
                                  QStringLiteral(R"({"city":"Paris"})"), QStringLiteral("Sunny all week")}));
            prompt.messages[nlohmann::json::json_pointer(resultId.toStdString())] = "other";
            const auto wrong = sim::parseGenerationRequest(sim::Endpoint(endpoint), builder->bodyText(prompt), {});
            QVERIFY(std::holds_alternative<sim::ApiError>(wrong));
            QVERIFY2(fromStd(std::get<sim::ApiError>(wrong).message).contains(refusal),
                     std::get<sim::ApiError>(wrong).message.c_str());
        }
    }

    /// A conversation's turn keeps the reply's calls with the server's ids, to send back verbatim;
    /// an id too long or not printable ASCII is not kept (the next turn makes one), and calls cut
    /// at the decoder's bounds are marked so (the conversation ends): regression for a server that
    /// sends a huge or malformed id or arguments.
    void hugeOrMalformedCallIdsAndArgumentsAreBounded_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QStringList>("events");
        QTest::addColumn<QString>("id"); // kept; empty: none
        QTest::addColumn<bool>("cut");
        const auto chatWhole = [](const QString &id, const QString &arguments) {
            return QStringList{QString::fromStdString(nlohmann::json{
                {"choices",
                 {{{"index", 0},
                   {"message",
                    {{"role", "assistant"},
                     {"tool_calls",
                      {{{"id", id.toStdString()},
                        {"type", "function"},
                        {"function", {{"name", "add"}, {"arguments", arguments.toStdString()}}}}}}}},
                   {"finish_reason", "tool_calls"}}}}}.dump())};
        };
        QTest::newRow("chat whole") << ApiKind::OpenAIChat << false << chatWhole(QStringLiteral("call_1"), {})
                                    << QStringLiteral("call_1") << false;
        QTest::newRow("chat stream")
            << ApiKind::OpenAIChat << true
            << QStringList{QStringLiteral(
                               R"({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_9", "function": {"name": "add", "arguments": ""}}]}}]})"),
                           QStringLiteral(
                               R"({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]})"),
                           QStringLiteral("[DONE]")}
            << QStringLiteral("call_9") << false;
        QTest::newRow("responses stream")
            << ApiKind::OpenAIResponses << true
            << QStringList{QStringLiteral(
                               R"({"type": "response.output_item.added", "output_index": 0, "item": {"id": "fc_1", "type": "function_call", "arguments": "", "call_id": "call_r", "name": "add"}})"),
                           QStringLiteral(
                               R"({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}})")}
            << QStringLiteral("call_r") << false;
        QTest::newRow("anthropic stream")
            << ApiKind::AnthropicMessages << true
            << QStringList{QStringLiteral(
                               R"({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}})"),
                           QStringLiteral(R"({"type": "message_stop"})")}
            << QStringLiteral("toolu_1") << false;
        QTest::newRow("anthropic whole")
            << ApiKind::AnthropicMessages << false
            << QStringList{QStringLiteral(
                   R"({"id": "msg_1", "content": [{"type": "tool_use", "id": "toolu_2", "name": "add", "input": {"a": 1}}], "stop_reason": "tool_use"})")}
            << QStringLiteral("toolu_2") << false;
        QTest::newRow("id too long") << ApiKind::OpenAIChat << false
                                     << chatWhole(QString(qsizetype(ToolCallTexts::kMaxIdBytes + 1), QLatin1Char('x')),
                                                  {})
                                     << QString() << false;
        QTest::newRow("id longest kept") << ApiKind::OpenAIChat << false
                                         << chatWhole(QString(qsizetype(ToolCallTexts::kMaxIdBytes), QLatin1Char('x')),
                                                      {})
                                         << QString(qsizetype(ToolCallTexts::kMaxIdBytes), QLatin1Char('x')) << false;
        QTest::newRow("id with a control character")
            << ApiKind::OpenAIChat << false << chatWhole(QStringLiteral("call\n1"), {}) << QString() << false;
        QTest::newRow("id with a space") << ApiKind::OpenAIChat << false << chatWhole(QStringLiteral("call 1"), {})
                                         << QString() << false;
        QTest::newRow("arguments past the bound")
            << ApiKind::OpenAIChat << false
            << chatWhole(QStringLiteral("call_1"), QString(qsizetype(ToolCallTexts::kMaxBytes), QLatin1Char('7')))
            << QString() << true;
    }
    void hugeOrMalformedCallIdsAndArgumentsAreBounded()
    {
        QFETCH(ApiKind, api);
        QFETCH(bool, stream);
        QFETCH(QStringList, events);
        QFETCH(QString, id);
        QFETCH(bool, cut);
        const RequestRecord r = decode(api, events, stream, nullptr, true);
        QVERIFY2(r.ok(), qPrintable(r.errorMessage));
        QCOMPARE(r.replyCallsCut, cut);
        QCOMPARE(r.replyCalls.size(), std::size_t(cut ? 0 : 1));
        if (cut)
            return;
        QCOMPARE(fromStd(r.replyCalls[0].id), id);
        QCOMPARE(r.replyCalls[0].name, std::string("add"));
        // Without a conversation nothing is kept.
        QVERIFY(decode(api, events, stream, nullptr, false).replyCalls.empty());
    }

    /// The agent loop against the simulator (--turns 4 with --tools): a turn after calls sends them
    /// and a result each instead of a user's message, and its prompt grows by exactly the call's
    /// name and arguments and the results' --tool-result-tokens, by usage and by the simulator's own
    /// count; under auto the simulator answers results in text (turns 2 and 4 carry results), under
    /// required it calls on every turn (turns 2 to 4). The summary and the console say so.
    void agentLoop_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<QString>("choice");
        QTest::addColumn<int>("resultTokens");
        for (const char *api : {"openai-chat", "openai-responses", "anthropic-messages"}) {
            for (const bool stream : {true, false})
                QTest::addRow("%s, %s, auto", api, stream ? "streamed" : "whole")
                    << QString::fromLatin1(api) << stream << QStringLiteral("auto") << 64;
            QTest::addRow("%s, required", api) << QString::fromLatin1(api) << true << QStringLiteral("required") << 16;
        }
    }
    void agentLoop()
    {
        QFETCH(QString, api);
        QFETCH(bool, stream);
        QFETCH(QString, choice);
        QFETCH(int, resultTokens);
        sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
        config.outputTokens = 12;
        const auto host = test::startSimulator(config);
        QVERIFY(host);
        QTemporaryDir dir;
        const QString tools = test::writeFile(dir, QStringLiteral("tools.json"), kCityTool);
        const QString out = dir.filePath(QStringLiteral("run"));
        const CliResult cli = runCli(
            {QStringLiteral("run"), QStringLiteral("--api"), api, QStringLiteral("--url"), host->baseUrl().toString(),
             QStringLiteral("--model"), host->config().model, QStringLiteral("--requests"), QStringLiteral("8"),
             // One user: with two, one may finish its 4 turns and begin a third
             // conversation before the other's last turn takes the 8th request.
             QStringLiteral("--concurrency"), QStringLiteral("1"), QStringLiteral("--turns"), QStringLiteral("4"),
             QStringLiteral("--prompt-tokens"), QStringLiteral("40"),
             stream ? QStringLiteral("--stream") : QStringLiteral("--no-stream"), QStringLiteral("--tools"), tools,
             QStringLiteral("--tool-choice"), choice, QStringLiteral("--tool-result-tokens"),
             QString::number(resultTokens), QStringLiteral("--out"), out});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QString error;
        const std::optional<RunData> run = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->summary.total.requests.ok, 8);

        const bool required = choice == QLatin1String("required");
        const std::string arguments = R"({"city":"Paris"})";
        const std::int64_t callTokens = ApproxTokenizer::countUtf8("get_weather", 11) +
                                        ApproxTokenizer::countUtf8(arguments.data(), arguments.size());
        std::map<std::uint64_t, std::map<int, const RequestRecord *>> conversations;
        std::int64_t prompt = 0, completion = 0;
        for (const RequestRecord &r : run->records) {
            conversations[r.conversation][r.turn] = &r;
            prompt += r.promptTokens;
            completion += r.completionTokens;
        }
        QCOMPARE(conversations.size(), std::size_t(2));
        for (const auto &[id, turns] : conversations) {
            QCOMPARE(turns.size(), std::size_t(4));
            const RequestRecord *previous = nullptr;
            for (const auto &[turn, r] : turns) {
                // Auto: a user's turn calls, the results' turn answers; required: every turn calls.
                const bool calls = required || turn % 2 == 1;
                QCOMPARE(r->toolCalls, calls ? 1 : 0);
                QCOMPARE(r->toolResults, previous && previous->toolCalls > 0 ? 1 : 0);
                if (previous && previous->toolCalls > 0)
                    QCOMPARE(r->promptTokens - previous->promptTokens, callTokens + resultTokens);
                previous = r;
            }
        }
        // The simulator's own count of the prompts is the client's, request by request.
        QCOMPARE(host->stats().promptTokens, prompt);

        const auto &turns = run->summary.turns;
        QCOMPARE(turns.size(), std::size_t(4));
        for (const TurnSummary &t : turns) {
            QCOMPARE(t.requests, std::int64_t(2));
            QCOMPARE(t.toolResults, std::int64_t(t.turn > 1 && (required || t.turn % 2 == 0) ? 2 : 0));
        }
        const ConversationTokens cost = ConversationTokens::of(turns);
        QCOMPARE(cost.turnsWithToolResults, required ? 3 : 2);
        QCOMPARE(cost.prompt, double(prompt) / 2);
        QCOMPARE(cost.total(), double(prompt + completion) / 2);
        QVERIFY2(cli.out.contains(QStringLiteral("%1 of 4 turns carried tool results (--tool-result-tokens %2)")
                                      .arg(required ? 3 : 2)
                                      .arg(resultTokens)),
                 qPrintable(cli.out));
    }
};

QTEST_GUILESS_MAIN(TestToolCalls)
#include "tst_toolcalls.moc"
