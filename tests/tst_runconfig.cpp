#include "config/connectionlimits.h"
#include "config/runconfig.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "support/testfiles.h"

#include <sys/resource.h>

#include <cmath>
#include <limits>
#include <string_view>

using namespace Qt::Literals::StringLiterals;

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
        QTest::newRow("longer than a year") << QStringLiteral("8761h") << qint64(-1);
        QTest::newRow("overflowing") << QStringLiteral("99999999999999999999h") << qint64(-1);
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
        QTest::newRow("concurrency steps")
            << QStringLiteral("c=50:30s,c=100:30s,c=200:30s") << 3 << QStringLiteral("c=50:30s,c=100:30s,c=200:30s");
        QTest::newRow("rate steps with counts")
            << QStringLiteral("r=20:60s, r=100:500") << 2 << QStringLiteral("r=20:1m,r=100:500");
        QTest::newRow("fractional rate") << QStringLiteral("r=0.5:10s") << 1 << QStringLiteral("r=0.5:10s");
        QTest::newRow("no end") << QStringLiteral("c=4") << 1 << QStringLiteral("c=4");
        QTest::newRow("bad prefix") << QStringLiteral("x=4:10s") << -1 << QString();
        QTest::newRow("bad end") << QStringLiteral("c=4:soon") << -1 << QString();
        QTest::newRow("empty") << QString() << -1 << QString();
        QTest::newRow("stage ending after 0 requests") << QStringLiteral("c=1:0") << -1 << QString();
        QTest::newRow("stage ending after 0s") << QStringLiteral("c=1:0s") << -1 << QString();
        QTest::newRow("overflowing request count") << QStringLiteral("c=1:99999999999999999999") << -1 << QString();
        QTest::newRow("50000 stages") << QStringLiteral("c=1:1,").repeated(49999) + QStringLiteral("c=1:1") << -1
                                      << QString();
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
        QTest::newRow("doubling") << "c=1..256"
                                  << "c=1,c=2,c=4,c=8,c=16,c=32,c=64,c=128,c=256";
        QTest::newRow("doubling to a level off the doubling") << "c=1..100"
                                                              << "c=1,c=2,c=4,c=8,c=16,c=32,c=64,c=100";
        QTest::newRow("log-spaced users") << "c=8..128x5"
                                          << "c=8,c=16,c=32,c=64,c=128";
        QTest::newRow("repeats dropped") << "c=1..3x5"
                                         << "c=1,c=2,c=3";
        QTest::newRow("log-spaced rates, stage length") << "r=2..50x6:60s"
                                                        << "r=2:1m,r=3.81:1m,r=7.25:1m,r=13.8:1m,r=26.3:1m,r=50:1m";
        QTest::newRow("request count per stage") << "c=4..16:200"
                                                 << "c=4:200,c=8:200,c=16:200";
        QTest::newRow("not rising") << "c=5..5"
                                    << "";
        QTest::newRow("from zero") << "c=0..10"
                                   << "";
        QTest::newRow("one level") << "c=1..10x1"
                                   << "";
        QTest::newRow("bad end") << "c=1..10:soon"
                                 << "";
        QTest::newRow("unknown mode") << "q=1..10"
                                      << "";
        QTest::newRow("rounds to one level") << "c=1..1.4"
                                             << "";
        QTest::newRow("context sweep, log-spaced prompt sizes") << "p=256..16384x6"
                                                                << "c=1 p=256,p=588,p=1351,p=3104,p=7132,p=16384";
        QTest::newRow("context sweep, doubling, stage length") << "p=1024..8192:20"
                                                               << "c=1 p=1024:20,p=2048:20,p=4096:20,p=8192:20";
        QTest::newRow("context sweep beyond the prompt limit") << "p=256..3000000"
                                                               << "";
    }

    void contextSweepHoldsTheGivenLoad()
    {
        StageConfig load;
        load.mode = LoadMode::Rate;
        load.level = 2.5;
        const auto stages = parseSweep(QStringLiteral("p=256..1024"), nullptr, load);
        QVERIFY(stages);
        QCOMPARE(stages->size(), 3);
        for (const StageConfig &s : *stages) {
            QCOMPARE(s.mode, LoadMode::Rate);
            QCOMPARE(s.level, 2.5);
        }
        QCOMPARE(stages->at(1).promptTokens, 512);
        QVERIFY(isContextSweep(*stages));
        RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:1/v1");
        config.target.model = QStringLiteral("m");
        config.load.stages = *stages;
        QString error;
        const auto back = runConfigFromJson(toJson(config), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->load.stages, *stages);
        config.prompt.promptFile = QStringLiteral("prompts.jsonl");
        QVERIFY(validate(config).join(QLatin1Char('\n')).contains(QStringLiteral("needs synthetic prompts")));
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

    void emptySloRefused_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("empty") << QString();
        QTest::newRow("only commas") << QStringLiteral(",,");
    }

    // --slo "" was taken as "no thresholds": nothing to judge by, and --fail-on-slo never failed.
    void emptySloRefused()
    {
        QFETCH(QString, spec);
        QString error;
        QVERIFY(!parseSlo(spec, &error));
        QVERIFY2(error.startsWith(QStringLiteral("no threshold given")), qPrintable(error));
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
        QTest::newRow("zero concurrency")
            << QStringLiteral("concurrency") << QStringLiteral("load.concurrency (--concurrency)");
        QTest::newRow("no url") << QStringLiteral("url") << QStringLiteral("target.url (--url): missing");
        QTest::newRow("bad url") << QStringLiteral("badurl") << QStringLiteral("not an http:// or https:// URL");
        QTest::newRow("no model") << QStringLiteral("model") << QStringLiteral("target.model (--model)");
        QTest::newRow("zero rate") << QStringLiteral("rate") << QStringLiteral("load.rate (--rate)");
        QTest::newRow("bad top_p") << QStringLiteral("top_p") << QStringLiteral("request.top_p");
        QTest::newRow("missing prompt file") << QStringLiteral("prompt_file") << QStringLiteral("cannot read");
        QTest::newRow("fractional users") << QStringLiteral("stage") << QStringLiteral("whole number of users");
        QTest::newRow("think time without turns")
            << QStringLiteral("think_time")
            << QStringLiteral("load.think_time (--think-time): is the pause between a conversation's turns; it needs "
                              "--turns 2 or more");
        QTest::newRow("window neither all, steady nor a duration")
            << QStringLiteral("window")
            << QStringLiteral("load.window (--window): 'warm' is not all, steady or a duration (e.g. 30s)");
        QTest::newRow("window beyond a year")
            << QStringLiteral("long window") << QStringLiteral("load.window (--window): '9000h' is not all, steady");
        QTest::newRow("bad replica") << QStringLiteral("replica")
                                     << QStringLiteral("target.replicas[0] (--url): 'ftp://x/' is not an http://");
        QTest::newRow("replica repeats url")
            << QStringLiteral("replica twice")
            << QStringLiteral("target.replicas[0] (--url): 'http://127.0.0.1:8000/v1' is listed twice");
        QTest::newRow("NaN temperature")
            << QStringLiteral("nan temperature")
            << QStringLiteral("request.temperature (--temperature): must be between 0 and 2 (got nan)");
        QTest::newRow("NaN top_p") << QStringLiteral("nan top_p")
                                   << QStringLiteral("request.top_p (--top-p): must be in (0, 1] (got nan)");
        QTest::newRow("infinite rate") << QStringLiteral("inf rate")
                                       << QStringLiteral(
                                              "load.rate (--rate): must be from 0.00001 to 1000000 requests/s");
        QTest::newRow("infinite slo") << QStringLiteral("inf slo") << QStringLiteral("slo.ttft_ms (--slo)");
        QTest::newRow("concurrency beyond the maximum")
            << QStringLiteral("huge concurrency")
            << QStringLiteral("load.concurrency (--concurrency): must be from 1 to 100000");
        QTest::newRow("stage level beyond the maximum")
            << QStringLiteral("huge stage")
            << QStringLiteral("load.stages[0] (--stages): level must be greater than 0 and at most 100000");
        QTest::newRow("too many stages") << QStringLiteral("stages")
                                         << QStringLiteral("load.stages (--stages): 1001 stages; at most 1000");
        QTest::newRow("max_tokens beyond the maximum")
            << QStringLiteral("max_tokens")
            << QStringLiteral("request.max_tokens (--max-tokens): must be from 1 to 10000000");
        QTest::newRow("prompt plus system tokens")
            << QStringLiteral("prompt tokens")
            << QStringLiteral("prompt.system_tokens (--system-tokens): with prompt_tokens 2000001 tokens a request; at "
                              "most 2000000");
        QTest::newRow("header injection CRLF")
            << QStringLiteral("header crlf")
            << QStringLiteral("target.headers (--header): 'X-A' has a value that contains a line break");
        QTest::newRow("header injection NUL")
            << QStringLiteral("header nul")
            << QStringLiteral(
                   "target.headers (--header): 'X-A' has a value that contains a control character (U+0000)");
        QTest::newRow("header Host") << QStringLiteral("Host")
                                     << QStringLiteral("'Host' is one TokenBench sets itself");
        QTest::newRow("header Content-Length")
            << QStringLiteral("content-length") << QStringLiteral("'content-length' is one TokenBench sets itself");
        QTest::newRow("header Transfer-Encoding")
            << QStringLiteral("Transfer-Encoding")
            << QStringLiteral("'Transfer-Encoding' is one TokenBench sets itself");
        QTest::newRow("header Connection")
            << QStringLiteral("Connection") << QStringLiteral("'Connection' is one TokenBench sets itself");
        // Port 0 passed validation and failed at the first request (exit 1, where 99999 gets 2).
        QTest::newRow("url port 0 accepted")
            << QStringLiteral("port 0")
            << QStringLiteral("target.url (--url): 'http://127.0.0.1:0/v1' has port 0; a port is from 1 to 65535");
        QTest::newRow("replica port 0 accepted")
            << QStringLiteral("replica port 0")
            << QStringLiteral("target.replicas[0] (--url): 'http://127.0.0.1:0/v1' has port 0");
        // A NUL or CRLF in a name reached stdout raw; the value is not echoed.
        QTest::newRow("model with NUL accepted")
            << QStringLiteral("model nul")
            << QStringLiteral("target.model (--model): the name contains a control character (U+0000)");
        QTest::newRow("model with CRLF accepted")
            << QStringLiteral("model crlf")
            << QStringLiteral("target.model (--model): the name contains a line break (CR or LF)");
        QTest::newRow("target name with an escape sequence accepted")
            << QStringLiteral("name esc")
            << QStringLiteral("target.name (--name): the name contains a control character (U+001b)");
        QTest::newRow("stage name with LF accepted")
            << QStringLiteral("stage name lf")
            << QStringLiteral("load.stages[0] (--stages): the name contains a line break (CR or LF)");
        QTest::newRow("fail_on_slo without thresholds accepted")
            << QStringLiteral("fail_on_slo")
            << QStringLiteral("slo.fail_on_slo (--fail-on-slo): needs thresholds to judge by; give --slo");
        QTest::newRow("header from an unset variable")
            << QStringLiteral("unset env")
            << QStringLiteral("refers to the environment variable TB_TEST_UNSET_VAR, which is not set");
        QTest::newRow("redacted header") << QStringLiteral("redacted")
                                         << QStringLiteral("'Authorization' has no value: credentials are never saved");
        QTest::newRow("ca cert that is not PEM")
            << QStringLiteral("ca")
            << QStringLiteral("target.ca_cert (--ca-cert): '%1' holds no PEM certificate")
                   .arg(QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.key"));
        QTest::newRow("extra_body too deep")
            << QStringLiteral("deep") << QStringLiteral("target.extra_body: nests deeper than 62 levels");
        QTest::newRow("userinfo not in messages")
            << QStringLiteral("userinfo") << QStringLiteral("target.url (--url): 'http:///v1' is not an http");
        QTest::newRow("n > 1 merged choices")
            << QStringLiteral("n")
            << QStringLiteral("target.extra_body.n: only 1 choice per request is measured (got 4)");
        QTest::newRow("zero connect timeout")
            << QStringLiteral("connect_timeout") << QStringLiteral("load.connect_timeout (--connect-timeout)");
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
        else if (field == QLatin1String("think_time"))
            c.load.thinkTimeMs = 1000;
        else if (field == QLatin1String("window"))
            c.load.window = QStringLiteral("warm");
        else if (field == QLatin1String("long window"))
            c.load.window = QStringLiteral("9000h");
        else if (field == QLatin1String("replica twice"))
            c.target.replicas = {c.target.url};
        else if (field == QLatin1String("n"))
            c.target.extraBody = {{"n", 4}, {"ignore_eos", true}};
        else if (field == QLatin1String("connect_timeout"))
            c.load.connectTimeoutMs = 0;
        else if (field == QLatin1String("stage"))
            c.load.stages = {StageConfig{QString(), LoadMode::Concurrency, 2.5, 1000, 0}};
        else if (field == QLatin1String("nan temperature"))
            c.request.temperature = std::nan("");
        else if (field == QLatin1String("nan top_p"))
            c.request.topP = std::nan("");
        else if (field == QLatin1String("inf rate")) {
            c.load.mode = LoadMode::Rate;
            c.load.rate = std::numeric_limits<double>::infinity();
        } else if (field == QLatin1String("inf slo"))
            c.slo.ttftMs = std::numeric_limits<double>::infinity();
        else if (field == QLatin1String("huge concurrency"))
            c.load.concurrency = limits::kMaxConcurrency + 1;
        else if (field == QLatin1String("huge stage"))
            c.load.stages = {StageConfig{QString(), LoadMode::Concurrency, 1e11, 1000, 0}};
        else if (field == QLatin1String("stages"))
            c.load.stages =
                QList<StageConfig>(limits::kMaxStages + 1, StageConfig{QString(), LoadMode::Concurrency, 1, 0, 1});
        else if (field == QLatin1String("max_tokens"))
            c.request.maxTokens = limits::kMaxTokens + 1;
        else if (field == QLatin1String("prompt tokens")) {
            c.prompt.promptTokens = limits::kMaxPromptTokens;
            c.prompt.systemTokens = 1;
        } else if (field == QLatin1String("header crlf"))
            c.target.headers = {{QStringLiteral("X-A"), QStringLiteral("1\r\nX-Injected: 1")}};
        else if (field == QLatin1String("header nul"))
            c.target.headers = {{QStringLiteral("X-A"), QStringLiteral("1") + QChar(0) + QStringLiteral("2")}};
        else if (field == QLatin1String("unset env"))
            c.target.headers = {{QStringLiteral("X-Api-Key"), QStringLiteral("${env:TB_TEST_UNSET_VAR}")}};
        else if (field == QLatin1String("redacted"))
            c.target.headers = {{QStringLiteral("Authorization"), QLatin1String(kRedacted)}};
        else if (field == QLatin1String("ca"))
            c.target.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.key"); // readable, but a key
        else if (field == QLatin1String("deep")) {
            nlohmann::json deep = 1;
            for (int i = 0; i < 63; ++i)
                deep = nlohmann::json{{"a", deep}};
            c.target.extraBody = deep;
        } else if (field == QLatin1String("userinfo"))
            c.target.url = QStringLiteral("http://user:pw-secret@/v1");
        else if (field == QLatin1String("port 0"))
            c.target.url = QStringLiteral("http://127.0.0.1:0/v1");
        else if (field == QLatin1String("replica port 0"))
            c.target.replicas = {QStringLiteral("http://127.0.0.1:0/v1")};
        else if (field == QLatin1String("model nul"))
            c.target.model = QStringLiteral("m") + QChar(0) + QStringLiteral("x");
        else if (field == QLatin1String("model crlf"))
            c.target.model = QStringLiteral("m\r\nX-Injected: 1");
        else if (field == QLatin1String("name esc"))
            c.target.name = QStringLiteral("\x1b]0;title\x07");
        else if (field == QLatin1String("stage name lf"))
            c.load.stages = {StageConfig{QStringLiteral("warm\nup"), LoadMode::Concurrency, 1, 1000, 0}};
        else if (field == QLatin1String("fail_on_slo"))
            c.slo.failOnSlo = true;
        else if (QStringList{QStringLiteral("Host"), QStringLiteral("content-length"),
                             QStringLiteral("Transfer-Encoding"), QStringLiteral("Connection")}
                     .contains(field))
            c.target.headers = {{field, QStringLiteral("x")}};
        const QStringList problems = validate(c);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().contains(expected), qPrintable(problems.first()));
        QVERIFY2(!problems.first().contains(QStringLiteral("pw-secret")), qPrintable(problems.first()));
    }

    /// Regression: rates far below one a day passed validation, and the arrival gap 1e9 / rate
    /// overflowed int64 in the run, which then issued requests in an endless loop. Each way of
    /// giving a rate is refused below limits::kMinRate, naming its field; the minimum itself and one
    /// a day pass.
    void tinyRateRefusedBeforeItRunsAway_data()
    {
        QTest::addColumn<QString>("spelling"); // rate: what --rate sets; stages: --stages; json: --config
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected"); // empty: valid
        const QString rate = QStringLiteral("load.rate (--rate): must be from 0.00001 to 1000000 requests/s (got %1)");
        const QString stage =
            QStringLiteral("load.stages[0] (--stages): a rate must be from 0.00001 to 1000000 requests/s (got %1)");
        QTest::newRow("--rate 5e-11") << QStringLiteral("rate") << QStringLiteral("5e-11") << rate.arg(u"5e-11"_s);
        QTest::newRow("--rate 1e-12") << QStringLiteral("rate") << QStringLiteral("1e-12") << rate.arg(u"1e-12"_s);
        QTest::newRow("--rate just below the minimum")
            << QStringLiteral("rate") << QStringLiteral("0.0000099") << rate.arg(u"9.9e-06"_s);
        QTest::newRow("--rate at the minimum") << QStringLiteral("rate") << QStringLiteral("0.00001") << QString();
        QTest::newRow("--rate of one a day") << QStringLiteral("rate") << QStringLiteral("0.0000115741") << QString();
        QTest::newRow("--stages r=0.00000000001:2s")
            << QStringLiteral("stages") << QStringLiteral("r=0.00000000001:2s") << stage.arg(u"1e-11"_s);
        QTest::newRow("--stages r=0.00001:2s")
            << QStringLiteral("stages") << QStringLiteral("r=0.00001:2s") << QString();
        QTest::newRow("load.rate 1e-11") << QStringLiteral("json")
                                         << QStringLiteral(R"({"load": {"mode": "rate", "rate": 1e-11}})")
                                         << rate.arg(u"1e-11"_s);
        QTest::newRow("load.stages level 1e-11")
            << QStringLiteral("json")
            << QStringLiteral(R"({"load": {"stages": [{"mode": "rate", "level": 1e-11, "duration": "2s"}]}})")
            << stage.arg(u"1e-11"_s);
        QTest::newRow("load.rate one a day")
            << QStringLiteral("json") << QStringLiteral(R"({"load": {"mode": "rate", "rate": 0.0000115741}})")
            << QString();
    }

    void tinyRateRefusedBeforeItRunsAway()
    {
        QFETCH(QString, spelling);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        RunConfig c = validConfig();
        if (spelling == QLatin1String("rate")) {
            c.load.mode = LoadMode::Rate;
            c.load.rate = text.toDouble();
        } else if (spelling == QLatin1String("stages")) {
            QString error;
            const auto stages = parseStages(text, &error);
            QVERIFY2(stages, qPrintable(error));
            c.load.stages = *stages;
        } else {
            QTemporaryDir dir;
            const QString path = dir.filePath(QStringLiteral("tiny.json"));
            QVERIFY(tb::test::writeFile(path, text.toUtf8()));
            QString error;
            const auto loaded = loadRunConfig(path, &error);
            QVERIFY2(loaded, qPrintable(error));
            c.load = loaded->load;
        }
        const QStringList problems = validate(c);
        if (expected.isEmpty()) {
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
            return;
        }
        QCOMPARE(problems, QStringList{expected});
    }

    void outWithTildeIsTheHomeDirectory_data()
    {
        QTest::addColumn<QString>("out");
        QTest::addColumn<QString>("expected"); // the directory; "!" + text: refused with it
        const QString home = QDir::homePath();
        QTest::newRow("~/x") << QStringLiteral("~/x") << home + QStringLiteral("/x");
        QTest::newRow("~") << QStringLiteral("~") << home;
        QTest::newRow("runs/~x") << QStringLiteral("runs/~x") << QStringLiteral("runs/~x");
        QTest::newRow("~bob/x") << QStringLiteral("~bob/x")
                                << QStringLiteral("!out (--out): '~bob/x': only a leading '~/' is expanded");
    }

    /// Regression: "out": "~/x" made a folder named "~" in the current directory.
    void outWithTildeIsTheHomeDirectory()
    {
        QFETCH(QString, out);
        QFETCH(QString, expected);
        nlohmann::json json = toJson(validConfig());
        json["out"] = out.toStdString();
        QString error;
        const auto c = runConfigFromJson(json, &error);
        QVERIFY2(c, qPrintable(error));
        const QStringList problems = validate(*c);
        if (expected.startsWith(QLatin1Char('!'))) {
            QCOMPARE(problems.size(), 1);
            QVERIFY2(problems.front().startsWith(expected.mid(1)), qPrintable(problems.front()));
            return;
        }
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QCOMPARE(c->outDir, expected);
    }

    void headerInjectionRefusedByTheParser_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("CRLF") << QStringLiteral("X-A: 1\r\nX-Injected: 1")
                              << QStringLiteral("header 'X-A' has a value that contains a line break");
        QTest::newRow("bare LF") << QStringLiteral("X-A: 1\nX-Injected: 1") << QStringLiteral("line break");
        QTest::newRow("second Host") << QStringLiteral("Host: evil.example")
                                     << QStringLiteral("header 'Host' is one TokenBench sets itself");
        QTest::newRow("no colon keeps the value out") << QStringLiteral("Authorization Bearer sk-live-secret")
                                                      << QStringLiteral("malformed header 'Authorization…'");
    }

    void headerInjectionRefusedByTheParser()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QString error;
        QVERIFY(!parseHeader(text, &error));
        QVERIFY2(error.contains(expected), qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("secret")) && !error.contains(QStringLiteral("Injected")),
                 qPrintable(error));
    }

    void keyAndHeaderInjectionRefusedWhereverFrom_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        const QList<std::pair<const char *, QString>> values{
            {"CRLF", QStringLiteral("sk-A-secret\r\nX-Injected-Key: 1")},
            {"LF", QStringLiteral("sk-A-secret\nX-Injected-Key: 1")},
            {"CR", QStringLiteral("sk-A-secret\rX-Injected-Key: 1")},
            {"NUL", QStringLiteral("sk-A-secret") + QChar(0) + QStringLiteral("X-Injected-Key: 1")},
            {"trailing newline", QStringLiteral("sk-A-secret\n")},
        };
        const QList<std::pair<const char *, QString>> sources{
            {"key typed in", QStringLiteral("target.api_key: the API key typed in ")},
            {"key variable", QStringLiteral("target.api_key_env (--api-key-env): the API key in TB_TEST_KEY ")},
            {"header", QStringLiteral("target.headers (--header): 'X-Api-Key' has a value that ")},
            {"header variable",
             QStringLiteral("target.headers (--header): 'X-Api-Key' refers to the environment variable "
                            "TB_TEST_HEADER, whose value ")},
            {"config file header", QStringLiteral("target.headers (--header): 'X-Api-Key' has a value that ")},
        };
        for (const auto &[source, prefix] : sources) {
            for (const auto &[kind, value] : values) {
                // An environment variable cannot hold a NUL.
                if (QLatin1String(kind) == QLatin1String("NUL") &&
                    QLatin1String(source).endsWith(QLatin1String("variable")))
                    continue;
                const QString problem = QLatin1String(kind) == QLatin1String("NUL")
                                            ? QStringLiteral("contains a control character (U+0000)")
                                        : QLatin1String(kind) == QLatin1String("trailing newline")
                                            ? QStringLiteral("ends with a line break (CR or LF), as text read from a "
                                                             "file often does; remove it")
                                            : QStringLiteral("contains a line break (CR or LF)");
                QTest::addRow("%s, %s", source, kind) << QString::fromLatin1(source) << value << prefix + problem;
            }
        }
    }

    // A CR or LF in OPENAI_API_KEY went onto the wire (an extra header), and a key with a trailing
    // newline, as a mounted secret has, sent a malformed request without a word. Every string that
    // reaches a header is held to the check --header values had, and the message names where it
    // came from, never the value.
    void keyAndHeaderInjectionRefusedWhereverFrom()
    {
        QFETCH(QString, source);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        RunConfig c = validConfig();
        c.target.apiKeyEnv = QStringLiteral("TB_TEST_KEY");
        qunsetenv("TB_TEST_KEY");
        const QByteArray raw = value.toUtf8();
        if (source == QLatin1String("key typed in")) {
            c.target.apiKey = value;
        } else if (source == QLatin1String("key variable")) {
            QVERIFY(qputenv("TB_TEST_KEY", raw));
        } else if (source == QLatin1String("header")) {
            c.target.headers = {{QStringLiteral("X-Api-Key"), value}};
        } else if (source == QLatin1String("header variable")) {
            QVERIFY(qputenv("TB_TEST_HEADER", raw));
            c.target.headers = {{QStringLiteral("X-Api-Key"), QStringLiteral("${env:TB_TEST_HEADER}")}};
        } else {
            nlohmann::json json = toJson(validConfig());
            json["target"]["headers"] = {{"X-Api-Key", raw.toStdString()}};
            QString error;
            const auto loaded = runConfigFromJson(json, &error);
            QVERIFY2(loaded, qPrintable(error));
            c = *loaded;
        }
        const QStringList problems = validate(c);
        qunsetenv("TB_TEST_KEY");
        qunsetenv("TB_TEST_HEADER");
        QCOMPARE(problems, QStringList{expected});
        QVERIFY2(!problems.first().contains(QStringLiteral("secret")) &&
                     !problems.first().contains(QStringLiteral("Injected")),
                 qPrintable(problems.first()));
    }

    void concurrencyBeyondOpenFileLimitRefused()
    {
        rlimit saved{};
        QCOMPARE(getrlimit(RLIMIT_NOFILE, &saved), 0);
        rlimit low = saved;
        low.rlim_cur = 256;
        QCOMPARE(setrlimit(RLIMIT_NOFILE, &low), 0);
        RunConfig c = validConfig();
        c.load.concurrency = 1000;
        const QStringList problems = validate(c);
        const QString workers = checkOpenFiles(validConfig(), 100);
        QCOMPARE(setrlimit(RLIMIT_NOFILE, &saved), 0);
        QCOMPARE(problems.size(), 1);
        QVERIFY2(problems.first().startsWith(QStringLiteral("load.concurrency (--concurrency): 1000 connections")),
                 qPrintable(problems.first()));
        QVERIFY2(problems.first().contains(QStringLiteral("(256, RLIMIT_NOFILE")), qPrintable(problems.first()));
        QVERIFY2(workers.contains(QStringLiteral("100 worker threads")), qPrintable(workers));
        c.load.concurrency = 100;
        QVERIFY(validate(c).isEmpty());
    }

    void connectionLimitsNameTheLimit_data()
    {
        QTest::addColumn<int>("concurrency");
        QTest::addColumn<int>("replicas");
        QTest::addColumn<qint64>("openFiles");
        QTest::addColumn<int>("firstPort"); // 0: the OS does not say
        QTest::addColumn<int>("lastPort");
        QTest::addColumn<QString>("expected");
        constexpr qint64 kNone = std::numeric_limits<qint64>::max();
        const QString ports = ephemeralPortRangeHint();
        // 2 worker threads: 2 × 4 descriptors + 64 reserved beside the sockets.
        QTest::newRow("files: 1 over") << 185 << 0 << qint64(256) << 0 << 0
                                       << QStringLiteral(
                                              "185 connections and 2 worker threads need about 257 open files, more "
                                              "than this process may open (256, RLIMIT_NOFILE; raise it with 'ulimit "
                                              "-n'); at most 184 connections fit");
        QTest::newRow("files: exactly enough") << 184 << 0 << qint64(256) << 0 << 0 << QString();
        QTest::newRow("files: 10,000 streams at ulimit 1024")
            << 10000 << 0 << qint64(1024) << 32768 << 60999
            << QStringLiteral("10000 connections and 2 worker threads need about 10072 open files, more than this "
                              "process may open (1024, RLIMIT_NOFILE; raise it with 'ulimit -n'); at most 952 "
                              "connections fit");
        QTest::newRow("files: the limit leaves no room")
            << 1 << 0 << qint64(50) << 0 << 0
            << QStringLiteral("1 connections and 2 worker threads need about 73 "
                              "open files, more than this process may open (50, "
                              "RLIMIT_NOFILE; raise it with 'ulimit -n'); at most 0 "
                              "connections fit");
        QTest::newRow("ports: 10,000 streams, 1,000 ports")
            << 10000 << 0 << kNone << 32768 << 33767
            << QStringLiteral("10000 connections to one server need as many local ports, more than this machine "
                              "offers (1000: ports 32768-33767, %1)")
                   .arg(ports);
        QTest::newRow("ports: exactly enough") << 1000 << 0 << kNone << 32768 << 33767 << QString();
        QTest::newRow("ports: Linux's default range holds 10,000")
            << 10000 << 0 << kNone << 32768 << 60999 << QString();
        // Two servers share the 10,001 connections: the busier gets 5,001, one more than the ports.
        QTest::newRow("ports: two servers, one over")
            << 10001 << 1 << kNone << 1001 << 6000
            << QStringLiteral("5001 connections to one server need as many local ports, more than this machine "
                              "offers (5000: ports 1001-6000, %1)")
                   .arg(ports);
        QTest::newRow("ports: two servers, enough") << 10000 << 1 << kNone << 1001 << 6000 << QString();
        QTest::newRow("ports: unknown, not checked") << 100000 << 0 << kNone << 0 << 0 << QString();
    }

    void connectionLimitsNameTheLimit()
    {
        QFETCH(int, concurrency);
        QFETCH(int, replicas);
        QFETCH(qint64, openFiles);
        QFETCH(int, firstPort);
        QFETCH(int, lastPort);
        QFETCH(QString, expected);
        RunConfig c = validConfig();
        c.load.concurrency = concurrency;
        for (int i = 0; i < replicas; ++i)
            c.target.replicas << QStringLiteral("http://10.0.0.%1:8000/v1").arg(i + 2);
        ConnectionLimits limits;
        limits.openFiles = openFiles;
        if (firstPort > 0)
            limits.localPorts = PortRange{firstPort, lastPort};
        QCOMPARE(checkConnectionLimits(c, 2, limits), expected);
    }

    void portRangeParsed_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("first"); // 0: refused
        QTest::addColumn<int>("last");
        QTest::newRow("Linux's default, as /proc writes it") << QByteArray("32768\t60999\n") << 32768 << 60999;
        QTest::newRow("spaces") << QByteArray("  1024 65535 ") << 1024 << 65535;
        QTest::newRow("one port") << QByteArray("40000\t40000\n") << 40000 << 40000;
        QTest::newRow("first above last") << QByteArray("60999\t32768\n") << 0 << 0;
        QTest::newRow("port 0") << QByteArray("0\t60999\n") << 0 << 0;
        QTest::newRow("beyond 65535") << QByteArray("32768\t65536\n") << 0 << 0;
        QTest::newRow("one number") << QByteArray("32768\n") << 0 << 0;
        QTest::newRow("three numbers") << QByteArray("1 2 3\n") << 0 << 0;
        QTest::newRow("no blank between") << QByteArray("32768-60999") << 0 << 0;
        QTest::newRow("negative") << QByteArray("-1 60999") << 0 << 0;
        QTest::newRow("empty") << QByteArray() << 0 << 0;
        QTest::newRow("overflowing int") << QByteArray("99999999999999999999 60999") << 0 << 0;
    }

    void portRangeParsed()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, first);
        QFETCH(int, last);
        const auto range = parsePortRange(std::string_view(text.constData(), std::size_t(text.size())));
        QCOMPARE(range.has_value(), first > 0);
        if (range) {
            QCOMPARE(range->first, first);
            QCOMPARE(range->last, last);
        }
    }

    void ephemeralPortRangeIsTheKernels()
    {
        QFile file(QStringLiteral("/proc/sys/net/ipv4/ip_local_port_range"));
        if (!file.open(QIODevice::ReadOnly))
            QSKIP("no /proc/sys/net/ipv4/ip_local_port_range: not Linux, where the range is not read");
        const QByteArray text = file.readAll();
        const auto expected = parsePortRange(std::string_view(text.constData(), std::size_t(text.size())));
        QVERIFY2(expected, text.constData());
        const auto range = ephemeralPortRange();
        QVERIFY(range);
        QCOMPARE(range->first, expected->first);
        QCOMPARE(range->last, expected->last);
        QCOMPARE(ConnectionLimits::ofThisProcess().localPorts->count(), expected->count());
    }

    void credentialsAreRedactedWhenWritten()
    {
        qputenv("TB_TEST_HEADER_KEY", "hdr-secret-from-env");
        RunConfig c = validConfig();
        c.target.url = QStringLiteral("http://alice:pw-secret@127.0.0.1:8000/v1");
        c.target.replicas = {QStringLiteral("https://bob:pw2-secret@10.0.0.2/v1?x=1")};
        c.target.apiKey = QStringLiteral("sk-typed-secret");
        c.target.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer sk-literal-secret")},
                            {QStringLiteral("X-Api-Key"), QStringLiteral("${env:TB_TEST_HEADER_KEY}")},
                            {QStringLiteral("Cookie"), QStringLiteral("session=cookie-secret")},
                            {QStringLiteral("Ocp-Apim-Subscription-Key"), QStringLiteral("ocp-secret")},
                            {QStringLiteral("X-Team"), QStringLiteral("perf")}};
        const std::string json = toJson(c).dump();
        QVERIFY2(QByteArray::fromStdString(json).count("secret") == 0, json.c_str());
        const RunConfig r = redacted(c);
        QCOMPARE(r.target.url, QStringLiteral("http://127.0.0.1:8000/v1"));
        QCOMPARE(r.target.replicas, QStringList{QStringLiteral("https://10.0.0.2/v1?x=1")});
        QCOMPARE(r.target.headers.at(0).value, QLatin1String(kRedacted));
        QCOMPARE(r.target.headers.at(1).value, QStringLiteral("${env:TB_TEST_HEADER_KEY}")); // a reference is no secret
        QCOMPARE(r.target.headers.at(2).value, QLatin1String(kRedacted));
        QCOMPARE(r.target.headers.at(3).value, QLatin1String(kRedacted));
        QCOMPARE(r.target.headers.at(4).value, QStringLiteral("perf"));
        QVERIFY(r.target.apiKey.isEmpty());
        // The secrets the engine masks: resolved, never the references.
        const QStringList secrets = secretsOf(c.target);
        for (const QString &s :
             {QStringLiteral("sk-typed-secret"), QStringLiteral("Bearer sk-literal-secret"),
              QStringLiteral("hdr-secret-from-env"), QStringLiteral("session=cookie-secret"),
              QStringLiteral("ocp-secret"), QStringLiteral("pw-secret"), QStringLiteral("pw2-secret"),
              QString::fromLatin1(QByteArray("alice:pw-secret").toBase64())})
            QVERIFY2(secrets.contains(s), qPrintable(s));
        QVERIFY(!secrets.contains(QStringLiteral("perf")));
        qunsetenv("TB_TEST_HEADER_KEY");
    }

    void maskSecrets_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("masked");
        QTest::newRow("echoed") << QStringLiteral("HTTP 401: invalid key Bearer sk-abcdef123 for you")
                                << QStringLiteral("HTTP 401: invalid key Bearer *** for you");
        QTest::newRow("twice") << QStringLiteral("sk-abcdef123/sk-abcdef123") << QStringLiteral("***/***");
        QTest::newRow("cut short by the message limit")
            << QStringLiteral("HTTP 401: key sk-abcd…") << QStringLiteral("HTTP 401: key ***…");
        QTest::newRow("longest first") << QStringLiteral("pw=hunter2-long") << QStringLiteral("pw=***");
        QTest::newRow("nothing to mask") << QStringLiteral("HTTP 500: overloaded")
                                         << QStringLiteral("HTTP 500: overloaded");
        QTest::newRow("too short to be a secret")
            << QStringLiteral("HTTP 401: session 1") << QStringLiteral("HTTP 401: session 1");
    }

    void maskSecrets()
    {
        QFETCH(QString, text);
        QFETCH(QString, masked);
        QCOMPARE(tb::maskSecrets(text, {QStringLiteral("hunter2"), QStringLiteral("sk-abcdef123"),
                                        QStringLiteral("hunter2-long"), QStringLiteral("1")}),
                 masked);
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
        c.target.transport = TransportKind::Qnam;
        c.target.httpVersion = HttpVersion::Http2;
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
        c.load.connectTimeoutMs = 2500;
        c.load.seed = 18446744073709551615ULL; // regression: 64-bit seeds were read through double
        c.load.turns = 5;
        c.load.thinkTimeMs = 2500;
        c.load.thinkTimeExponential = true;
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
        QTest::newRow("unknown key") << QByteArray(R"({"load": {"concurency": 5}})")
                                     << QStringLiteral("load.concurency: unknown key");
        QTest::newRow("unknown transport")
            << QByteArray(R"({"target": {"transport": "curl"}})")
            << QStringLiteral("target.transport: unknown value \"curl\" (accepted: auto|native|qnam)");
        QTest::newRow("h2c through a proxy on native")
            << QByteArray("{\"target\": {\"url\": \"http://127.0.0.1:1/v1\", \"model\": \"m\", "
                          "\"transport\": \"native\", \"http_version\": \"2\", \"proxy\": "
                          "\"http://127.0.0.1:3128\"}}")
            << QStringLiteral("target.http_version (--http2): HTTP/2 in clear through a proxy needs --transport qnam");
        QTest::newRow("wrong type") << QByteArray(R"({"load": {"concurrency": "many"}})")
                                    << QStringLiteral("load.concurrency: must be a whole number");
        QTest::newRow("unknown api") << QByteArray(R"({"target": {"api": "grpc"}})")
                                     << QStringLiteral(
                                            "openai-chat|openai-completions|anthropic-messages|openai-responses");
        QTest::newRow("bad think time") << QByteArray(R"({"load": {"turns": 3, "think_time": "exp:soon"}})")
                                        << QStringLiteral(
                                               "load.think_time: must be a duration such as \"2s\", or \"exp:2s\"");
        QTest::newRow("too many turns") << QByteArray(R"({"load": {"turns": 5000}})") << QStringLiteral("load.turns");
        QTest::newRow("api key in file") << QByteArray(R"({"target": {"api_key": "sk-x"}})")
                                         << QStringLiteral("never read from files");
        QTest::newRow("bad duration") << QByteArray(R"({"load": {"duration": "forever"}})")
                                      << QStringLiteral("load.duration: must be a duration");
        QTest::newRow("newer format") << QByteArray(R"({"version": 99})") << QStringLiteral("newer TokenBench");
        QTest::newRow("unknown balance")
            << QByteArray(R"({"target": {"balance": "weighted"}})")
            << QStringLiteral(
                   "target.balance: unknown value \"weighted\" (accepted: round-robin|least-in-flight|random)");
        QTest::newRow("replicas not a list")
            << QByteArray("{\"target\": {\"replicas\": \"http://a/v1\"}}") /* not a raw string: moc reads its // as a
                                                                              comment */
            << QStringLiteral("target.replicas: must be an array of strings");
        QTest::newRow("bad stage") << QByteArray(R"({"load": {"stages": [{"mode": "burst"}]}})")
                                   << QStringLiteral("load.stages[0].mode");
        QTest::newRow("tokenizer file under request")
            << QByteArray(R"({"request": {"tokenizer": "tok.json"}})")
            << QStringLiteral("request.tokenizer: 'tok.json': set target.tokenizer instead");
        QTest::newRow("concurrency wrapping to 1")
            << QByteArray(R"({"load": {"concurrency": 4294967297}})")
            << QStringLiteral("load.concurrency: must be a whole number from 1 to 100000 (got 4294967297)");
        QTest::newRow("max_tokens wrapping to 4")
            << QByteArray(R"({"request": {"max_tokens": 4294967300}})")
            << QStringLiteral("request.max_tokens: must be a whole number from 1 to 10000000 (got 4294967300)");
        QTest::newRow("integer longer than int64")
            << QByteArray(R"({"prompt": {"prompt_tokens": 99999999999999999999}})")
            << QStringLiteral("prompt.prompt_tokens: must be a whole number from 0 to 2000000");
        QTest::newRow("negative seed") << QByteArray(R"({"load": {"seed": -1}})")
                                       << QStringLiteral(
                                              "load.seed: must be a whole number from 0 to 18446744073709551615");
        QTest::newRow("negative requests") << QByteArray(R"({"load": {"requests": -5}})")
                                           << QStringLiteral("load.requests: must be a whole number from 0");
        QTest::newRow("zero duration") << QByteArray(R"({"load": {"duration": 0}})")
                                       << QStringLiteral("load.duration: must be a duration");
        QTest::newRow("zero timeout") << QByteArray(R"({"load": {"timeout": "0s"}})")
                                      << QStringLiteral("load.timeout: must be a duration");
        QTest::newRow("zero stage duration") << QByteArray(R"({"load": {"stages": [{"level": 1, "duration": "0ms"}]}})")
                                             << QStringLiteral("load.stages[0].duration: must be a duration");
        QTest::newRow("temperature not a number")
            << QByteArray(R"({"request": {"temperature": "NaN"}})")
            << QStringLiteral("request.temperature: must be a finite number or null");
        QTest::newRow("number beyond double")
            << QByteArray(R"({"load": {"rate": 1e999}})") << QStringLiteral("not valid JSON");
        QTest::newRow("50000 stages") << QByteArray(R"({"load": {"stages": [)") +
                                             QByteArray(R"({"level": 1},)").repeated(49999) +
                                             QByteArray(R"({"level": 1}]}})")
                                      << QStringLiteral("load.stages: 50000 stages; at most 1000");
        QTest::newRow("extra_body nesting 100000 levels")
            << QByteArray(R"({"target": {"extra_body": )") + QByteArray(R"({"a": )").repeated(100000) +
                   QByteArray("1") + QByteArray("}").repeated(100002)
            << QStringLiteral("target.extra_body: nests deeper than 64 levels");
        QTest::newRow("arrays nesting 100000 levels")
            << QByteArray("[").repeated(100000) + QByteArray("]").repeated(100000)
            << QStringLiteral("nests deeper than 64 levels");
        QTest::newRow("header injection")
            << QByteArray("{\"target\": {\"url\": \"http://127.0.0.1:1/v1\", \"model\": \"m\", \"headers\": {\"X-A\": "
                          "\"1\\r\\nX-Injected: 1\"}}}")
            << QStringLiteral("target.headers (--header): 'X-A' has a value that contains a line break");
        // The parsed tree keeps the last of two equal keys: the first was dropped without a word.
        QTest::newRow("duplicate key accepted")
            << QByteArray(R"({"load": {"rate": 1, "mode": "rate", "rate": 2}})")
            << QStringLiteral("load.rate: given twice; a key may appear once in an object");
        QTest::newRow("duplicate top-level key accepted")
            << QByteArray(R"({"out": "a", "load": {}, "out": "b"})") << QStringLiteral("out: given twice");
        QTest::newRow("duplicate key in a stage accepted")
            << QByteArray(R"({"load": {"stages": [{"level": 1}, {"level": 2, "name": "a", "name": "b"}]}})")
            << QStringLiteral("load.stages[1].name: given twice");
        QTest::newRow("duplicate key in extra_body accepted")
            << QByteArray(R"({"target": {"extra_body": {"top_k": 1, "top_k": 40}}})")
            << QStringLiteral("target.extra_body.top_k: given twice");
        QTest::newRow("model with NUL accepted")
            << QByteArray("{\"target\": {\"url\": \"http://127.0.0.1:1/v1\", \"model\": \"m\\u0000x\"}}")
            << QStringLiteral("target.model (--model): the name contains a control character (U+0000)");
        QTest::newRow("stage name with CRLF accepted")
            << QByteArray(R"({"load": {"stages": [{"level": 1, "name": "a\r\nb"}]}})")
            << QStringLiteral("load.stages[0] (--stages): the name contains a line break");
        QTest::newRow("fail_on_slo without thresholds accepted")
            << QByteArray(R"({"slo": {"fail_on_slo": true}})")
            << QStringLiteral("slo.fail_on_slo (--fail-on-slo): needs thresholds to judge by");
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
        QVERIFY(tb::test::writeFile(path, json));
        QString error;
        const auto loaded = loadRunConfig(path, &error);
        // What loads is refused by validation (header values are checked where every config is).
        if (loaded)
            error = validate(*loaded).join(QLatin1Char('\n'));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void autoPicksATransportThatSpeaksIt_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("proxy");
        QTest::addColumn<int>("version");
        QTest::addColumn<int>("expected");
        const QString clear = QStringLiteral("http://127.0.0.1:8000/v1");
        const QString tls = QStringLiteral("https://127.0.0.1:8000/v1");
        const QString proxy = QStringLiteral("http://127.0.0.1:3128");
        QTest::newRow("HTTP/1.1") << clear << QString() << int(HttpVersion::Auto) << int(TransportKind::Native);
        QTest::newRow("HTTP/1.1 over https, proxied")
            << tls << proxy << int(HttpVersion::Http1) << int(TransportKind::Native);
        QTest::newRow("h2c, direct") << clear << QStringLiteral("none") << int(HttpVersion::Http2)
                                     << int(TransportKind::Native);
        QTest::newRow("h2 or HTTP/1.1 by ALPN over https")
            << tls << QString() << int(HttpVersion::Auto) << int(TransportKind::Native);
        QTest::newRow("HTTP/2 over https") << tls << QString() << int(HttpVersion::Http2) << int(TransportKind::Native);
        QTest::newRow("HTTP/2 over https through --proxy (its tunnel)")
            << tls << proxy << int(HttpVersion::Http2) << int(TransportKind::Native);
        QTest::newRow("h2c through --proxy") << clear << proxy << int(HttpVersion::Http2) << int(TransportKind::Qnam);
    }

    void autoPicksATransportThatSpeaksIt()
    {
        QFETCH(QString, url);
        QFETCH(QString, proxy);
        QFETCH(int, version);
        QFETCH(int, expected);
        TargetConfig target;
        target.url = url;
        target.proxy = proxy;
        target.httpVersion = HttpVersion(version);
        QCOMPARE(int(effectiveTransport(target)), expected);
        RunConfig c;
        c.target = target;
        c.target.model = QStringLiteral("m");
        c.target.transport = TransportKind(expected);
        const QStringList problems = validate(c);
        QVERIFY2(!problems.join(QLatin1Char('\n')).contains(QLatin1String("target.http_version")),
                 qPrintable(problems.join(QLatin1Char('\n'))));
    }
};

QTEST_GUILESS_MAIN(TestRunConfig)
#include "tst_runconfig.moc"
