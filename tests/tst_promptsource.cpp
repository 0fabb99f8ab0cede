#include "engine/promptsource.h"
#include "metrics/tokenizer.h"

#include <QTemporaryDir>
#include <QTest>

using namespace tb;

namespace {

std::int64_t tokens(const std::string &s)
{
    return ApproxTokenizer::countUtf8(s.data(), s.size());
}

} // namespace

class TestPromptSource : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void syntheticHasExactTokenCount_data()
    {
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<int>("systemTokens");
        QTest::addColumn<int>("prefixTokens");
        QTest::newRow("tiny") << 1 << 0 << 0;
        QTest::newRow("small") << 16 << 0 << 0;
        QTest::newRow("report workload") << 512 << 128 << 0;
        QTest::newRow("long context") << 8000 << 0 << 0;
        QTest::newRow("shared prefix") << 1000 << 64 << 600;
    }

    void syntheticHasExactTokenCount()
    {
        QFETCH(int, promptTokens);
        QFETCH(int, systemTokens);
        QFETCH(int, prefixTokens);
        PromptConfig config;
        config.promptTokens = promptTokens;
        config.systemTokens = systemTokens;
        config.sharedPrefixTokens = prefixTokens;
        QString error;
        const auto source = PromptSource::create(config, 7, &error);
        QVERIFY2(source, qPrintable(error));
        for (std::uint64_t i : {0, 1, 99}) {
            const Prompt p = source->prompt(i);
            QCOMPARE(tokens(p.user), std::int64_t(promptTokens));
            QCOMPARE(tokens(p.system), std::int64_t(systemTokens));
            QCOMPARE(p.tokens, std::int64_t(promptTokens + systemTokens));
        }
    }

    void promptsVaryButAreDeterministic()
    {
        PromptConfig config;
        config.promptTokens = 200;
        config.sharedPrefixTokens = 50;
        const auto a = PromptSource::create(config, 1, nullptr);
        const auto b = PromptSource::create(config, 1, nullptr);
        QCOMPARE(a->prompt(5).user, b->prompt(5).user);
        QVERIFY(a->prompt(5).user != a->prompt(6).user);
        // The shared prefix is the same for every request; what follows differs at once.
        const std::string p5 = a->prompt(5).user;
        const std::string p6 = a->prompt(6).user;
        std::size_t common = 0;
        while (common < p5.size() && p5[common] == p6[common])
            ++common;
        QCOMPARE(tokens(p5.substr(0, common)), std::int64_t(50) + 1); // prefix and the '#'
        const auto other = PromptSource::create(config, 2, nullptr);
        QVERIFY(other->prompt(5).user != p5);
    }

    void saltMakesARunsPromptsItsOwn_data()
    {
        QTest::addColumn<int>("sharedPrefixTokens");
        QTest::addColumn<int>("systemTokens");
        QTest::newRow("unique prompts") << 0 << 0;
        QTest::newRow("shared prefix and system prompt") << 50 << 30;
    }
    void saltMakesARunsPromptsItsOwn()
    {
        QFETCH(int, sharedPrefixTokens);
        QFETCH(int, systemTokens);
        PromptConfig config;
        config.promptTokens = 200;
        config.sharedPrefixTokens = sharedPrefixTokens;
        config.systemTokens = systemTokens;
        config.salt = QStringLiteral("3f2a9c0d41b7e856");
        const auto run = PromptSource::create(config, 1, nullptr);
        const auto replay = PromptSource::create(config, 1, nullptr);
        config.salt = QStringLiteral("77aa01c2d3e4f5b6");
        const auto next = PromptSource::create(config, 1, nullptr);
        for (std::uint64_t i : {0, 1, 7}) {
            // The same salt replays a run exactly; another shares nothing a cache could reuse.
            QCOMPARE(replay->prompt(i).user, run->prompt(i).user);
            QCOMPARE(replay->prompt(i).system, run->prompt(i).system);
            QCOMPARE(tokens(next->prompt(i).user), std::int64_t(200));
        }
        if (systemTokens > 0) {
            QVERIFY(next->prompt(0).system != run->prompt(0).system);
            QCOMPARE(run->prompt(0).system, run->prompt(1).system); // shared within the run, as configured
        }
        if (sharedPrefixTokens > 0) {
            // Still shared within the run, salted per run.
            QCOMPARE(run->prompt(0).user.substr(0, 100), run->prompt(1).user.substr(0, 100));
            QVERIFY(next->prompt(0).user.substr(0, 100) != run->prompt(0).user.substr(0, 100));
        } else {
            // Unique prompts start with their request number; what follows depends on the salt.
            QVERIFY(next->prompt(3).user != run->prompt(3).user);
        }
    }

    void templates()
    {
        QMap<QString, QString> vars{{QStringLiteral("topic"), QStringLiteral("queues")}};
        QCOMPARE(PromptSource::expandTemplate(QStringLiteral("About {{topic}} #{{ index }} seed {{seed}} {{unknown}}"),
                                              vars, 3, 9),
                 std::string("About queues #3 seed 9 {{unknown}}"));
    }

    void jsonlFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("prompts.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"prompt\": \"first\"}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"second one\"}], "
                "\"system\": \"be brief\"}\n");
        f.close();
        PromptConfig config;
        config.promptFile = path;
        QString error;
        const auto source = PromptSource::create(config, 1, &error);
        QVERIFY2(source, qPrintable(error));
        QCOMPARE(source->fileLines(), std::size_t(2));
        QCOMPARE(source->prompt(0).user, std::string("first"));
        QCOMPARE(source->prompt(1).system, std::string("be brief"));
        QCOMPARE(source->prompt(1).tokens, std::int64_t(3 + 3)); // "be brie·f" + "seco·nd one"
        QCOMPARE(source->prompt(2).user, std::string("first"));  // wraps around
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << QByteArray("{\"prompt\": \"ok\"}\nnope\n")
                                  << QStringLiteral("line 2: not a JSON object");
        QTest::newRow("wrong shape") << QByteArray("{\"text\": \"x\"}\n")
                                     << QStringLiteral("line 1: expected {\"prompt\"");
        QTest::newRow("bad message") << QByteArray("{\"messages\": [{\"content\": \"x\"}]}\n")
                                     << QStringLiteral("\"role\" and \"content\"");
        QTest::newRow("empty") << QByteArray("\n\n") << QStringLiteral("no prompts");
    }

    void badFiles()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.jsonl"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();
        PromptConfig config;
        config.promptFile = path;
        QString message;
        QVERIFY(!PromptSource::create(config, 1, &message));
        QVERIFY2(message.contains(error), qPrintable(message));
        QVERIFY(message.contains(path));
    }
};

QTEST_GUILESS_MAIN(TestPromptSource)
#include "tst_promptsource.moc"
