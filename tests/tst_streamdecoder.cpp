#include "api/streamdecoder.h"

#include <QTest>

using namespace tb;

namespace {

struct Event {
    std::string event;
    std::string data;
    std::int64_t stamp;
};

RequestRecord decode(ApiKind api, const std::vector<Event> &events, std::int64_t promptEstimate = 7,
                     const Tokenizer *tokenizer = nullptr, bool keepReply = false)
{
    RequestRecord r;
    StreamDecoder d(api, tokenizer, keepReply);
    d.begin(&r);
    for (const Event &e : events)
        d.onEvent(e.event, e.data, e.stamp);
    d.finish(promptEstimate, tokenizer ? TokenSource::Tokenizer : TokenSource::Estimate);
    if (d.failed())
        r.status = d.failure();
    else if (!d.complete())
        r.status = RequestStatus::StreamTruncated;
    return r;
}

} // namespace

class TestStreamDecoder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void openAIChatWithUsage()
    {
        const RequestRecord r = decode(
            ApiKind::OpenAIChat,
            {
                {"", R"({"id":"chatcmpl-1","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]})",
                 10},
                {"", R"({"id":"chatcmpl-1","choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]})", 20},
                {"", R"({"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"Hi"}}]})", 30},
                {"",
                 R"({"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":"stop"}]})",
                 40},
                {"",
                 R"({"id":"chatcmpl-1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":8},"completion_tokens_details":{"reasoning_tokens":1}}})",
                 50},
                {"", "[DONE]", 50},
            });
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.responseId, QStringLiteral("chatcmpl-1"));
        QCOMPARE(r.firstTokenNs, std::int64_t(20)); // reasoning counts as the first token
        QCOMPARE(r.firstContentNs, std::int64_t(30));
        QCOMPARE(r.lastTokenNs, std::int64_t(40));
        QCOMPARE(r.chunks, 3);
        QCOMPARE(r.tokenChunks.size(), std::size_t(3));
        QCOMPARE(r.tokenChunks[2].chars, 6);
        QCOMPARE(r.promptTokens, std::int64_t(12));
        QCOMPARE(r.completionTokens, std::int64_t(5));
        QCOMPARE(r.cachedTokens, std::int64_t(8));
        QCOMPARE(r.reasoningTokens, std::int64_t(1));
        QCOMPARE(r.tokenSource, TokenSource::Usage);
        QCOMPARE(r.finishReason, QStringLiteral("stop"));
    }

    // The OpenAI o-series: reasoning counted only in usage. TPOT divided by completion_tokens
    // (hidden reasoning included) came out 0.69 ms for a model streaming every 5 ms.
    void tpotWithHiddenReasoningCountsStreamedTokens_data()
    {
        QTest::addColumn<bool>("reasoningStreamed");
        QTest::addColumn<qint64>("hidden");
        QTest::addColumn<double>("tpotMs");
        // Five visible chunks 5 ms apart; usage: 805 completion tokens, 800 of them reasoning.
        QTest::newRow("hidden") << false << qint64(800) << 5.0;
        // The same usage with the reasoning streamed: every token arrived, TPOT over all of them
        // (here the reasoning arrives in one chunk 200 ms before the content).
        QTest::newRow("streamed") << true << qint64(0) << 220.0 / 804.0;
    }
    void tpotWithHiddenReasoningCountsStreamedTokens()
    {
        QFETCH(bool, reasoningStreamed);
        QFETCH(qint64, hidden);
        QFETCH(double, tpotMs);
        std::vector<Event> events;
        const std::int64_t t0 = 1'000'000'000;
        if (reasoningStreamed)
            events.push_back(
                {"", R"({"id":"c","choices":[{"delta":{"reasoning_content":"thinking"}}]})", t0 - 200'000'000});
        for (int i = 0; i < 5; ++i)
            events.push_back({"", R"({"id":"c","choices":[{"delta":{"content":"word"}}]})", t0 + i * 5'000'000});
        events.push_back({"", R"({"id":"c","choices":[{"delta":{},"finish_reason":"stop"}]})", t0 + 20'000'000});
        events.push_back(
            {"",
             R"({"id":"c","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":805,"completion_tokens_details":{"reasoning_tokens":800}}})",
             t0 + 20'000'000});
        RequestRecord r = decode(ApiKind::OpenAIChat, events);
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.completionTokens, std::int64_t(805));
        QCOMPARE(r.reasoningTokens, std::int64_t(800));
        QCOMPARE(r.hiddenReasoningTokens, std::int64_t(hidden));
        QCOMPARE(r.streamedTokens(), 805 - hidden);
        QCOMPARE(r.firstContentNs, t0);
        r.sentNs = 0;
        QCOMPARE(*r.ttfoMs(), 1000.0); // the hidden thinking is inside TTFO
        QVERIFY2(std::abs(*r.tpotMs() - tpotMs) < 1e-9, qPrintable(QString::number(*r.tpotMs())));
        if (!reasoningStreamed)
            QVERIFY(std::abs(*r.decodeTokensPerS() - 250.0) < 1e-9); // 5 tokens over 20 ms
    }

    void toolCallsAreTokens()
    {
        const RequestRecord r = decode(
            ApiKind::OpenAIChat,
            {
                {"",
                 R"({"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"get","arguments":""}}]}}]})",
                 5},
                {"",
                 R"({"id":"c","choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"[1,2]"}}]},"finish_reason":"tool_calls"}]})",
                 6},
            });
        QCOMPARE(r.status, RequestStatus::Ok); // a finish reason completes a stream without [DONE]
        // Generated tokens (in the chunks) but not content: no TTFT, their own stamp (issue 30).
        QCOMPARE(r.chunks, 2);
        QCOMPARE(r.firstContentNs, std::int64_t(-1));
        QCOMPARE(r.firstTokenNs, std::int64_t(-1));
        QCOMPARE(r.firstToolCallNs, std::int64_t(5));
        QCOMPARE(r.lastTokenNs, std::int64_t(6));
        QCOMPARE(r.toolCalls, 1);
        QCOMPARE(r.finishReason, QStringLiteral("tool_calls"));
    }

    void withoutUsageCountsChunks()
    {
        const RequestRecord r = decode(ApiKind::OpenAICompletions,
                                       {
                                           {"", R"({"id":"cmpl-1","choices":[{"text":"one"}]})", 1},
                                           {"", R"({"id":"cmpl-1","choices":[{"text":" two"}]})", 2},
                                           {"", "[DONE]", 3},
                                       },
                                       42);
        QCOMPARE(r.tokenSource, TokenSource::Chunks);
        QCOMPARE(r.completionTokens, std::int64_t(2));
        QCOMPARE(r.promptTokens, std::int64_t(42));
    }

    void truncatedStream()
    {
        const RequestRecord r =
            decode(ApiKind::OpenAIChat, {{"", R"({"id":"x","choices":[{"delta":{"content":"a"}}]})", 1}});
        QCOMPARE(r.status, RequestStatus::StreamTruncated);
    }

    void errorEventMidStream_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QByteArray>("event");
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("status");
        // The server's own errors are its class, not the client's parsing trouble (regression:
        // they were all "protocol", so error charts showed overload as a client problem).
        QTest::newRow("openai error object")
            << int(ApiKind::OpenAIChat) << QByteArray()
            << QByteArray(R"({"error":{"message":"overloaded","type":"server_error"}})")
            << QStringLiteral("server_error: overloaded") << int(RequestStatus::ServerError);
        QTest::newRow("anthropic error event")
            << int(ApiKind::AnthropicMessages) << QByteArray("error")
            << QByteArray(R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})")
            << QStringLiteral("overloaded_error: Overloaded") << int(RequestStatus::ServerError);
        QTest::newRow("tgi error")
            << int(ApiKind::OpenAIChat) << QByteArray()
            << QByteArray(
                   R"({"error":"Request failed during generation: CUDA out of memory","error_type":"generation"})")
            << QStringLiteral("server error: generation: Request failed during generation: CUDA out of memory")
            << int(RequestStatus::ServerError);
        QTest::newRow("garbage json") << int(ApiKind::OpenAIChat) << QByteArray() << QByteArray("{not json")
                                      << QStringLiteral("malformed JSON") << int(RequestStatus::Protocol);
    }

    void errorEventMidStream()
    {
        QFETCH(int, api);
        QFETCH(QByteArray, event);
        QFETCH(QByteArray, data);
        QFETCH(QString, message);
        QFETCH(int, status);
        const RequestRecord r = decode(ApiKind(api), {
                                                         {"", R"({"id":"x","choices":[{"delta":{"content":"a"}}]})", 1},
                                                         {event.toStdString(), data.toStdString(), 2},
                                                     });
        QCOMPARE(int(r.status), status);
        QVERIFY2(r.errorMessage.contains(message), qPrintable(r.errorMessage));
    }

    void tokenCountBeyondInt64IsRejectedNotGarbage_data()
    {
        QTest::addColumn<QByteArray>("usage");
        QTest::newRow("beyond int64") << QByteArray(R"({"prompt_tokens":99999999999999999999,"completion_tokens":3})");
        QTest::newRow("just beyond int64")
            << QByteArray(R"({"prompt_tokens":9223372036854775808,"completion_tokens":3})");
        QTest::newRow("int64 max (sums would overflow)")
            << QByteArray(R"({"prompt_tokens":3,"completion_tokens":9223372036854775807})");
        QTest::newRow("cached beyond int64") << QByteArray(
            R"({"prompt_tokens":3,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":123456789012345678901234}})");
    }

    void tokenCountBeyondInt64IsRejectedNotGarbage()
    {
        QFETCH(QByteArray, usage);
        const std::string last = R"({"id":"x","choices":[],"usage":)" + usage.toStdString() + "}";
        const RequestRecord r =
            decode(ApiKind::OpenAIChat,
                   {
                       {"", R"({"id":"x","choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]})", 1},
                       {"", last, 2},
                       {"", "[DONE]", 3},
                   });
        QCOMPARE(r.status, RequestStatus::Protocol);
        QVERIFY2(r.errorMessage.startsWith(QStringLiteral("token count out of range")), qPrintable(r.errorMessage));
        // Never a garbage count: the client's own estimate and the chunk count stand in.
        QCOMPARE(r.tokenSource, TokenSource::Chunks);
        QCOMPARE(r.promptTokens, std::int64_t(7));
        QCOMPARE(r.completionTokens, std::int64_t(1));
    }

    // Regression: a usage count written with an exponent or a fraction was truncated at its '.',
    // 'e' or 'E' and recorded as from usage (5e2 → 5 tokens). A whole value is read exactly; a
    // fraction refuses the document, and the counts fall back as for a count out of range.
    void usageWithExponentOrFractionIsExactOrRefusedNotTruncated_data()
    {
        QTest::addColumn<bool>("streamed");
        QTest::addColumn<QByteArray>("prompt");
        QTest::addColumn<QByteArray>("completion");
        QTest::addColumn<qint64>("promptTokens"); ///< -1: refused
        QTest::addColumn<qint64>("completionTokens");
        for (const bool streamed : {true, false}) {
            const char *how = streamed ? "stream" : "body";
            QTest::addRow("%s: 5e2 and 3.0", how)
                << streamed << QByteArray("5e2") << QByteArray("3.0") << qint64(500) << qint64(3);
            QTest::addRow("%s: 1.2E+3 and 40e-1", how)
                << streamed << QByteArray("1.2E+3") << QByteArray("40e-1") << qint64(1200) << qint64(4);
            QTest::addRow("%s: fraction 7.9", how)
                << streamed << QByteArray("12") << QByteArray("7.9") << qint64(-1) << qint64(-1);
            QTest::addRow("%s: fraction 5e-1", how)
                << streamed << QByteArray("5e-1") << QByteArray("3") << qint64(-1) << qint64(-1);
        }
    }

    void usageWithExponentOrFractionIsExactOrRefusedNotTruncated()
    {
        QFETCH(bool, streamed);
        QFETCH(QByteArray, prompt);
        QFETCH(QByteArray, completion);
        QFETCH(qint64, promptTokens);
        QFETCH(qint64, completionTokens);
        const std::string usage = R"("usage":{"prompt_tokens":)" + prompt.toStdString() + R"(,"completion_tokens":)" +
                                  completion.toStdString() + "}";
        RequestRecord r;
        if (streamed) {
            r = decode(ApiKind::OpenAIChat,
                       {
                           {"", R"({"id":"x","choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]})", 1},
                           {"", R"({"id":"x","choices":[],)" + usage + "}", 2},
                           {"", "[DONE]", 3},
                       });
        } else {
            StreamDecoder d(ApiKind::OpenAIChat);
            d.begin(&r);
            d.onBody(R"({"id":"x","choices":[{"message":{"content":"a b c"},"finish_reason":"stop"}],)" + usage + "}",
                     1);
            d.finish(7, TokenSource::Estimate);
            if (d.failed())
                r.status = d.failure();
        }
        if (promptTokens >= 0) {
            QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            QCOMPARE(r.tokenSource, TokenSource::Usage);
            QCOMPARE(r.promptTokens, std::int64_t(promptTokens));
            QCOMPARE(r.completionTokens, std::int64_t(completionTokens));
            return;
        }
        QCOMPARE(r.status, RequestStatus::Protocol);
        QVERIFY2(r.errorMessage.startsWith(QStringLiteral("token count not a whole number")),
                 qPrintable(r.errorMessage));
        // Never a truncated count: the client's own estimate stands in.
        QVERIFY(r.tokenSource != TokenSource::Usage);
        QCOMPARE(r.promptTokens, std::int64_t(7));
    }

    void anthropicStream()
    {
        const RequestRecord r = decode(
            ApiKind::AnthropicMessages,
            {
                {"message_start",
                 R"({"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_read_input_tokens":30,"cache_creation_input_tokens":2,"output_tokens":1}}})",
                 1},
                {"content_block_start",
                 R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}})", 2},
                {"content_block_delta",
                 R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"let me see"}})",
                 3},
                {"content_block_delta",
                 R"({"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hello"}})", 4},
                {"ping", R"({"type":"ping"})", 4},
                {"message_delta",
                 R"({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":6}})", 5},
                {"message_stop", R"({"type":"message_stop"})", 5},
            });
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.responseId, QStringLiteral("msg_1"));
        QCOMPARE(r.firstTokenNs, std::int64_t(3));
        QCOMPARE(r.firstContentNs, std::int64_t(4));
        QCOMPARE(r.chunks, 2);
        QCOMPARE(r.promptTokens, std::int64_t(42)); // input + cache reads + cache writes
        QCOMPARE(r.cachedTokens, std::int64_t(30));
        QCOMPARE(r.completionTokens, std::int64_t(6));
        QCOMPARE(r.finishReason, QStringLiteral("end_turn"));
    }

    /// Regression: a server packing 4 tokens into each event without usage was counted 1 token
    /// per chunk (4x too low); with a tokenizer the streamed text is counted, once, at the end.
    void packedChunksWithoutUsageCountedWithTokenizer_data()
    {
        QTest::addColumn<QString>("tokenizer");
        QTest::newRow("approx") << QStringLiteral("approx");
        QTest::newRow("tiktoken file") << QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken");
        QTest::newRow("tokenizer.json") << QStringLiteral(TOKENBENCH_TESTDATA "/tiny-bytelevel-tokenizer.json");
    }

    void packedChunksWithoutUsageCountedWithTokenizer()
    {
        QFETCH(QString, tokenizer);
        QString error;
        const auto t = Tokenizer::load(tokenizer, &error);
        QVERIFY2(t, qPrintable(error));
        const std::vector<std::string> pieces{"The team ran a", " load test to see", " how long each",
                                              " user had to wait."};
        std::vector<Event> events;
        std::string text;
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            const std::string json =
                nlohmann::json{{"id", "c1"}, {"choices", {{{"index", 0}, {"delta", {{"content", pieces[i]}}}}}}}.dump();
            events.push_back({"", json, std::int64_t(10 * (i + 1))});
            text += pieces[i];
        }
        events.push_back({"", R"({"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})", 60});
        events.push_back({"", "[DONE]", 60});
        const RequestRecord r = decode(ApiKind::OpenAIChat, events, 42, t.get());
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.chunks, 4);
        QCOMPARE(r.completionTokens, t->count(text));
        QVERIFY(r.completionTokens > 4 * 2);
        QCOMPARE(r.tokenSource, TokenSource::Tokenizer);
        QCOMPARE(r.promptTokens, 42);
        QCOMPARE(r.promptTokenSource, TokenSource::Tokenizer);
    }

    void nonStreamingBodies_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<qint64>("completion");
        QTest::addColumn<int>("source");
        QTest::newRow("chat")
            << int(ApiKind::OpenAIChat)
            << QByteArray(
                   R"({"id":"c1","choices":[{"message":{"content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}})")
            << qint64(1) << int(TokenSource::Usage);
        QTest::newRow("chat without usage")
            << int(ApiKind::OpenAIChat)
            << QByteArray(R"({"id":"c1","choices":[{"message":{"content":"Hello, world"},"finish_reason":"stop"}]})")
            << qint64(5) << int(TokenSource::Estimate);
        QTest::newRow("anthropic")
            << int(ApiKind::AnthropicMessages)
            << QByteArray(
                   R"({"id":"msg","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":4,"output_tokens":2}})")
            << qint64(2) << int(TokenSource::Usage);
    }

    void nonStreamingBodies()
    {
        QFETCH(int, api);
        QFETCH(QByteArray, body);
        QFETCH(qint64, completion);
        QFETCH(int, source);
        RequestRecord r;
        StreamDecoder d{ApiKind(api)};
        d.begin(&r);
        d.onBody(std::string_view(body.constData(), std::size_t(body.size())), 100);
        d.finish(3, TokenSource::Estimate);
        QVERIFY(!d.failed());
        QVERIFY(d.complete());
        QCOMPARE(qint64(r.completionTokens), completion);
        QCOMPARE(int(r.tokenSource), source);
        QCOMPARE(r.chunks, 0);
        QVERIFY(!r.responseId.isEmpty());
    }

    /// Regression: replaying a run's prompts, llama.cpp evaluated 1 of 522 prompt tokens (TTFT
    /// 1,415 → 23 ms) while the run showed "Cache hits 0%": llama.cpp's usage has no cached_tokens,
    /// its final chunk (and body) has timings.prompt_n, the tokens it evaluated. The bytes below
    /// are in the shape of llama.cpp's server (examples/server/server.cpp, Feb 2025).
    void llamaCppCacheHitsSeenFromTimings_data()
    {
        QTest::addColumn<QByteArrayList>("events"); ///< SSE data, or with `body` the response body
        QTest::addColumn<bool>("body");
        QTest::addColumn<qint64>("cached");
        QTest::addColumn<QString>("source");
        const QByteArray content =
            R"({"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Hi"}}],"created":1739900000,"id":"chatcmpl-Xy1","model":"llama","system_fingerprint":"b4756-0a1b2c3d","object":"chat.completion.chunk"})";
        const auto last = [](const QByteArray &usage, const QByteArray &timings) {
            QByteArray chunk =
                R"({"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1739900000,"id":"chatcmpl-Xy1","model":"llama","system_fingerprint":"b4756-0a1b2c3d","object":"chat.completion.chunk")";
            if (!usage.isEmpty())
                chunk += R"(,"usage":)" + usage;
            if (!timings.isEmpty())
                chunk += R"(,"timings":)" + timings;
            return chunk + '}';
        };
        const QByteArray usage522 = R"({"completion_tokens":2,"prompt_tokens":522,"total_tokens":524})";
        const auto timings = [](int promptN) {
            return QStringLiteral(R"({"prompt_n":%1,"prompt_ms":23.126,"prompt_per_token_ms":23.126,)"
                                  R"("prompt_per_second":43.24,"predicted_n":2,"predicted_ms":41.0,)"
                                  R"("predicted_per_token_ms":20.5,"predicted_per_second":48.78})")
                .arg(promptN)
                .toUtf8();
        };
        QTest::newRow("replayed: 1 of 522 evaluated") << QByteArrayList{content, last(usage522, timings(1)), "[DONE]"}
                                                      << false << qint64(521) << QStringLiteral("timings");
        QTest::newRow("cold: all 522 evaluated") << QByteArrayList{content, last(usage522, timings(522)), "[DONE]"}
                                                 << false << qint64(0) << QStringLiteral("timings");
        QTest::newRow("usage's cached_tokens come first")
            << QByteArrayList{content,
                              last(R"({"completion_tokens":2,"prompt_tokens":522,"total_tokens":524,)"
                                   R"("prompt_tokens_details":{"cached_tokens":400}})",
                                   timings(1)),
                              "[DONE]"}
            << false << qint64(400) << QStringLiteral("usage");
        QTest::newRow("neither: no cache reported")
            << QByteArrayList{content, last(usage522, {}), "[DONE]"} << false << qint64(0) << QString();
        QTest::newRow("more evaluated than the prompt: none cached")
            << QByteArrayList{content, last(usage522, timings(600)), "[DONE]"} << false << qint64(0)
            << QStringLiteral("timings");
        QTest::newRow("timings without usage: the prompt count is not the server's")
            << QByteArrayList{content, last({}, timings(1)), "[DONE]"} << false << qint64(0) << QString();
        QTest::newRow("non-streamed body")
            << QByteArrayList{QByteArray(
                                  R"({"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"Hi"}}],"created":1739900000,"model":"llama","system_fingerprint":"b4756-0a1b2c3d","object":"chat.completion","usage":{"completion_tokens":2,"prompt_tokens":522,"total_tokens":524},"id":"chatcmpl-Xy2","timings":)") +
                              timings(10) + '}'}
            << true << qint64(512) << QStringLiteral("timings");
    }

    void llamaCppCacheHitsSeenFromTimings()
    {
        QFETCH(QByteArrayList, events);
        QFETCH(bool, body);
        QFETCH(qint64, cached);
        QFETCH(QString, source);
        RequestRecord r;
        StreamDecoder d{ApiKind::OpenAIChat};
        d.begin(&r);
        std::int64_t stamp = 10;
        for (const QByteArray &e : events) {
            const std::string_view data(e.constData(), std::size_t(e.size()));
            if (body)
                d.onBody(data, stamp);
            else
                d.onEvent({}, data, stamp);
            stamp += 10;
        }
        d.finish(500, TokenSource::Estimate);
        QVERIFY2(!d.failed(), qPrintable(r.errorMessage));
        QVERIFY(d.complete());
        QCOMPARE(qint64(r.cachedTokens), cached);
        QCOMPARE(QString::fromLatin1(cacheSourceName(r.cachedSource)), source);
    }

    void errorBodies_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("message");
        QTest::newRow("openai") << QByteArray(R"({"error":{"message":"Rate limit reached","type":"rate_limit_error"}})")
                                << QStringLiteral("rate_limit_error: Rate limit reached");
        QTest::newRow("fastapi detail") << QByteArray(R"({"detail":"Not Found"})") << QStringLiteral("Not Found");
        QTest::newRow("html") << QByteArray("<html><body>502 Bad Gateway</body></html>")
                              << QStringLiteral("502 Bad Gateway");
    }

    void errorBodies()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, message);
        const QString text =
            StreamDecoder::errorMessageFromBody(std::string_view(body.constData(), std::size_t(body.size())));
        QVERIFY2(text.contains(message), qPrintable(text));
    }

    // Found by fuzz/fuzz_streamdecoder: input + cache read + cache creation tokens, each within 64
    // bits, summed past INT64_MAX (undefined behaviour, garbage prompt_tokens).
    void anthropicUsageSumOverflows()
    {
        const RequestRecord r = decode(
            ApiKind::AnthropicMessages,
            {
                {"message_start",
                 R"({"type":"message_start","message":{"id":"m","usage":{"input_tokens":5000000000000000000,"cache_read_input_tokens":5000000000000000000}}})",
                 10},
                {"message_stop", R"({"type":"message_stop"})", 20},
            });
        QCOMPARE(r.status, RequestStatus::Protocol);
        QVERIFY2(r.errorMessage.contains(QStringLiteral("out of range")), qPrintable(r.errorMessage));
    }

    // The Responses API as OpenAI streams it: the done events and response.completed repeat the
    // text, which must count once; the reply kept for a conversation is the content only.
    void responsesStream()
    {
        const RequestRecord r = decode(
            ApiKind::OpenAIResponses,
            {
                {"response.created",
                 R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","error":null,"output":[],"usage":null}})",
                 10},
                {"response.output_item.added",
                 R"({"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}})",
                 10},
                {"response.reasoning_summary_text.delta",
                 R"({"type":"response.reasoning_summary_text.delta","sequence_number":2,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"think"})",
                 20},
                {"response.reasoning_summary_text.done",
                 R"({"type":"response.reasoning_summary_text.done","sequence_number":3,"item_id":"rs_1","output_index":0,"summary_index":0,"text":"think"})",
                 20},
                {"response.output_text.delta",
                 R"({"sequence_number":4,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi","logprobs":[],"type":"response.output_text.delta"})",
                 30},
                {"response.output_text.delta",
                 R"({"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","output_index":1,"content_index":0,"delta":" there é","logprobs":[]})",
                 40},
                {"response.output_text.done",
                 R"({"type":"response.output_text.done","sequence_number":6,"item_id":"msg_1","output_index":1,"content_index":0,"text":"Hi there é"})",
                 40},
                {"response.completed",
                 R"({"type":"response.completed","sequence_number":7,"response":{"id":"resp_1","object":"response","status":"completed","error":null,"incomplete_details":null,"output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi there é"}]}],"usage":{"input_tokens":20,"input_tokens_details":{"cached_tokens":8},"output_tokens":9,"output_tokens_details":{"reasoning_tokens":4},"total_tokens":29}}})",
                 50},
            },
            7, nullptr, true);
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.responseId, QStringLiteral("resp_1"));
        QCOMPARE(r.chunks, 3);
        QCOMPARE(r.firstTokenNs, std::int64_t(20));
        QCOMPARE(r.firstContentNs, std::int64_t(30));
        QCOMPARE(r.lastTokenNs, std::int64_t(40));
        QCOMPARE(r.promptTokens, std::int64_t(20));
        QCOMPARE(r.cachedTokens, std::int64_t(8));
        QCOMPARE(r.completionTokens, std::int64_t(9));
        QCOMPARE(r.reasoningTokens, std::int64_t(4));
        QCOMPARE(r.hiddenReasoningTokens, std::int64_t(0)); // its summary streamed
        QCOMPARE(r.tokenSource, TokenSource::Usage);
        QCOMPARE(r.finishReason, QStringLiteral("completed"));
        QCOMPARE(r.reply, std::string("Hi there \xc3\xa9"));
    }

    void responsesEndings_data()
    {
        QTest::addColumn<QByteArray>("event");
        QTest::addColumn<QByteArray>("data");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("text"); // in the error message, or the finish reason
        QTest::addRow("failed")
            << QByteArray("response.failed")
            << QByteArray(
                   R"({"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","status":"failed","error":{"code":"server_error","message":"boom"},"usage":null}})")
            << int(RequestStatus::ServerError) << QStringLiteral("server error: server_error: boom");
        QTest::addRow("error event")
            << QByteArray("error")
            << QByteArray(
                   R"({"type":"error","sequence_number":3,"code":"rate_limit_exceeded","message":"slow down","param":null})")
            << int(RequestStatus::ServerError) << QStringLiteral("server error: rate_limit_exceeded: slow down");
        QTest::addRow("incomplete")
            << QByteArray("response.incomplete")
            << QByteArray(
                   R"({"type":"response.incomplete","sequence_number":3,"response":{"id":"resp_1","status":"incomplete","error":null,"incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":1}}})")
            << int(RequestStatus::Ok) << QStringLiteral("max_output_tokens");
        QTest::addRow("no completed event")
            << QByteArray("response.in_progress")
            << QByteArray(
                   R"({"type":"response.in_progress","sequence_number":3,"response":{"id":"resp_1","status":"in_progress","usage":null}})")
            << int(RequestStatus::StreamTruncated) << QString();
    }

    void responsesEndings()
    {
        QFETCH(QByteArray, event);
        QFETCH(QByteArray, data);
        QFETCH(int, status);
        QFETCH(QString, text);
        const RequestRecord r =
            decode(ApiKind::OpenAIResponses,
                   {
                       {"response.output_text.delta",
                        R"({"type":"response.output_text.delta","sequence_number":1,"delta":"Hi"})", 10},
                       {event.toStdString(), data.toStdString(), 20},
                   });
        QCOMPARE(int(r.status), status);
        if (r.ok())
            QCOMPARE(r.finishReason, text);
        else if (!text.isEmpty())
            QCOMPARE(r.errorMessage, text);
    }

    void responsesBody()
    {
        RequestRecord r;
        StreamDecoder d(ApiKind::OpenAIResponses, nullptr, true);
        d.begin(&r);
        d.onBody(
            R"({"id":"resp_2","object":"response","status":"completed","error":null,"incomplete_details":null,)"
            R"("output":[{"id":"rs_2","type":"reasoning","summary":[{"type":"summary_text","text":"thinking"}]},)"
            R"({"id":"msg_2","type":"message","role":"assistant","content":[{"text":"The answer","type":"output_text","annotations":[]}]}],)"
            R"("usage":{"input_tokens":11,"input_tokens_details":{"cached_tokens":3},"output_tokens":6,"output_tokens_details":{"reasoning_tokens":2},"total_tokens":17}})",
            100);
        d.finish(1, TokenSource::Estimate);
        QVERIFY(!d.failed());
        QVERIFY(d.complete());
        QCOMPARE(r.responseId, QStringLiteral("resp_2"));
        QCOMPARE(r.promptTokens, std::int64_t(11));
        QCOMPARE(r.cachedTokens, std::int64_t(3));
        QCOMPARE(r.completionTokens, std::int64_t(6));
        QCOMPARE(r.reasoningTokens, std::int64_t(2));
        QCOMPARE(r.hiddenReasoningTokens, std::int64_t(0));
        QCOMPARE(r.reply, std::string("The answer"));
    }

    // Responses API events on the chat path failed as "malformed JSON in stream event": they now
    // say what they are and which --api reads them.
    void responsesEventsOnTheChatPathAreNamed_data()
    {
        QTest::addColumn<QByteArray>("event");
        QTest::addRow("with event lines") << QByteArray("response.output_text.delta");
        QTest::addRow("data only") << QByteArray();
    }

    void responsesEventsOnTheChatPathAreNamed()
    {
        QFETCH(QByteArray, event);
        const RequestRecord r = decode(
            ApiKind::OpenAIChat,
            {
                {event.toStdString(), R"({"type":"response.output_text.delta","sequence_number":1,"delta":"Hi"})", 10},
            });
        QCOMPARE(r.status, RequestStatus::Protocol);
        QVERIFY2(r.errorMessage.contains(QLatin1String("response.output_text.delta")) &&
                     r.errorMessage.contains(QLatin1String("--api openai-responses")),
                 qPrintable(r.errorMessage));
    }

    void replyIsBoundedAtACharacterBoundary()
    {
        // 'é' is two bytes: a cut inside one would send invalid UTF-8 back to the server.
        std::string text = std::string(StreamDecoder::kMaxReplyBytes - 1, 'a');
        for (int i = 0; i < 100; ++i)
            text += "\u00e9";
        const RequestRecord r = decode(
            ApiKind::OpenAIChat,
            {
                {"", R"({"id":"c","choices":[{"delta":{"content":")" + text + R"("},"finish_reason":"stop"}]})", 10},
                {"", "[DONE]", 20},
            },
            7, nullptr, true);
        QCOMPARE(r.status, RequestStatus::Ok);
        QCOMPARE(r.reply.size(), StreamDecoder::kMaxReplyBytes - 1);
        QVERIFY(QString::fromUtf8(r.reply.data(), qsizetype(r.reply.size())).toUtf8().size() ==
                qsizetype(r.reply.size()));
    }

    // An HTTP error body nested 100,000 levels deep crashed the client (stack overflow in the
    // message extraction); it now reads as text.
    void deeplyNestedErrorBodyOverflowsStack()
    {
        const std::string body = R"({"error":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
        const QString text = StreamDecoder::errorMessageFromBody(body);
        QVERIFY2(text.startsWith(QStringLiteral("{\"error\":[[[")), qPrintable(text.left(40)));
    }
};

QTEST_GUILESS_MAIN(TestStreamDecoder)
#include "tst_streamdecoder.moc"
