// RequestBuilder's bodies: which field carries the output cap, per API and target.
#include "api/requestbuilder.h"

#include <QTest>

using namespace tb;

Q_DECLARE_METATYPE(tb::ApiKind)
Q_DECLARE_METATYPE(tb::MaxTokensField)

class TestRequestBuilder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void maxTokensField_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<QString>("url");
        QTest::addColumn<MaxTokensField>("field");
        QTest::addColumn<QString>("sent");
        const auto chat = ApiKind::OpenAIChat;
        const auto automatic = MaxTokensField::Auto;
        // OpenAI's reasoning models answer max_tokens with 400, and it refuses both fields at once.
        QTest::newRow("openai chat") << chat << QStringLiteral("https://api.openai.com/v1") << automatic
                                     << QStringLiteral("max_completion_tokens");
        QTest::newRow("azure openai chat") << chat << QStringLiteral("https://acme.openai.azure.com/openai/v1")
                                           << automatic << QStringLiteral("max_completion_tokens");
        // Every OpenAI-compatible server reads max_tokens; several ignore the newer name.
        QTest::newRow("self-hosted chat")
            << chat << QStringLiteral("http://127.0.0.1:8000/v1") << automatic << QStringLiteral("max_tokens");
        QTest::newRow("look-alike host") << chat << QStringLiteral("https://api.openai.com.example.net/v1") << automatic
                                         << QStringLiteral("max_tokens");
        QTest::newRow("legacy completions") << ApiKind::OpenAICompletions << QStringLiteral("https://api.openai.com/v1")
                                            << automatic << QStringLiteral("max_tokens");
        QTest::newRow("explicit max_completion_tokens")
            << chat << QStringLiteral("http://127.0.0.1:8000/v1") << MaxTokensField::MaxCompletionTokens
            << QStringLiteral("max_completion_tokens");
        QTest::newRow("explicit max_tokens") << chat << QStringLiteral("https://api.openai.com/v1")
                                             << MaxTokensField::MaxTokens << QStringLiteral("max_tokens");
        QTest::newRow("anthropic has one name")
            << ApiKind::AnthropicMessages << QStringLiteral("https://api.anthropic.com/v1")
            << MaxTokensField::MaxCompletionTokens << QStringLiteral("max_tokens");
    }
    void maxTokensField()
    {
        QFETCH(ApiKind, api);
        QFETCH(QString, url);
        QFETCH(MaxTokensField, field);
        QFETCH(QString, sent);
        TargetConfig target;
        target.api = api;
        target.url = url;
        target.model = QStringLiteral("m");
        RequestConfig request;
        request.maxTokens = 77;
        request.maxTokensField = field;
        QString error;
        const auto builder = RequestBuilder::create(target, request, &error);
        QVERIFY2(builder, qPrintable(error));
        Prompt prompt;
        prompt.user = "hello";
        const nlohmann::json body = builder->body(prompt);
        const std::string other = sent == QLatin1String("max_tokens") ? "max_completion_tokens" : "max_tokens";
        QCOMPARE(body.value(sent.toStdString(), 0), 77);
        QVERIFY2(!body.contains(other), body.dump().c_str());
    }

    void redirect_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("location");
        QTest::addColumn<QByteArray>("requestLine"); // empty: not followed
        QTest::addColumn<bool>("credentials");
        QTest::addColumn<bool>("body");
        // 307/308 keep the method and body; 301/302/303 turn a POST into a GET, as curl and
        // browsers do (RFC 9110 15.4).
        QTest::newRow("307 keeps POST") << 307 << QByteArray("/v2/chat") << QByteArray("POST /v2/chat HTTP/1.1") << true
                                        << true;
        QTest::newRow("308 relative path")
            << 308 << QByteArray("other?x=1") << QByteArray("POST /v1/chat/other?x=1 HTTP/1.1") << true << true;
        QTest::newRow("301 turns into GET")
            << 301 << QByteArray("/v2") << QByteArray("GET /v2 HTTP/1.1") << true << false;
        QTest::newRow("302 turns into GET")
            << 302 << QByteArray("/v2") << QByteArray("GET /v2 HTTP/1.1") << true << false;
        QTest::newRow("303 turns into GET")
            << 303 << QByteArray("/done") << QByteArray("GET /done HTTP/1.1") << true << false;
        QTest::newRow("another host gets no credentials") << 307 << QByteArray("https://other.example.com/v1/chat")
                                                          << QByteArray("POST /v1/chat HTTP/1.1") << false << true;
        QTest::newRow("another port gets no credentials") << 307 << QByteArray("https://api.example.com:8443/v1/chat")
                                                          << QByteArray("POST /v1/chat HTTP/1.1") << false << true;
        QTest::newRow("another scheme gets no credentials") << 308 << QByteArray("http://api.example.com/v1/chat")
                                                            << QByteArray("POST /v1/chat HTTP/1.1") << false << true;
        QTest::newRow("no Location") << 307 << QByteArray() << QByteArray() << false << false;
        QTest::newRow("not http") << 307 << QByteArray("ftp://api.example.com/x") << QByteArray() << false << false;
        QTest::newRow("not a redirect") << 304 << QByteArray("/x") << QByteArray() << false << false;
    }

    void redirect()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, location);
        QFETCH(QByteArray, requestLine);
        QFETCH(bool, credentials);
        QFETCH(bool, body);
        TargetConfig target;
        target.url = QStringLiteral("https://api.example.com/v1");
        target.model = QStringLiteral("m");
        target.proxy = QStringLiteral("none");
        target.headers << Header{QStringLiteral("X-Api-Key"), QStringLiteral("k-secret-1")}
                       << Header{QStringLiteral("X-Team"), QStringLiteral("perf")};
        QString error;
        const auto builder = RequestBuilder::create(target, RequestConfig{}, &error);
        QVERIFY2(builder, qPrintable(error));
        QCOMPARE(builder->url(), QUrl(QStringLiteral("https://api.example.com/v1/chat/completions")));
        const std::string json = R"({"model":"m"})";
        const auto next = builder->redirect(builder->url(), location, status, json, &error);
        if (requestLine.isEmpty()) {
            QVERIFY(!next);
            QVERIFY(!error.isEmpty());
            return;
        }
        QVERIFY2(next, qPrintable(error));
        QVERIFY2(next->message.startsWith(requestLine + "\r\n"), next->message.constData());
        QCOMPARE(next->message.contains("X-Api-Key: k-secret-1"), credentials);
        QVERIFY(next->message.contains("X-Team: perf"));
        QCOMPARE(next->message.endsWith(QByteArray::fromStdString(json)), body);
        QCOMPARE(next->message.contains("Content-Length:"), body);
        QCOMPARE(next->keepsBody, body);
        QCOMPARE(next->endpoint.host, next->url.host());
    }

    void keyWithALineBreakBuildsNoRequest_data()
    {
        QTest::addColumn<ApiKind>("api");
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        const ApiKind chat = ApiKind::OpenAIChat;
        const QString crlf = QStringLiteral("sk-A-secret\r\nX-Injected-Key: 1");
        const QString trailing = QStringLiteral("sk-A-secret\n");
        const QString injected = QStringLiteral("target.api_key_env (--api-key-env): the API key in TB_BUILDER_KEY "
                                                "contains a line break (CR or LF)");
        QTest::newRow("variable, Bearer") << chat << QStringLiteral("variable") << crlf << injected;
        QTest::newRow("variable, Anthropic's x-api-key")
            << ApiKind::AnthropicMessages << QStringLiteral("variable") << crlf << injected;
        QTest::newRow("variable, trailing newline")
            << chat << QStringLiteral("variable") << trailing
            << QStringLiteral("target.api_key_env (--api-key-env): the API key in TB_BUILDER_KEY ends with a line "
                              "break (CR or LF)");
        QTest::newRow("typed in, NUL") << chat << QStringLiteral("typed")
                                       << QStringLiteral("sk-A-secret") + QChar(0) + QStringLiteral("1")
                                       << QStringLiteral("target.api_key: the API key typed in contains a control "
                                                         "character (U+0000)");
        QTest::newRow("header variable, CR")
            << chat << QStringLiteral("header") << QStringLiteral("tok-secret\rX-Injected-Key: 1")
            << QStringLiteral("target.headers (--header): 'Authorization' refers to the environment variable "
                              "TB_BUILDER_KEY, whose value contains a line break (CR or LF)");
    }

    // The key went into "Authorization: Bearer …" (x-api-key for Anthropic) as it was: a CR or LF
    // in it started a header of its own. targetHeaders() is where every request's headers come
    // from (both transports, calibration, model listing, the context check): it builds none.
    void keyWithALineBreakBuildsNoRequest()
    {
        QFETCH(ApiKind, api);
        QFETCH(QString, source);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        TargetConfig target;
        target.api = api;
        target.url = QStringLiteral("http://127.0.0.1:8000/v1");
        target.model = QStringLiteral("m");
        target.apiKeyEnv = QStringLiteral("TB_BUILDER_KEY");
        if (source == QLatin1String("typed"))
            target.apiKey = value;
        else
            QVERIFY(qputenv("TB_BUILDER_KEY", value.toUtf8()));
        if (source == QLatin1String("header")) {
            target.apiKeyEnv = QStringLiteral("TB_BUILDER_NO_KEY");
            target.headers = {{QStringLiteral("Authorization"), QStringLiteral("${env:TB_BUILDER_KEY}")}};
        }
        QString error;
        const auto builder = RequestBuilder::create(target, RequestConfig{}, &error);
        QString headersError;
        const auto headers = RequestBuilder::targetHeaders(target, &headersError);
        qunsetenv("TB_BUILDER_KEY");
        QVERIFY2(!builder, builder ? builder->httpRequest(Prompt{}).constData() : "");
        QVERIFY(!headers);
        QVERIFY2(error.startsWith(expected), qPrintable(error));
        QCOMPARE(headersError, error);
        QVERIFY2(!error.contains(QStringLiteral("secret")), qPrintable(error));
    }

    void absoluteFormThroughAPlainProxy()
    {
        TargetConfig target;
        target.url = QStringLiteral("http://10.0.0.5:8000/v1");
        target.model = QStringLiteral("m");
        target.proxy = QStringLiteral("http://u:p@127.0.0.1:3128");
        QString error;
        const auto builder = RequestBuilder::create(target, RequestConfig{}, &error);
        QVERIFY2(builder, qPrintable(error));
        Prompt prompt;
        prompt.user = "hi";
        const QByteArray message = builder->httpRequest(prompt);
        QVERIFY2(
            message.startsWith("POST http://10.0.0.5:8000/v1/chat/completions HTTP/1.1\r\nHost: 10.0.0.5:8000\r\n"),
            message.constData());
        QVERIFY(message.contains("\r\nProxy-Authorization: Basic " + QByteArray("u:p").toBase64() + "\r\n"));
        QVERIFY(builder->endpoint().proxiedPlain());

        // Through a tunnel (https) the request is the origin's, and its proxy credentials go only
        // into the CONNECT.
        target.url = QStringLiteral("https://10.0.0.5/v1");
        const auto tunnelled = RequestBuilder::create(target, RequestConfig{}, &error);
        QVERIFY2(tunnelled, qPrintable(error));
        const QByteArray inside = tunnelled->httpRequest(prompt);
        QVERIFY2(inside.startsWith("POST /v1/chat/completions HTTP/1.1\r\n"), inside.constData());
        QVERIFY(!inside.contains("Proxy-Authorization"));
        QVERIFY(!tunnelled->endpoint().proxiedPlain());
        QCOMPARE(tunnelled->endpoint().proxy.port, quint16(3128));
    }
};

QTEST_GUILESS_MAIN(TestRequestBuilder)
#include "tst_requestbuilder.moc"
