#include "config/runconfig.h"

#include <QTemporaryDir>
#include <QTest>

using namespace tb;

namespace {

RunConfig validConfig()
{
    RunConfig c;
    c.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    c.target.model = QStringLiteral("m");
    return c;
}

} // namespace

class TestRunConfig : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void durations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms"); // -1: invalid
        QTest::newRow("ms") << QStringLiteral("250ms") << qint64(250);
        QTest::newRow("seconds") << QStringLiteral("30s") << qint64(30000);
        QTest::newRow("fraction") << QStringLiteral("1.5s") << qint64(1500);
        QTest::newRow("minutes") << QStringLiteral("5m") << qint64(300000);
        QTest::newRow("hours") << QStringLiteral("1h") << qint64(3600000);
        QTest::newRow("bare number is seconds") << QStringLiteral("60") << qint64(60000);
        QTest::newRow("negative") << QStringLiteral("-5s") << qint64(-1);
        QTest::newRow("garbage") << QStringLiteral("soon") << qint64(-1);
        QTest::newRow("unknown unit") << QStringLiteral("5d") << qint64(-1);
    }

    void durations()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        const auto parsed = parseDurationMs(text);
        if (ms < 0) {
            QVERIFY(!parsed);
        } else {
            QVERIFY(parsed);
            QCOMPARE(*parsed, ms);
            QCOMPARE(parseDurationMs(formatDuration(ms)), parsed);
        }
    }

    void stages_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<int>("count"); // -1: invalid
        QTest::addColumn<QString>("roundTrip");
        QTest::newRow("concurrency steps") << QStringLiteral("c=50:30s,c=100:30s,c=200:30s") << 3 << QStringLiteral("c=50:30s,c=100:30s,c=200:30s");
        QTest::newRow("rate steps with counts") << QStringLiteral("r=20:60s, r=100:500") << 2 << QStringLiteral("r=20:1m,r=100:500");
        QTest::newRow("fractional rate") << QStringLiteral("r=0.5:10s") << 1 << QStringLiteral("r=0.5:10s");
        QTest::newRow("no end") << QStringLiteral("c=4") << 1 << QStringLiteral("c=4");
        QTest::newRow("bad prefix") << QStringLiteral("x=4:10s") << -1 << QString();
        QTest::newRow("bad end") << QStringLiteral("c=4:soon") << -1 << QString();
        QTest::newRow("empty") << QString() << -1 << QString();
    }

    void stages()
    {
        QFETCH(QString, spec);
        QFETCH(int, count);
        QFETCH(QString, roundTrip);
        QString error;
        const auto stages = parseStages(spec, &error);
        if (count < 0) {
            QVERIFY(!stages);
            QVERIFY2(error.contains(QStringLiteral("c=50:30s")), qPrintable(error));
            return;
        }
        QVERIFY2(stages, qPrintable(error));
        QCOMPARE(stages->size(), count);
        QCOMPARE(formatStages(*stages), roundTrip);
    }

    void sweep_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("stages"); // formatStages() of the result; empty: refused
        QTest::newRow("doubling") << "c=1..256" << "c=1,c=2,c=4,c=8,c=16,c=32,c=64,c=128,c=256";
        QTest::newRow("doubling to a level off the doubling") << "c=1..100" << "c=1,c=2,c=4,c=8,c=16,c=32,c=64,c=100";
        QTest::newRow("log-spaced users") << "c=8..128x5" << "c=8,c=16,c=32,c=64,c=128";
        QTest::newRow("repeats dropped") << "c=1..3x5" << "c=1,c=2,c=3";
        QTest::newRow("log-spaced rates, stage length") << "r=2..50x6:60s" << "r=2:1m,r=3.81:1m,r=7.25:1m,r=13.8:1m,r=26.3:1m,r=50:1m";
        QTest::newRow("request count per stage") << "c=4..16:200" << "c=4:200,c=8:200,c=16:200";
        QTest::newRow("not rising") << "c=5..5" << "";
        QTest::newRow("from zero") << "c=0..10" << "";
        QTest::newRow("one level") << "c=1..10x1" << "";
        QTest::newRow("bad end") << "c=1..10:soon" << "";
        QTest::newRow("unknown mode") << "q=1..10" << "";
        QTest::newRow("rounds to one level") << "c=1..1.4" << "";
    }

    void sweep()
    {
        QFETCH(QString, spec);
        QFETCH(QString, stages);
        QString error;
        const auto parsed = parseSweep(spec, &error);
        QCOMPARE(parsed.has_value(), !stages.isEmpty());
        if (parsed)
            QCOMPARE(formatStages(*parsed), stages);
        else
            QVERIFY2(error.startsWith(QStringLiteral("malformed sweep '%1'").arg(spec)), qPrintable(error));
    }

    void effectiveStagesFillDefaults()
    {
        LoadConfig load;
        load.concurrency = 8;
        load.durationMs = 10000;
        auto stages = effectiveStages(load);
        QCOMPARE(stages.size(), 1);
        QCOMPARE(stages[0].name, QStringLiteral("c=8"));
        QCOMPARE(stages[0].durationMs, qint64(10000));

        load = {};
        load.mode = LoadMode::Rate;
        load.rate = 20;
        stages = effectiveStages(load);
        QCOMPARE(stages[0].requests, qint64(100)); // documented default stop condition
        QCOMPARE(stages[0].name, QStringLiteral("r=20"));
    }

    void slo()
    {
        QString error;
        auto slo = parseSlo(QStringLiteral("ttft_ms=500,tpot_ms=50,e2e_ms=10000"), &error);
        QVERIFY(slo);
        QCOMPARE(*slo->ttftMs, 500.0);
        QCOMPARE(*slo->tpotMs, 50.0);
        QCOMPARE(*slo->e2eMs, 10000.0);
        QVERIFY(!parseSlo(QStringLiteral("ttft=500"), &error));
        QVERIFY(error.contains(QStringLiteral("ttft_ms")));
        QVERIFY(!parseSlo(QStringLiteral("ttft_ms=-1"), &error));
    }

    void validation_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("expected");
        QTest::newRow("zero concurrency") << QStringLiteral("concurrency") << QStringLiteral("load.concurrency (--concurrency)");
        QTest::newRow("no url") << QStringLiteral("url") << QStringLiteral("target.url (--url): missing");
        QTest::newRow("bad url") << QStringLiteral("badurl") << QStringLiteral("not an http:// or https:// URL");
        QTest::newRow("no model") << QStringLiteral("model") << QStringLiteral("target.model (--model)");
        QTest::newRow("zero rate") << QStringLiteral("rate") << QStringLiteral("load.rate (--rate)");
        QTest::newRow("bad top_p") << QStringLiteral("top_p") << QStringLiteral("request.top_p");
        QTest::newRow("missing prompt file") << QStringLiteral("prompt_file") << QStringLiteral("cannot read");
        QTest::newRow("fractional users") << QStringLiteral("stage") << QStringLiteral("whole number of users");
        QTest::newRow("bad replica") << QStringLiteral("replica") << QStringLiteral("target.replicas[0] (--url): 'ftp://x/' is not an http://");
        QTest::newRow("replica repeats url") << QStringLiteral("replica twice") << QStringLiteral("target.replicas[0] (--url): 'http://127.0.0.1:8000/v1' is listed twice");
    }

    void validation()
    {
        QFETCH(QString, field);
        QFETCH(QString, expected);
        QVERIFY(validate(validConfig()).isEmpty());
        RunConfig c = validConfig();
        if (field == QLatin1String("concurrency"))
            c.load.concurrency = 0;
        else if (field == QLatin1String("url"))
            c.target.url.clear();
        else if (field == QLatin1String("badurl"))
            c.target.url = QStringLiteral("ftp://x/");
        else if (field == QLatin1String("model"))
            c.target.model.clear();
        else if (field == QLatin1String("rate")) {
            c.load.mode = LoadMode::Rate;
            c.load.rate = 0;
        } else if (field == QLatin1String("top_p"))
            c.request.topP = 1.5;
        else if (field == QLatin1String("prompt_file"))
            c.prompt.promptFile = QStringLiteral("/nonexistent/prompts.jsonl");
        else if (field == QLatin1String("replica"))
            c.target.replicas = {QStringLiteral("ftp://x/")};
        else if (field == QLatin1String("replica twice"))
            c.target.replicas = {c.target.url};
        else if (field == QLatin1String("stage"))
            c.load.stages = {StageConfig{QString(), LoadMode::Concurrency, 2.5, 1000, 0}};
        const QStringList problems = validate(c);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains(expected), qPrintable(problems.first()));
    }

    void jsonRoundTrip()
    {
        RunConfig c = validConfig();
        c.target.name = QStringLiteral("local vLLM");
        c.target.api = ApiKind::AnthropicMessages;
        c.target.apiKeyEnv = QStringLiteral("MY_KEY");
        c.target.apiKey = QStringLiteral("sk-secret-never-saved");
        c.target.headers = {{QStringLiteral("X-Team"), QStringLiteral("perf")}};
        c.target.extraBody = {{"ignore_eos", true}};
        c.target.tlsVerify = false;
        c.target.caCertificate = QStringLiteral("/etc/ssl/certs/my-ca.pem");
        c.target.replicas = {QStringLiteral("http://10.0.0.2:8000/v1"), QStringLiteral("http://10.0.0.3:8000/v1")};
        c.target.balance = Balance::LeastInFlight;
        c.request.maxTokens = 1024;
        c.request.temperature = 0.3;
        c.request.stream = false;
        c.target.tokenizer = QStringLiteral("/models/llama-3/tokenizer.json");
        c.prompt.calibrate = true;
        c.prompt.promptTokens = 512;
        c.prompt.systemTokens = 128;
        c.prompt.userTemplate = QStringLiteral("Summarise {{topic}}");
        c.prompt.variables = {{QStringLiteral("topic"), QStringLiteral("queues")}};
        c.load.mode = LoadMode::Rate;
        c.load.rate = 12.5;
        c.load.arrival = Arrival::Constant;
        c.load.maxInFlight = 64;
        c.load.stages = *parseStages(QStringLiteral("r=20:60s,r=100:500"), nullptr);
        c.load.warmupMs = 5000;
        c.load.timeoutMs = 30000;
        c.load.seed = 18446744073709551615ULL; // regression: 64-bit seeds were read through double
        c.slo = *parseSlo(QStringLiteral("ttft_ms=500,e2e_ms=10000"), nullptr);
        c.slo.failOnSlo = true;

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("config.json"));
        QString error;
        QVERIFY2(saveRunConfig(c, path, &error), qPrintable(error));
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY2(!file.readAll().contains("sk-secret-never-saved"), "API key written to the config file");

        const auto loaded = loadRunConfig(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        RunConfig expected = c;
        expected.target.apiKey.clear();
        QVERIFY(*loaded == expected);
    }

    void badJson_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << QByteArray("{nope") << QStringLiteral("not valid JSON");
        QTest::newRow("unknown key") << QByteArray(R"({"load": {"concurency": 5}})") << QStringLiteral("load.concurency: unknown key");
        QTest::newRow("wrong type") << QByteArray(R"({"load": {"concurrency": "many"}})") << QStringLiteral("load.concurrency: must be a whole number");
        QTest::newRow("unknown api") << QByteArray(R"({"target": {"api": "grpc"}})") << QStringLiteral("openai-chat|openai-completions|anthropic-messages");
        QTest::newRow("api key in file") << QByteArray(R"({"target": {"api_key": "sk-x"}})") << QStringLiteral("never read from files");
        QTest::newRow("bad duration") << QByteArray(R"({"load": {"duration": "forever"}})") << QStringLiteral("load.duration: must be a duration");
        QTest::newRow("newer format") << QByteArray(R"({"version": 99})") << QStringLiteral("newer TokenBench");
        QTest::newRow("unknown balance") << QByteArray(R"({"target": {"balance": "weighted"}})") << QStringLiteral("target.balance: unknown value \"weighted\" (accepted: round-robin|least-in-flight|random)");
        QTest::newRow("replicas not a list") << QByteArray("{\"target\": {\"replicas\": \"http://a/v1\"}}") /* not a raw string: moc reads its // as a comment */ << QStringLiteral("target.replicas: must be an array of strings");
        QTest::newRow("bad stage") << QByteArray(R"({"load": {"stages": [{"mode": "burst"}]}})") << QStringLiteral("load.stages[0].mode");
        QTest::newRow("tokenizer file under request") << QByteArray(R"({"request": {"tokenizer": "tok.json"}})")
                                                      << QStringLiteral("request.tokenizer: 'tok.json': set target.tokenizer instead");
    }

    /// Configurations from before tokenizers were per target keep their meaning.
    void legacyRequestTokenizerIsTheTargets()
    {
        QString error;
        const auto c = runConfigFromJson(nlohmann::json::parse(R"({"request": {"tokenizer": "approx"}})"), &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->target.tokenizer, QStringLiteral("approx"));
        QVERIFY(!toJson(*c)["request"].contains("tokenizer"));
        QVERIFY(toJson(*c)["target"]["tokenizer"] == nlohmann::json("approx"));
    }

    void badJson()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(json);
        file.close();
        QString error;
        QVERIFY(!loadRunConfig(path, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestRunConfig)
#include "tst_runconfig.moc"
