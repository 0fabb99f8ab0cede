// RequestBuilder's bodies: which field carries the output cap, per API and target.
#include "engine/requestbuilder.h"

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
};

QTEST_GUILESS_MAIN(TestRequestBuilder)
#include "tst_requestbuilder.moc"
