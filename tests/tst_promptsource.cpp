#include "sim/prefixcache.h"
#include "tokenize/tokenizer.h"
#include "workload/promptsource.h"

#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include "support/testfiles.h"

using namespace tb;
using tb::test::writeFile;

namespace {

std::int64_t tokens(const std::string &s)
{
    return ApproxTokenizer::countUtf8(s.data(), s.size());
}

/// The text of a prompt's first user message (its first content part's).
std::string firstUserText(const Prompt &p)
{
    if (!p.messages.is_array())
        return p.user;
    for (const auto &m : p.messages) {
        if (m.value("role", std::string()) != "user")
            continue;
        const auto &content = m["content"];
        return content.is_string() ? content.get<std::string>() : content[0]["text"].get<std::string>();
    }
    return {};
}

/// Everything a prompt sends, as one text.
std::string sent(const Prompt &p)
{
    return p.system + '\n' + p.user + '\n' + p.messages.dump();
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

    /// With a tokenizer file, sizes are exact in it (here files whose tokens are mostly bytes, so
    /// words are several tokens each and the one-token filler is not " a").
    void syntheticIsExactInATokenizerFile_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<int>("systemTokens");
        QTest::addColumn<int>("prefixTokens");
        for (const char *file : {"tiny.tiktoken", "tiny-bytelevel-tokenizer.json", "tiny-metaspace-tokenizer.json"}) {
            QTest::addRow("%s: small", file) << QString::fromLatin1(file) << 17 << 0 << 0;
            QTest::addRow("%s: long, system, shared prefix", file) << QString::fromLatin1(file) << 4001 << 129 << 700;
        }
    }

    void syntheticIsExactInATokenizerFile()
    {
        QFETCH(QString, file);
        QFETCH(int, promptTokens);
        QFETCH(int, systemTokens);
        QFETCH(int, prefixTokens);
        QString error;
        const auto tokenizer = Tokenizer::load(QStringLiteral(TOKENBENCH_TESTDATA "/") + file, &error);
        QVERIFY2(tokenizer, qPrintable(error));
        PromptConfig config;
        config.promptTokens = promptTokens;
        config.systemTokens = systemTokens;
        config.sharedPrefixTokens = prefixTokens;
        const auto source = PromptSource::create(config, 7, &error, tokenizer);
        QVERIFY2(source, qPrintable(error));
        for (std::uint64_t i : {0, 1, 99, 123456}) {
            const Prompt p = source->prompt(i);
            QCOMPARE(tokenizer->count(p.user), std::int64_t(promptTokens));
            QCOMPARE(tokenizer->count(p.system), std::int64_t(systemTokens));
            QCOMPARE(p.tokens, std::int64_t(promptTokens + systemTokens));
        }
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
        // The shared prefix is the same for every request; the request number follows at once,
        // then text that differs too (the run's text rotated to another word).
        const std::string p5 = a->prompt(5).user;
        const std::string p6 = a->prompt(6).user;
        std::size_t common = 0;
        while (common < p5.size() && p5[common] == p6[common])
            ++common;
        const std::size_t tag = p5.rfind(" #", common);
        QCOMPARE(p5.substr(tag, 9), std::string(" #000005:"));
        QCOMPARE(tokens(p5.substr(0, tag)), std::int64_t(50));
        QVERIFY(p5.substr(p5.find(':', common)) != p6.substr(p6.find(':', common)));
        // Calibration probes are the run's prompts in size and number, not in text.
        QCOMPARE(tokens(a->probe(5).user), std::int64_t(200));
        QCOMPARE(a->probe(5).user.substr(0, common + 2), p5.substr(0, common + 2));
        QVERIFY(a->probe(5).user != p5);
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

    /// Regression: the second of two identical runs now and then got cache hits (tst_runcli,
    /// tst_ui_dashboard flaked): synthetic text walked the corpus from where the salt said, so
    /// about one request in 450 began as the same-numbered request of another run had. The
    /// simulator's own cache, holding many runs' requests and probes, finds none in the next run.
    void differentlySaltedRunsSharedCacheBlocks_data()
    {
        QTest::addColumn<int>("systemTokens");
        QTest::addColumn<int>("prefixTokens");
        QTest::newRow("unique prompts") << 0 << 0;
        QTest::newRow("system prompt") << 100 << 0;
        QTest::newRow("shared prefix") << 0 << 100;
    }
    void differentlySaltedRunsSharedCacheBlocks()
    {
        QFETCH(int, systemTokens);
        QFETCH(int, prefixTokens);
        PromptConfig config;
        config.promptTokens = 400;
        config.systemTokens = systemTokens;
        config.sharedPrefixTokens = prefixTokens;
        // What the simulator caches of a chat request: the messages' contents, one a line.
        const auto blocksOf = [](const Prompt &p) {
            return sim::PrefixCache::blocks(p.system.empty() ? p.user : p.system + '\n' + p.user);
        };
        sim::PrefixCache cache(std::int64_t(1) << 40);
        QRandomGenerator salts(7);
        for (int run = 0; run < 100; ++run) {
            config.salt = QString::number(salts.generate64(), 16); // as BenchmarkRunner draws one
            const auto source = PromptSource::create(config, 1, nullptr);
            std::vector<std::vector<sim::PrefixCache::Block>> sent;
            for (std::uint64_t i = 0; i < 10; ++i) {
                for (const Prompt &p : {source->probe(i), source->prompt(i)}) {
                    sent.push_back(blocksOf(p));
                    QVERIFY2(cache.cachedBytes(sent.back()) == 0,
                             qPrintable(QStringLiteral("run %1 (salt %2), request %3: %4 bytes cached by earlier runs")
                                            .arg(run)
                                            .arg(config.salt)
                                            .arg(i)
                                            .arg(cache.cachedBytes(sent.back()))));
                }
            }
            for (const auto &blocks : sent) // after the run's own: they share its prefix, as asked
                cache.insert(blocks);
        }
        // The same salt again is the same prompts: the cache holds them.
        const auto replay = PromptSource::create(config, 1, nullptr);
        QVERIFY(cache.cachedBytes(blocksOf(replay->prompt(9))) > 0);
    }

    /// Regression: a calibration probe drew its text's rotation from the same few hundred cuts as
    /// the run's requests, so now and then it began as the request with its number did and put
    /// that request's text in the server's cache (tst_runcli saw 13-23% of a run's prompt tokens
    /// cached). A run's probes now warm no cache block of its requests.
    void calibrationProbesCachedARequestsText()
    {
        PromptConfig config;
        config.promptTokens = 250;
        QRandomGenerator salts(11);
        for (int run = 0; run < 200; ++run) {
            config.salt = QString::number(salts.generate64(), 16);
            const auto source = PromptSource::create(config, 1, nullptr);
            sim::PrefixCache cache(std::int64_t(1) << 40);
            for (std::uint64_t i = 0; i < 8; ++i)
                cache.insert(sim::PrefixCache::blocks(source->probe(i).user));
            for (std::uint64_t i = 0; i < 8; ++i) {
                const std::size_t cached = cache.cachedBytes(sim::PrefixCache::blocks(source->prompt(i).user));
                QVERIFY2(cached == 0, qPrintable(QStringLiteral("run %1 (salt %2), request %3: %4 bytes cached by the "
                                                                "probes")
                                                     .arg(run)
                                                     .arg(config.salt)
                                                     .arg(i)
                                                     .arg(cached)));
            }
        }
    }

    /// Regression: with salted prompts, calibration against a target counting with another
    /// tokenizer missed the requested size by 1–2% (each request drew fresh text, whose target
    /// tokens per local token differ from the probes'). A run's prompts now count alike there.
    void saltedPromptsMissedTheCalibratedSize_data()
    {
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<QString>("salt");
        QTest::newRow("200 tokens") << 200 << QStringLiteral("3f2a9c0d41b7e856");
        QTest::newRow("200 tokens, another salt") << 200 << QStringLiteral("77aa01c2d3e4f5b6");
        QTest::newRow("1024 tokens") << 1024 << QStringLiteral("0123456789abcdef");
    }
    void saltedPromptsMissedTheCalibratedSize()
    {
        QFETCH(int, promptTokens);
        QFETCH(QString, salt);
        QString error;
        const auto target = Tokenizer::load(QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken"), &error);
        QVERIFY2(target, qPrintable(error));
        PromptConfig config;
        config.promptTokens = promptTokens;
        config.systemTokens = 64;
        config.salt = salt;
        const auto source = PromptSource::create(config, 1, nullptr);
        // The calibration's probes against the run's requests.
        double probes = 0;
        for (std::uint64_t i = 0; i < 3; ++i)
            probes += double(target->count(source->probe(i).user)) / 3;
        for (std::uint64_t i = 0; i < 30; ++i) {
            const std::int64_t n = target->count(source->prompt(i).user);
            QVERIFY2(double(n) == probes,
                     qPrintable(QStringLiteral("request %1: %2 tokens, the probes %3").arg(i).arg(n).arg(probes)));
        }
    }

    /// Regression: calibrated against a target with ~3.7 tokens per local token (tiny.tiktoken),
    /// prompt sizes moved in steps of ~3.7 target tokens, coarser than the ±2.64 allowed at 264
    /// tokens, and runs missed it about half the time. Words off and fillers now move every request
    /// by the same step, a filler being the finest.
    void calibrationStepsWereCoarserThanTheTolerance_data()
    {
        QTest::addColumn<int>("trim");
        QTest::addColumn<int>("pad");
        QTest::newRow("fillers") << 0 << 3;
        QTest::newRow("words off") << 2 << 0;
        QTest::newRow("both") << 1 << 4;
    }
    void calibrationStepsWereCoarserThanTheTolerance()
    {
        QFETCH(int, trim);
        QFETCH(int, pad);
        QString error;
        const auto target = Tokenizer::load(QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken"), &error);
        QVERIFY2(target, qPrintable(error));
        PromptConfig config;
        config.promptTokens = 200;
        config.systemTokens = 64;
        config.salt = QStringLiteral("3f2a9c0d41b7e856");
        const PromptCalibration coarse{3.7, 9};
        PromptCalibration fine = coarse;
        fine.trim = trim;
        fine.pad = pad;
        const auto before = PromptSource::create(config, 1, nullptr, nullptr, coarse);
        const auto after = PromptSource::create(config, 1, nullptr, nullptr, fine);
        QCOMPARE(after->localPromptTokens(), before->localPromptTokens() - trim + pad);
        const std::int64_t probed = target->count(after->probe(0).user);
        // (Not a number holding "123": a merge of tiny.tiktoken's.)
        for (std::uint64_t i : {0, 1, 9, 10, 29, 999, 45678}) {
            const Prompt p = after->prompt(i);
            QCOMPARE(p.tokens, before->prompt(i).tokens - trim + pad);
            // Every request counts as the probe did, in the target too.
            QCOMPARE(target->count(p.user), probed);
            if (trim == 0) {
                std::string padded = before->prompt(i).user;
                for (int f = 0; f < pad; ++f)
                    padded += " a";
                QCOMPARE(p.user, padded);
            }
        }
    }

    void templates()
    {
        QMap<QString, QString> vars{{QStringLiteral("topic"), QStringLiteral("queues")}};
        QCOMPARE(PromptSource::expandTemplate(QStringLiteral("About {{topic}} #{{ index }} seed {{seed}} {{unknown}}"),
                                              vars, 3, 9),
                 std::string("About queues #3 seed 9 {{unknown}}"));
    }

    /// Regression: without prompt flags every request sent the same "Hello", so a prefix-caching
    /// server served all but the first from its cache — a cache test, not the run's own prompts.
    /// Every source's requests now differ from the start of their first user message (a salt tag
    /// from the run's salt and the request number); what is shared by design stays shared.
    void defaultPromptsAreUniquePerRequest_data()
    {
        QTest::addColumn<QString>("file"); ///< under tests/data/workload; empty: no file
        QTest::addColumn<QString>("role"); ///< "prompt-file", "dataset", "trace" or "" (synthetic, template)
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<QString>("userTemplate");
        QTest::addColumn<int>("entries"); ///< request `entries` is entry 0 again
        QTest::newRow("no flags: Hello") << QString() << QString() << 0 << QString() << 1;
        QTest::newRow("a template without {{index}}")
            << QString() << QString() << 0 << QStringLiteral("Summarise the history of queues.") << 1;
        QTest::newRow("synthetic") << QString() << QString() << 64 << QString() << 1;
        QTest::newRow("prompt lines") << QStringLiteral("prompts-lengths.jsonl") << QStringLiteral("prompt-file") << 0
                                      << QString() << 4;
        QTest::newRow("messages lines, a system message first")
            << QStringLiteral("messages.jsonl") << QStringLiteral("prompt-file") << 0 << QString() << 2;
        QTest::newRow("ShareGPT dataset")
            << QStringLiteral("sharegpt.json") << QStringLiteral("dataset") << 0 << QString() << 3;
        QTest::newRow("timed prompt lines")
            << QStringLiteral("trace-prompts.jsonl") << QStringLiteral("trace") << 0 << QString() << 3;
    }

    void defaultPromptsAreUniquePerRequest()
    {
        QFETCH(QString, file);
        QFETCH(QString, role);
        QFETCH(int, promptTokens);
        QFETCH(QString, userTemplate);
        QFETCH(int, entries);
        PromptConfig config;
        config.salt = QStringLiteral("one");
        config.promptTokens = promptTokens;
        config.userTemplate = userTemplate;
        const QString path = file.isEmpty() ? QString() : QStringLiteral(TOKENBENCH_TESTDATA "/workload/") + file;
        if (role == QLatin1String("prompt-file"))
            config.promptFile = path;
        else if (role == QLatin1String("dataset"))
            config.dataset = path;
        const QString trace = role == QLatin1String("trace") ? path : QString();
        const auto make = [&](const PromptConfig &c) {
            QString error;
            auto source = PromptSource::create(c, 1, &error, nullptr, {}, trace);
            if (!source)
                qFatal("%s", qPrintable(error));
            return source;
        };
        const auto run = make(config);
        QCOMPARE(qsizetype(run->fileLines()), file.isEmpty() ? 0 : entries);
        const auto e = std::uint64_t(entries);
        for (std::uint64_t i = 0; i < e; ++i) {
            const Prompt first = run->prompt(i), again = run->prompt(i + e), third = run->prompt(i + 2 * e);
            QVERIFY(sent(first) != sent(again) && sent(again) != sent(third) && sent(first) != sent(third));
            // Apart from the start of the first user message: the system prompt stays shared.
            QCOMPARE(first.system, again.system);
            QVERIFY2(firstUserText(first).substr(0, 19) != firstUserText(again).substr(0, 19),
                     qPrintable(QString::fromStdString(firstUserText(first))));
            QCOMPARE(first.tokens, PromptSource::count(first, run->tokenizer()));
        }
        QVERIFY(run->sharedTokens());
        // The salt decides: the same one gives the same prompts back, another others.
        QCOMPARE(sent(make(config)->prompt(1)), sent(run->prompt(1)));
        PromptConfig other = config;
        other.salt = QStringLiteral("two");
        QVERIFY(sent(make(other)->prompt(1)) != sent(run->prompt(1)));

        // Repetition asked for: every request of an entry sends it as written.
        PromptConfig repeated = config;
        repeated.repeat = true;
        const auto repeat = make(repeated);
        QVERIFY(!repeat->sharedTokens());
        for (std::uint64_t i = 0; i < e; ++i) {
            QCOMPARE(sent(repeat->prompt(i)), sent(repeat->prompt(i + e)));
            if (!file.isEmpty()) {
                const WorkloadEntry &entry = repeat->entries()[std::size_t(i)];
                QCOMPARE(repeat->prompt(i).user, entry.user);
                QVERIFY(repeat->prompt(i).messages == entry.messages);
            }
        }
        if (file.isEmpty() && promptTokens == 0)
            QCOMPARE(repeat->prompt(3).user,
                     userTemplate.isEmpty() ? std::string("Hello") : userTemplate.toStdString());
    }

    /// What requests share by design, which a server may serve from its cache: the synthetic
    /// system prompt and shared prefix, or a file's system prompts and messages before the first
    /// user message (the longest of them).
    void sharedTokensAreWhatRequestsShareByDesign()
    {
        PromptConfig config;
        config.promptTokens = 100;
        config.systemTokens = 30;
        config.sharedPrefixTokens = 20;
        QString error;
        auto source = PromptSource::create(config, 1, &error);
        QVERIFY2(source, qPrintable(error));
        QCOMPARE(source->sharedTokens(), std::optional<std::int64_t>(50));
        config = {};
        config.promptFile = QStringLiteral(TOKENBENCH_TESTDATA "/workload/messages.jsonl");
        source = PromptSource::create(config, 1, &error);
        QVERIFY2(source, qPrintable(error));
        QCOMPARE(source->sharedTokens(), std::optional<std::int64_t>(tokens("Answer briefly.")));
        const Prompt p = source->prompt(0);
        QVERIFY(p.messages[0]["content"] == "Answer briefly.");
        QVERIFY(p.messages[1]["content"].get<std::string>().ends_with("] What is a prefix cache?"));
        QVERIFY(p.messages[3]["content"] == "Thanks."); // only the first user message
        const Prompt parts = source->prompt(1);
        QCOMPARE(parts.messages[0]["content"].size(), std::size_t(2)); // a text part of its own, first
        QVERIFY(parts.messages[0]["content"][1]["text"] == "Describe continuous batching.");
        // A trace's hash blocks are shared by design: nothing to hold the cache hits against.
        config = {};
        source = PromptSource::create(config, 1, &error, nullptr, {},
                                      QStringLiteral(TOKENBENCH_TESTDATA "/workload/mooncake.jsonl"));
        QVERIFY2(source, qPrintable(error));
        QVERIFY(!source->sharedTokens());
    }

    void jsonlFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("prompts.jsonl"));
        QVERIFY(writeFile(
            path, "{\"prompt\": \"first\"}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"second one\"}], "
                  "\"system\": \"be brief\"}\n"));
        PromptConfig config;
        config.promptFile = path;
        config.repeat = true; // as written
        QString error;
        const auto source = PromptSource::create(config, 1, &error);
        QVERIFY2(source, qPrintable(error));
        QCOMPARE(source->fileLines(), std::size_t(2));
        QCOMPARE(source->prompt(0).user, std::string("first"));
        QCOMPARE(source->prompt(1).system, std::string("be brief"));
        QCOMPARE(source->prompt(1).tokens, std::int64_t(3 + 3)); // "be brie·f" + "seco·nd one"
        QCOMPARE(source->prompt(2).user, std::string("first"));  // wraps around
    }

    void datasetLengthsBecomeMaxTokens_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("fromDataset");
        QTest::addColumn<QList<int>>("maxTokens"); ///< per entry; 0: the configured max_tokens
        QTest::newRow("prompt lines: max_tokens always, output_len when asked")
            << QStringLiteral("prompts-lengths.jsonl") << false << QList<int>{12, 0, 0, 7};
        QTest::newRow("prompt lines with --max-tokens dataset")
            << QStringLiteral("prompts-lengths.jsonl") << true << QList<int>{12, 40, 0, 7};
        QTest::newRow("sharegpt replies only when asked")
            << QStringLiteral("sharegpt.jsonl") << false << QList<int>{0, 0};
        QTest::newRow("sharegpt with --max-tokens dataset")
            << QStringLiteral("sharegpt.jsonl") << true
            << QList<int>{int(tokens("Requests queue once the batch is full.")),
                          int(tokens("Requests that met every target, per second."))};
    }

    void datasetLengthsBecomeMaxTokens()
    {
        QFETCH(QString, file);
        QFETCH(bool, fromDataset);
        QFETCH(QList<int>, maxTokens);
        PromptConfig config;
        config.dataset = QStringLiteral(TOKENBENCH_TESTDATA "/workload/") + file;
        config.outputLenAsMaxTokens = fromDataset;
        QString error;
        const auto source = PromptSource::create(config, 1, &error);
        QVERIFY2(source, qPrintable(error));
        QCOMPARE(qsizetype(source->fileLines()), maxTokens.size());
        for (qsizetype i = 0; i < maxTokens.size(); ++i)
            QCOMPARE(source->prompt(std::uint64_t(i)).maxTokens, maxTokens[i]);
    }

    void traceTextHasTheTracesLengthAndSharesHashBlocks()
    {
        PromptConfig config;
        config.salt = QStringLiteral("one");
        const QString trace = QStringLiteral(TOKENBENCH_TESTDATA "/workload/mooncake.jsonl");
        QString error;
        const auto run = PromptSource::create(config, 1, &error, nullptr, {}, trace);
        QVERIFY2(run, qPrintable(error));
        QVERIFY(run->isTrace());
        const std::int64_t lengths[] = {1100, 1300, 700, 600};
        const int outputs[] = {5, 6, 4, 3};
        for (std::uint64_t i = 0; i < 4; ++i) {
            QCOMPARE(run->prompt(i).tokens, lengths[i]);
            QCOMPARE(run->prompt(i).maxTokens, outputs[i]); // max_tokens = output_length
        }
        QCOMPARE(run->traceOffsetNs(2), std::int64_t(260'000'000));
        QCOMPARE(run->traceOffsetNs(4), std::int64_t(-1));
        // Lines 1 and 2 name blocks 0 and 1: the same 1024 tokens of text, then different.
        const std::string a = run->prompt(0).user, b = run->prompt(1).user, c = run->prompt(2).user;
        const auto common = std::size_t(std::mismatch(a.begin(), a.end(), b.begin(), b.end()).first - a.begin());
        QVERIFY(tokens(a.substr(0, common)) >= 1024 && tokens(a.substr(0, common)) < 1030);
        QVERIFY(a.substr(0, 40) != c.substr(0, 40));
        // Deterministic for a salt, different for another.
        QCOMPARE(PromptSource::create(config, 1, nullptr, nullptr, {}, trace)->prompt(1).user, b);
        config.salt = QStringLiteral("two");
        QVERIFY(PromptSource::create(config, 1, nullptr, nullptr, {}, trace)->prompt(0).user.substr(0, 40) !=
                a.substr(0, 40));
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
        QVERIFY(writeFile(path, content));
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
